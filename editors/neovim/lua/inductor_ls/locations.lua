---@brief
--- Presenting LSP locations: jump to one, or fill the quickfix list with several.
--- `inductor-trace:` targets load through the plugin's `BufReadCmd`, both for the jump
--- and for the quickfix text (Neovim reads non-file URIs with `bufload`).

local config = require('inductor_ls.config')
local message = require('inductor_ls.message')

local M = {}

--- Normalise a definition/references result (Location | Location[] | LocationLink[] | null).
---@param result any
---@return table[]
function M.normalize(result)
  if result == nil or result == vim.NIL then
    return {}
  end
  if result.uri or result.targetUri then
    return { result }
  end
  return result
end

--- Jump to one location, keeping the jumplist and tagstack as `gd` does.
---@param location table Location or LocationLink
---@param offset_encoding string
function M.jump(location, offset_encoding)
  if vim.lsp.util.show_document then
    vim.lsp.util.show_document(location, offset_encoding, { focus = true })
  else
    vim.lsp.util.jump_to_location(location, offset_encoding)
  end
end

--- Put `locations` in the quickfix list (and open it, unless configured off), in the server's
--- order (a model line's launch sites come as its hover lists them: by compile and graph, then
--- kernel), not sorted by file. With a client, each entry in generated code leads with which
--- compile and graph it is in (`[0/0] backward · output_code.py`, the server's artifact label)
--- instead of the file's path (quickfix `module`: a debug folder's path is 90 characters);
--- its text is the line.
---@param locations table[]
---@param offset_encoding string
---@param title string
---@param client? table
function M.to_quickfix(locations, offset_encoding, title, client)
  local items = {}
  for _, location in ipairs(locations) do
    -- One at a time: locations_to_items sorts what it is given by file and line.
    for _, item in ipairs(vim.lsp.util.locations_to_items({ location }, offset_encoding)) do
      table.insert(items, item)
    end
  end
  if client then
    local lsp = require('inductor_ls.lsp')
    local uri = require('inductor_ls.uri')
    for _, item in ipairs(items) do
      local name = item.filename or (item.bufnr and vim.api.nvim_buf_get_name(item.bufnr)) or ''
      local target = uri.server_uri(name) or vim.uri_from_fname(name)
      local label = lsp.label(client, target)
      if label then
        item.module = label
      end
      item.text = vim.trim(item.text or '')
    end
  end
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if config.get().open_quickfix then
    vim.cmd('botright copen')
  end
end

--- Jump when there is exactly one location, else fill the quickfix list.
---@param locations table[]
---@param offset_encoding string
---@param title string
---@param client? table labels quickfix entries (see to_quickfix)
function M.show(locations, offset_encoding, title, client)
  if #locations == 0 then
    message.notify('inductor-ls: ' .. title .. ': nothing found', vim.log.levels.INFO)
  elseif #locations == 1 then
    M.jump(locations[1], offset_encoding)
  else
    M.to_quickfix(locations, offset_encoding, title, client)
  end
end

--- A request handler for an answer of kernel launch sites from the cursor line (references,
--- `inductor/launchSites`): says what went wrong (`what` names the request) or that there
--- are none, else passes the locations to `show`.
---@param what string
---@param show fun(locations: table[])
---@return fun(err: table?, result: any)
function M.launch_sites_handler(what, show)
  return function(err, result)
    if err then
      message.notify('inductor-ls: ' .. what .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local locs = M.normalize(result)
    if #locs == 0 then
      message.notify('inductor-ls: no kernels generated from this line', vim.log.levels.INFO)
      return
    end
    show(locs)
  end
end

return M
