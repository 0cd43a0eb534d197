-- Server commands, health check. Runs last (file order): reindexing may restart work.
local H = require('helpers')
local lsp = require('inductor_ls.lsp')

return {
  { ':Inductor with an unknown subcommand says so on one line, and how to list them', function()
    H.open(H.mlp .. '/model.py')
    local notified = H.notified_by(function()
      vim.cmd('Inductor nope')
    end, function(n)
      return #n > 0
    end)
    H.eq(1, #notified, 'messages: ' .. vim.inspect(notified))
    H.eq('inductor-ls: unknown subcommand "nope" (:Inductor <Tab> lists them)', notified[1].msg, 'message')
    H.ok(vim.fn.strdisplaywidth(notified[1].msg) < vim.v.echospace, 'wider than the command line: ' .. notified[1].msg)
    -- The list, as <Tab> completes it.
    H.eq({ 'artifacts', 'baseline', 'compare', 'compiles', 'hotlines', 'kernels', 'lowered', 'origin', 'ranks',
      'reindex', 'runs', 'status' }, require('inductor_ls.commands').complete('', 'Inductor '), 'subcommands')
  end },
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
    local bufnr, client = H.open(H.mlp .. '/model.py')
    H.wait('lenses on model.py', function()
      return vim.lsp.codelens.get(bufnr)[1]
    end)
    -- Spies: when the server's workspace/codeLens/refresh is handled, and which
    -- textDocument/codeLens requests go out after it.
    local refresh_handler, rpc_request = client.handlers['workspace/codeLens/refresh'], client.rpc.request
    local lens_requests, refreshed_at = 0, nil
    client.handlers['workspace/codeLens/refresh'] = function(...)
      refreshed_at = lens_requests
      return refresh_handler(...)
    end
    client.rpc.request = function(method, ...)
      if method == 'textDocument/codeLens' then
        lens_requests = lens_requests + 1
      end
      return rpc_request(method, ...)
    end
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
    local ok, err = pcall(H.wait, 'textDocument/codeLens after workspace/codeLens/refresh', function()
      return refreshed_at and lens_requests > refreshed_at
    end)
    client.handlers['workspace/codeLens/refresh'], client.rpc.request = refresh_handler, rpc_request
    H.ok(ok, tostring(err) .. (refreshed_at and '' or ' (the server sent no workspace/codeLens/refresh)'))
    vim.cmd('Inductor status')
  end },
}
