-- inductor-trace: buffers (log-only artifacts) through inductor/artifactContent.
local H = require('helpers')
local lsp = require('inductor_ls.lsp')

--- Log-only artifacts, preferred first: output code, kernels, then graphs (forward first).
local function pick_artifact(client)
  local list = H.request(client, 'inductor/listArtifacts', vim.empty_dict())
  H.ok(type(list) == 'table' and #list > 0, 'inductor/listArtifacts: ' .. vim.inspect(list))
  local rank = { outputCode = 1, wrapperCode = 2, kernel = 3, graph = 4 }
  local trace = {}
  for _, a in ipairs(list) do
    if type(a.uri) == 'string' and a.uri:find('^inductor%-trace:') then
      table.insert(trace, a)
    end
  end
  H.ok(#trace > 0, 'no inductor-trace: artifact among ' .. #list)
  table.sort(trace, function(a, b)
    local ra, rb = rank[a.kind] or 9, rank[b.kind] or 9
    if ra ~= rb then
      return ra < rb
    end
    return (a.graphKind == 'forward' and 0 or 1) < (b.graphKind == 'forward' and 0 or 1)
  end)
  return trace[1]
end

--- Put the cursor on something with a known origin: the gelu kernel, or the first FX node
--- assigned after a `model.py:16` comment in a graph dump.
local function cursor_on_symbol()
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  for lnum, line in ipairs(lines) do
    local col = line:find('triton_poi_fused_gelu_1', 1, true)
    if col then
      vim.api.nvim_win_set_cursor(0, { lnum, col - 1 })
      return 'triton_poi_fused_gelu_1'
    end
  end
  for lnum, line in ipairs(lines) do
    if line:find('model.py:16', 1, true) then
      for l2 = lnum + 1, math.min(lnum + 5, #lines) do
        local indent, node = lines[l2]:match('^(%s*)([%a_][%w_]*)%s*:?[^=]*=')
        if node then
          vim.api.nvim_win_set_cursor(0, { l2, #indent })
          return node
        end
      end
    end
  end
  H.fail('nothing with a model.py:16 origin in ' .. vim.api.nvim_buf_get_name(0))
end

return {
  { ':edit of a listed inductor-trace: URI gives a read-only buffer with text, filetype and client', function()
    local _, client = H.open(H.mlp .. '/model.py')
    local artifact = pick_artifact(client)
    vim.cmd('edit ' .. vim.fn.fnameescape(artifact.uri))
    local bufnr = vim.api.nvim_get_current_buf()
    local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    H.ok(#lines > 1, 'buffer text: ' .. vim.inspect(lines))
    H.ok(not lines[1]:find('^inductor%-ls: cannot read'), lines[1])
    local expected_ft = ({ python = 'python', cpp = 'cpp' })[artifact.languageId] or artifact.languageId
    H.eq(expected_ft, vim.bo.filetype, 'filetype')
    H.eq('nofile', vim.bo.buftype, 'buftype')
    H.eq(false, vim.bo.modifiable, 'modifiable')
    H.eq(true, vim.bo.readonly, 'readonly')
    H.eq(artifact.uri, vim.api.nvim_buf_get_name(bufnr), 'buffer name')
    H.wait('client attached to the artifact buffer', function()
      return lsp.client_for_buffer(bufnr)
    end)
  end },
  { 'definition from an inductor-trace: buffer reaches model.py line 16', function()
    local _, client = H.open(H.mlp .. '/model.py')
    local artifact = pick_artifact(client)
    vim.cmd('edit ' .. vim.fn.fnameescape(artifact.uri))
    local bufnr = vim.api.nvim_get_current_buf()
    H.wait('client attached to the artifact buffer', function()
      return lsp.client_for_buffer(bufnr)
    end)
    local symbol = cursor_on_symbol()
    local result = H.request(client, 'textDocument/definition', lsp.position_params(client), bufnr)
    local locs = H.locations(result)
    H.ok(#locs > 0, 'definition of ' .. symbol .. ' in ' .. artifact.uri .. ': no locations')
    H.eq('model.py:16', H.where(locs[1]), 'definition of ' .. symbol)
    -- The same through `gd` (vim.lsp.buf.definition).
    vim.fn.setqflist({}, 'r')
    vim.lsp.buf.definition()
    H.wait('gd to model.py', function()
      return vim.api.nvim_buf_get_name(0):match('/model%.py$') or #vim.fn.getqflist() > 0
    end)
  end },
  { 'the server spelling inductor-trace:/… opens the same text', function()
    local _, client = H.open(H.mlp .. '/model.py')
    local artifact = pick_artifact(client)
    local canonical = vim.api.nvim_buf_get_lines(vim.fn.bufadd(artifact.uri), 0, -1, false)
    local server_uri = require('inductor_ls.uri').server_uri(artifact.uri)
    vim.cmd('edit ' .. vim.fn.fnameescape(server_uri))
    H.eq(canonical, vim.api.nvim_buf_get_lines(0, 0, -1, false), 'text of ' .. server_uri)
    H.wait('client attached', function()
      return lsp.client_for_buffer(0)
    end)
  end },
}
