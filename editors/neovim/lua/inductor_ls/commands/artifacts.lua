---@brief
--- `:Inductor artifacts`: a picker (`vim.ui.select`) over everything the server indexed
--- (`inductor/listArtifacts`): output code, wrapper code, graphs and kernel files, each as
--- `[0/0] backward · output_code.py  (output code)`, in the server's order (compiles in
--- order, kernel files last), one entry per file (ranks that wrote the same file share
--- it). The choice opens; log-only artifacts open as `inductor-trace:` buffers.

local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local uri = require('inductor_ls.uri')
local message = require('inductor_ls.message')

local M = {}

local kinds = { outputCode = 'output code', wrapperCode = 'wrapper code', kernel = 'kernel source', graph = 'graph' }

--- One entry per URI, in order; an entry shared by several compiles says so.
---@param list table[] `inductor/listArtifacts`
---@return table[]
function M.entries(list)
  local out, by_uri = {}, {}
  for _, a in ipairs(list) do
    local seen = by_uri[a.uri]
    if not seen then
      seen = vim.deepcopy(a)
      by_uri[a.uri] = seen
      table.insert(out, seen)
    elseif a.compile and seen.compile and not seen.label:find(a.compile, 1, true) then
      seen.label = seen.label .. ' (also ' .. a.compile .. ')'
    end
  end
  return out
end

--- How an entry reads in the picker.
---@param a table
---@return string
function M.format(a)
  return string.format('%s  (%s)', a.label or a.title or a.uri, kinds[a.kind] or a.kind or '?')
end

function M.run()
  local client = lsp.any_client()
  if not client then
    return
  end
  protocol.request(client, 'inductor/listArtifacts', vim.empty_dict(), function(err, result)
    if err or type(result) ~= 'table' or #result == 0 then
      message.notify('inductor-ls: no artifacts' .. (err and (': ' .. (err.message or '')) or ''), vim.log.levels.INFO)
      return
    end
    vim.ui.select(M.entries(result), { prompt = 'Inductor artifacts', format_item = M.format }, function(choice)
      if not choice then
        return
      end
      local bufnr = vim.uri_to_bufnr(uri.to_client(choice.uri))
      vim.api.nvim_set_current_buf(bufnr)
    end)
  end)
end

return setmetatable(M, {
  __call = function()
    M.run()
  end,
})
