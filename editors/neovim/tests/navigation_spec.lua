-- Hover and definition on kernels in generated output code.
local H = require('helpers')
local lsp = require('inductor_ls.lsp')

local KERNEL = 'triton_poi_fused_gelu_1'

--- Open the forward output code with the cursor on the first launch of KERNEL.
local function at_launch()
  local bufnr, client = H.open(H.forward_output_code())
  local lnum = H.cursor_to(KERNEL .. '.run(')
  return bufnr, client, lnum
end

local function assert_model_16(locs, what)
  H.ok(#locs > 0, what .. ': no locations')
  for _, loc in ipairs(locs) do
    H.eq('model.py:16', H.where(loc), what .. ' target ' .. vim.inspect(loc))
  end
end

return {
  { 'hover on a kernel launch names the kernel and model.py:16', function()
    local bufnr, client = at_launch()
    local result = H.request(client, 'textDocument/hover', lsp.position_params(client), bufnr)
    H.ok(type(result) == 'table' and result.contents, 'hover result: ' .. vim.inspect(result))
    local value = result.contents.value or vim.inspect(result.contents)
    H.contains(value, KERNEL, 'hover markdown')
    H.contains(value, 'model.py:16', 'hover markdown')
    -- The same through the editor: the float shows it.
    vim.lsp.buf.hover()
    local text = H.wait('hover float', function()
      for _, win in ipairs(H.floats()) do
        local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
        return table.concat(lines, '\n')
      end
    end)
    H.contains(text, KERNEL, 'hover float')
    H.contains(text, 'model.py:16', 'hover float')
  end },
  { 'definition of the kernel at its launch is model.py line 16', function()
    local bufnr, client = at_launch()
    local result = H.request(client, 'textDocument/definition', lsp.position_params(client), bufnr)
    assert_model_16(H.locations(result), 'definition')
  end },
  { 'definition of `def ' .. KERNEL .. '` in the kernel source is model.py line 16', function()
    local bufnr, client = H.open(H.forward_output_code())
    H.cursor_to('def ' .. KERNEL)
    vim.cmd('normal! w')
    H.eq(KERNEL, vim.fn.expand('<cword>'), 'cursor word')
    local result = H.request(client, 'textDocument/definition', lsp.position_params(client), bufnr)
    assert_model_16(H.locations(result), 'definition')
  end },
  { ':InductorOrigin jumps to model.py line 16', function()
    at_launch()
    vim.fn.setqflist({}, 'r')
    vim.cmd('InductorOrigin')
    H.wait('jump to model.py (or a quickfix list)', function()
      return vim.api.nvim_buf_get_name(0):match('/model%.py$') or #vim.fn.getqflist() > 0
    end)
    if #vim.fn.getqflist() > 0 then
      for _, item in ipairs(vim.fn.getqflist()) do
        H.eq('model.py:16', vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':t') .. ':' .. item.lnum, 'quickfix entry')
      end
    else
      H.eq(H.mlp .. '/model.py', vim.api.nvim_buf_get_name(0), 'buffer after the jump')
      H.eq(16, vim.api.nvim_win_get_cursor(0)[1], 'cursor line after the jump')
    end
  end },
}
