---@brief
--- `:Inductor reindex`: ask the server to re-read its traces (`workspace/executeCommand`
--- `inductor.reindex`). The server refreshes lenses and sends `inductor/status` when done.

local lsp = require('inductor_ls.lsp')

return function()
  local client = lsp.require_client() or lsp.clients()[1]
  if not client then
    return
  end
  lsp.request(client, 'workspace/executeCommand', { command = 'inductor.reindex', arguments = {} }, function(err)
    if err then
      vim.notify('inductor-ls: reindex: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end)
end
