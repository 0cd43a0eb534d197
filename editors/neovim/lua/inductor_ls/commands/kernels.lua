---@brief
--- `:InductorKernels` (`:Inductor kernels`): the launch sites of the kernels generated from
--- the cursor line, in the quickfix list. Sends `textDocument/references` to the
--- inductor-ls client only (other servers on the buffer answer Python references).

local lsp = require('inductor_ls.lsp')
local locations = require('inductor_ls.locations')

return function()
  local client = lsp.require_client()
  if not client then
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local params = lsp.position_params(client)
  params.context = { includeDeclaration = false }
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local title = string.format('Kernels from %s:%d', vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t'), line)
  lsp.request(client, 'textDocument/references', params, locations.launch_sites_handler('references', function(locs)
    locations.to_quickfix(locs, client.offset_encoding, title, client)
  end), bufnr)
end
