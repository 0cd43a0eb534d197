---@brief
--- `:Inductor status`: the server's index counts (`inductor/status`).

local lsp = require('inductor_ls.lsp')

return function()
  local client = lsp.require_client() or lsp.clients()[1]
  if not client then
    return
  end
  lsp.request(client, 'inductor/status', vim.empty_dict(), function(err, s)
    if err or type(s) ~= 'table' then
      vim.notify('inductor-ls: status: ' .. (err and err.message or 'no answer'), vim.log.levels.ERROR)
      return
    end
    vim.notify(string.format('inductor-ls [%s]: %s%d traces, %d compiles, %d kernels, %d launches, %d errors',
      client.config.root_dir, s.indexing and 'indexing… ' or '', s.traces or 0, s.compiles or 0,
      s.kernels or 0, s.launches or 0, s.errors or 0))
  end)
end
