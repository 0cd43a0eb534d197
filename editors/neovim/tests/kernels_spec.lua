-- :InductorKernels: launch sites of the kernels generated from a user line.
local H = require('helpers')

return {
  { ':InductorKernels on model.py line 16 lists launch sites in output code', function()
    H.open(H.mlp .. '/model.py')
    vim.api.nvim_win_set_cursor(0, { 16, 8 })
    vim.fn.setqflist({}, 'r')
    vim.cmd('InductorKernels')
    local items = H.wait('the quickfix list of :InductorKernels', function()
      local qf = vim.fn.getqflist({ title = 1, items = 1 })
      return qf.title:find('Kernels from model.py:16', 1, true) and qf.items
    end)
    H.ok(#items > 0, 'empty quickfix list')
    local named = 0
    for _, item in ipairs(items) do
      local name = vim.fn.bufname(item.bufnr)
      local where = string.format('%s:%d %q', name, item.lnum, item.text)
      H.ok(name:find('inductor-trace:', 1, true) or name:match('/output_code%.py$') or name:find('/inductor_cache/', 1, true),
        'entry outside output code: ' .. where)
      H.ok(item.text:match('triton_') or item.text:match('extern_kernels') or item.text:match('cpp_fused') or item.text:match('kernel'),
        'entry text names no kernel: ' .. where)
      if item.text:find('triton_poi_fused_gelu_1', 1, true) then
        named = named + 1
      end
    end
    H.ok(named > 0, 'no entry for triton_poi_fused_gelu_1 among ' .. #items)
  end },
  { 'each quickfix target of :InductorKernels opens at the launch line', function()
    H.open(H.mlp .. '/model.py')
    vim.api.nvim_win_set_cursor(0, { 16, 8 })
    vim.fn.setqflist({}, 'r')
    vim.cmd('InductorKernels')
    local items = H.wait('the quickfix list of :InductorKernels', function()
      local qf = vim.fn.getqflist({ title = 1, items = 1 })
      return qf.title:find('Kernels from model.py:16', 1, true) and #qf.items > 0 and qf.items
    end)
    local seen = {}
    for i, item in ipairs(items) do
      if not seen[item.bufnr] then
        seen[item.bufnr] = true
        vim.cmd('cc ' .. i)
        local name = vim.api.nvim_buf_get_name(0)
        H.eq(item.bufnr, vim.api.nvim_get_current_buf(), 'buffer after :cc ' .. i)
        H.eq(item.lnum, vim.api.nvim_win_get_cursor(0)[1], 'line after :cc ' .. i .. ' in ' .. name)
        -- The entry says which compile and graph it is in, then shows the line.
        local label, text = item.text:match('^(%[%d+/%d+%] %a+ · .-) │ (.*)$')
        H.ok(label, 'no compile label in ' .. vim.inspect(item.text))
        H.eq(vim.trim(text), vim.trim(vim.api.nvim_get_current_line()), 'text at ' .. name .. ':' .. item.lnum)
        if name:match('/output_code%.py$') then
          H.eq(vim.fn.fnamemodify(name, ':t'), label:match('· (.*)$'), 'file in the label')
          H.contains(label, name:match('model__0_backward') and 'backward' or 'forward', 'graph in the label')
        end
        if name:find('inductor-trace:', 1, true) then
          H.eq('nofile', vim.bo.buftype, 'buftype of ' .. name)
          H.wait('client attached to ' .. name, function()
            return require('inductor_ls.lsp').client_for_buffer(0)
          end)
        end
      end
    end
  end },
}
