---@brief
--- `:InductorKernels` (`:Inductor kernels`): the launch sites of the kernels generated from
--- the cursor line, in the quickfix list, in the order of the line's hover and lens (by
--- compile and graph, then kernel; ranks that ran the same code merged). Sends
--- `inductor/launchSites` to the inductor-ls client only.

local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local locations = require('inductor_ls.locations')

return function()
  local client = lsp.require_client()
  if not client then
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local params = lsp.position_params(client)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local title = string.format('Kernels from %s:%d', vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t'), line)
  protocol.request(client, 'inductor/launchSites', params, locations.launch_sites_handler('launch sites', function(locs)
    locations.to_quickfix(locs, client.offset_encoding, title, client)
  end), bufnr)
end
