---@brief
--- Client-side command `inductor.showLocations`, the command of the code lenses of generated
--- code and graph dumps (a model line's lens has `inductor.showLaunchSites`).
--- Arguments (from the server): `[uri, position, locations]`: the lens's document URI
--- (string), an LSP Position, and an array of LSP Locations. One location: jump to it;
--- several: quickfix list. Read through `inductor_ls.protocol` (its `commands` declaration).

local locations = require('inductor_ls.locations')
local protocol = require('inductor_ls.protocol')

---@param command table LSP Command `{title, command, arguments}`
---@param ctx table `{bufnr, client_id}`
return function(command, ctx)
  local args = protocol.arguments('inductor.showLocations', command)
  local locs = locations.normalize(args[3])
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = client and client.offset_encoding or 'utf-16'
  locations.show(locs, encoding, command.title or 'inductor-ls', client)
end
