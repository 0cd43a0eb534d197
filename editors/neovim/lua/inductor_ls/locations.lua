---@brief
--- Presenting LSP locations: jump to one, or fill the quickfix list with several.
--- `inductor-trace:` targets load through the plugin's `BufReadCmd`, both for the jump
--- and for the quickfix text (Neovim reads non-file URIs with `bufload`).

local config = require('inductor_ls.config')

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

--- Put `locations` in the quickfix list (and open it, unless configured off).
---@param locations table[]
---@param offset_encoding string
---@param title string
function M.to_quickfix(locations, offset_encoding, title)
  local items = vim.lsp.util.locations_to_items(locations, offset_encoding)
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if config.get().open_quickfix then
    vim.cmd('botright copen')
  end
end

--- Jump when there is exactly one location, else fill the quickfix list.
---@param locations table[]
---@param offset_encoding string
---@param title string
function M.show(locations, offset_encoding, title)
  if #locations == 0 then
    vim.notify('inductor-ls: ' .. title .. ': nothing found', vim.log.levels.INFO)
  elseif #locations == 1 then
    M.jump(locations[1], offset_encoding)
  else
    M.to_quickfix(locations, offset_encoding, title)
  end
end

return M
