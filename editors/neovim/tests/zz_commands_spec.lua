-- Server commands, health check. Runs last (file order): reindexing may restart work.
local H = require('helpers')
local lsp = require('inductor_ls.lsp')

return {
  { ':checkhealth inductor_ls reports the running client', function()
    H.open(H.mlp .. '/model.py')
    vim.cmd('checkhealth inductor_ls')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    H.contains(text, 'inductor_ls', 'health output')
    H.contains(text, 'root ' .. H.mlp, 'health output')
    H.ok(not text:find('ERROR'), 'health output has an ERROR:\n' .. text)
    vim.cmd('tabclose')
  end },
  { ':Inductor reindex is accepted and the server reports status', function()
    local _, client = H.open(H.mlp .. '/model.py')
    lsp.status[client.id] = nil -- so only a notification sent after the reindex counts
    local result = H.request(client, 'workspace/executeCommand', { command = 'inductor.reindex', arguments = {} })
    H.ok(result == nil or result == vim.NIL or type(result) == 'table', 'executeCommand result: ' .. vim.inspect(result))
    local status = H.wait('inductor/status after reindex', function()
      local s = lsp.status[client.id]
      return s and not s.indexing and s
    end)
    -- The index is back: requests answer again.
    local again = H.request(client, 'inductor/status', vim.empty_dict())
    H.eq(false, again.indexing, 'inductor/status after the reindex finished')
    H.ok(status.kernels > 0, 'status after reindex: ' .. vim.inspect(status))
    vim.cmd('Inductor status')
  end },
}
