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
        -- The entry leads with which compile and graph it is in (the quickfix module, shown in place of the
        -- file's path), then shows the line.
        local label, text = item.module, item.text
        H.ok(label and label:match('^%[%d+/%d+%] %a+ · '), 'no compile label in ' .. vim.inspect(item))
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
  { 'quickfix rows of :InductorKernels lead with the label and follow the hover: compile, graph, kernel', function()
    local bufnr, client = H.open(H.mlp .. '/model.py')
    vim.api.nvim_win_set_cursor(0, { 16, 8 })
    -- The oracle: the line's hover, as the server writes it (Markdown): `**[0/0] forward**` headings, then one
    -- item per kernel, `- [`name`](uri)`.
    local hover = H.request(client, 'textDocument/hover', { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      position = { line = 15, character = 8 } }, bufnr)
    local expected, group = {}, nil
    for _, l in ipairs(vim.split(hover.contents.value, '\n', { plain = true })) do
      group = l:match('^%*%*(%[%d+/%d+%] %a+)%*%*$') or group
      local kernel = l:match('^%- %[`([%w_.]+)`%]')
      if kernel and group then
        table.insert(expected, group .. ' ' .. kernel)
      end
    end
    H.ok(#expected >= 2, 'kernels in the hover:\n' .. hover.contents.value)
    vim.fn.setqflist({}, 'r')
    vim.cmd('InductorKernels')
    local items = H.wait('the quickfix list of :InductorKernels', function()
      local qf = vim.fn.getqflist({ title = 1, items = 1 })
      return qf.title:find('Kernels from model.py:16', 1, true) and #qf.items > 0 and qf.items
    end)
    local got, seen = {}, {}
    for _, item in ipairs(items) do
      H.ok(item.module and item.module ~= '', 'a row without its label: ' .. vim.inspect(item))
      H.ok(#item.module < 60, 'a long label: ' .. item.module)
      local graph = item.module:match('^(%[%d+/%d+%] %a+) · ')
      -- The kernel the row launches: the longest hover kernel named in its text.
      local kernel
      for _, e in ipairs(expected) do
        local k = e:match('(%S+)$')
        if item.text:find(k, 1, true) and (not kernel or #k > #kernel) then
          kernel = k
        end
      end
      H.ok(graph and kernel, 'row names no graph or kernel of the hover: ' .. vim.inspect(item))
      local key = graph .. ' ' .. kernel
      if not seen[key] then
        seen[key] = true
        table.insert(got, key)
      end
    end
    H.eq(expected, got, 'kernels of the rows, in order')
    -- The quickfix window shows the label where the path would be.
    local winid = vim.fn.getqflist({ winid = 1 }).winid
    H.ok(winid ~= 0, 'no quickfix window')
    local line = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(winid), 0, 1, false)[1]
    H.ok(line:sub(1, #items[1].module) == items[1].module, 'first quickfix line: ' .. vim.inspect(line))
  end },
}
