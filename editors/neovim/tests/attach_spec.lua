-- Starting and reusing the client; position encoding; server status.
local H = require('helpers')
local lsp = require('inductor_ls.lsp')

return {
  { 'model.py attaches one client rooted at the trace folder', function()
    local _, client = H.open(H.mlp .. '/model.py')
    H.eq(H.mlp, client.config.root_dir, 'root_dir')
    H.eq(1, #lsp.clients(), 'number of inductor-ls clients')
  end },
  { 'output code of the same root reuses the client', function()
    local _, client = H.open(H.forward_output_code())
    H.eq(1, #lsp.clients(), 'number of inductor-ls clients')
    H.eq(H.mlp, client.config.root_dir, 'root_dir')
  end },
  { 'the negotiated position encoding is adopted (utf-8 offered first)', function()
    local client = lsp.clients()[1]
    local caps = client.server_capabilities or {}
    local picked = caps.positionEncoding or 'utf-16'
    H.eq(picked, client.offset_encoding, 'client.offset_encoding vs server positionEncoding')
    H.eq('utf-8', picked, 'server positionEncoding when the client offers utf-8')
  end },
  { 'inductor/status answers with counts', function()
    local client = lsp.clients()[1]
    local status = H.request(client, 'inductor/status', vim.empty_dict())
    H.ok(type(status) == 'table', 'status result: ' .. vim.inspect(status))
    for _, key in ipairs({ 'traces', 'compiles', 'kernels', 'launches', 'errors' }) do
      H.ok(type(status[key]) == 'number', 'status.' .. key .. ' in ' .. vim.inspect(status))
    end
    H.eq(false, status.indexing, 'status.indexing after a request that waited for the index')
    H.ok(status.kernels > 0, 'status.kernels > 0 in ' .. vim.inspect(status))
  end },
}
