---@brief
--- Client-side command `inductor.showLaunchSites`, the command of a model line's kernel lens.
--- Arguments (from the server): `[uri, position]`, the lens's document URI (string) and an
--- LSP Position. The lens carries no locations (a line of a many-compile trace has
--- thousands): they are asked of the server (`inductor/launchSites`) when the lens runs.
--- One location: jump to it; several: quickfix list.

local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local locations = require('inductor_ls.locations')
local message = require('inductor_ls.message')

---@param command table LSP Command `{title, command, arguments}`
---@param ctx table `{bufnr, client_id}`
return function(command, ctx)
  local args = protocol.arguments('inductor.showLaunchSites', command)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client or type(args[1]) ~= 'string' or type(args[2]) ~= 'table' then
    message.notify('inductor-ls: malformed inductor.showLaunchSites arguments', vim.log.levels.ERROR)
    return
  end
  local params = { textDocument = { uri = args[1] }, position = args[2] }
  -- No locations: the file changed since the lens was made, and the line no longer produced kernels.
  protocol.request(client, 'inductor/launchSites', params, locations.launch_sites_handler('launch sites', function(locs)
    locations.show(locs, client.offset_encoding or 'utf-16', command.title or 'inductor-ls', client)
  end), ctx.bufnr)
end
