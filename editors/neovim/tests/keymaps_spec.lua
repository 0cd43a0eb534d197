-- Buffer-local K and gd (README setup, no mappings of the user's), hovers rendered for the terminal with
-- their links, the LspCodeLens highlight.
local H = require('helpers')

--- Run a normal-mode key sequence with mappings, as typed.
local function type_keys(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'mx', false)
end

--- The text of the first floating window, or nil.
local function float_text()
  for _, win in ipairs(H.floats()) do
    return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n'), win
  end
end

return {
  { 'K and gd are buffer-local mappings of attached buffers', function()
    local bufnr = H.open(H.mlp .. '/model.py')
    for _, lhs in ipairs({ 'K', 'gd' }) do
      local m = vim.fn.maparg(lhs, 'n', false, true)
      H.eq(1, m.buffer, lhs .. ' is buffer-local')
      H.contains(m.desc or '', 'inductor-ls', lhs .. ' description')
    end
    -- Not in a buffer that is not attached.
    vim.cmd('enew')
    H.eq('', vim.fn.maparg('K', 'n'), 'K in an unattached buffer')
    vim.cmd('buffer ' .. bufnr)
  end },
  { 'K on a model line shows its kernels as text, without Markdown, links kept for <CR>', function()
    H.open(H.mlp .. '/model.py')
    vim.api.nvim_win_set_cursor(0, { 16, 8 })
    type_keys('K')
    local text = H.wait('the hover float', float_text)
    H.contains(text, '4 kernels, 10 launches from line 16', 'hover heading')
    H.contains(text, '[0/0] forward', 'compile section')
    H.contains(text, 'triton_poi_fused_gelu_1 · pointwise · 2 launches, debug handles 3, 7', 'grouped kernel')
    for _, markup in ipairs({ '**', '](', '`', '### ' }) do
      H.ok(not text:find(markup, 1, true), 'markup ' .. markup .. ' in the float:\n' .. text)
    end
    local _, win = float_text()
    local links = vim.w[win].inductor_ls_links
    H.ok(type(links) == 'table' and #links > 0, 'links of the float')
    -- Follow the link of the kernel in the float: its first launch, in output code.
    local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
    local row, col
    for i, l in ipairs(lines) do
      col = l:find('triton_poi_fused_gelu_1', 1, true)
      if col then
        row = i
        break
      end
    end
    H.ok(row, 'kernel line in the float')
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_win_set_cursor(win, { row, col })
    type_keys('<CR>')
    H.wait('output code after <CR> on the link', function()
      return vim.api.nvim_buf_get_name(0):match('/output_code%.py$')
    end)
    H.contains(vim.api.nvim_get_current_line(), 'triton_poi_fused_gelu_1.run(', 'line after following the link')
  end },
  { 'K a second time enters the float; q closes it', function()
    H.open(H.forward_output_code())
    H.cursor_to('triton_poi_fused_gelu_1.run(')
    local origin = vim.api.nvim_get_current_win()
    type_keys('K')
    H.wait('the hover float', float_text)
    local _, win = float_text()
    type_keys('K')
    H.wait('the second K to enter the float', function()
      return vim.api.nvim_get_current_win() == win
    end)
    type_keys('q')
    H.wait('the float closed', function()
      return #H.floats() == 0
    end)
    H.eq(origin, vim.api.nvim_get_current_win(), 'back in the code window')
  end },
  { 'K off the kernel name of a launch shows the hover of the line: that launch', function()
    H.open(H.forward_output_code())
    local lnum = H.cursor_to('triton_poi_fused_gelu_1.run(')
    -- On the launch's first argument, past the kernel name.
    local col = vim.api.nvim_get_current_line():find('(', 1, true)
    vim.api.nvim_win_set_cursor(0, { lnum, col + 1 })
    H.ok(not vim.fn.expand('<cword>'):find('triton_', 1, true), 'cursor still on the kernel name')
    type_keys('K')
    local text = H.wait('the hover float', float_text)
    H.contains(text, 'triton_poi_fused_gelu_1', 'hover of the launch on the line')
  end },
  { 'K on a model line without kernels: the LSP hover, never keywordprg (pydoc)', function()
    H.open(H.mlp .. '/model.py')
    local keymaps = require('inductor_ls.keymaps')
    local ran_keywordprg, lsp_hover, notified = false, 0, {}
    vim.api.nvim_create_user_command('InductorTestKeywordprg', function()
      ran_keywordprg = true
    end, { nargs = '*' })
    local saved_kp, saved_hover, saved_notify = vim.bo.keywordprg, keymaps.lsp_hover, vim.notify
    vim.bo.keywordprg = ':InductorTestKeywordprg'
    keymaps.lsp_hover = function(...)
      lsp_hover = lsp_hover + 1
      return saved_hover(...)
    end
    vim.notify = function(msg, level)
      table.insert(notified, { msg = msg, level = level })
    end
    local wins = #vim.api.nvim_list_wins()
    local ok, err = pcall(function()
      vim.api.nvim_win_set_cursor(0, { 2, 7 }) -- `import torch`: no kernels, no compile event
      H.eq('import torch', vim.api.nvim_get_current_line(), 'line 2')
      type_keys('K')
      H.wait('the LSP hover fallback', function()
        return lsp_hover > 0
      end)
      H.wait('its one-line message', function()
        return #notified > 0
      end)
    end)
    vim.bo.keywordprg, keymaps.lsp_hover, vim.notify = saved_kp, saved_hover, saved_notify
    vim.api.nvim_del_user_command('InductorTestKeywordprg')
    if not ok then
      error(err, 0)
    end
    H.eq(false, ran_keywordprg, 'keywordprg ran')
    H.eq(1, lsp_hover, 'LSP hover fallbacks')
    H.eq({ { msg = 'No information available', level = vim.log.levels.INFO } }, notified, 'notified')
    H.eq(wins, #vim.api.nvim_list_wins(), 'windows (no float, no pydoc window)')
  end },
  { 'gd on a kernel launch goes to its origin, model.py line 16', function()
    H.open(H.forward_output_code())
    H.cursor_to('triton_poi_fused_gelu_1.run(')
    type_keys('gd')
    H.wait('model.py after gd', function()
      return vim.api.nvim_buf_get_name(0):match('/model%.py$')
    end)
    H.eq(16, vim.api.nvim_win_get_cursor(0)[1], 'cursor line after gd')
  end },
  { 'gd where inductor-ls has nothing falls back to the built-in gd', function()
    H.open(H.mlp .. '/model.py')
    -- `x` inside a function: Vim's gd finds its first use in the function.
    vim.api.nvim_win_set_cursor(0, { 18, 15 })
    local word = vim.fn.expand('<cword>')
    type_keys('gd')
    H.wait('the built-in gd', function()
      return vim.api.nvim_win_get_cursor(0)[1] ~= 18
    end)
    H.eq(word, vim.fn.expand('<cword>'), 'the same word')
  end },
  { 'keymaps can be changed or turned off; a mapping the user made first is kept', function()
    local config = require('inductor_ls.config')
    local saved = config.get()
    config.set(vim.tbl_extend('force', saved, { keymaps = { hover = 'gK', definition = false } }))
    local files = vim.fn.glob(H.mlp .. '/torch_compile_debug/*/torchinductor/model__0_backward_3.1/fx_graph_readable.py', false, true)
    H.eq(-1, vim.fn.bufnr(files[1]), 'the file is not open yet')
    -- A buffer-local K of the user's, made before the buffer is read (and so before the client attaches).
    vim.api.nvim_create_autocmd('BufAdd', {
      once = true,
      callback = function(args)
        vim.keymap.set('n', 'K', '<Nop>', { buffer = args.buf, desc = 'mine' })
      end,
    })
    local bufnr = H.open(files[1])
    config.set(saved)
    H.eq(1, vim.fn.maparg('gK', 'n', false, true).buffer, 'gK mapped')
    H.eq('', vim.fn.maparg('gd', 'n'), 'gd not mapped')
    H.eq('mine', vim.fn.maparg('K', 'n', false, true).desc, 'the user K kept')
    H.eq(bufnr, vim.api.nvim_get_current_buf(), 'buffer')
  end },
  { 'LspCodeLens is linked to a comment-like group (0.7 defines none)', function()
    H.contains(vim.fn.execute('highlight LspCodeLens'), 'links to Comment', 'LspCodeLens')
    vim.cmd('colorscheme default')
    H.contains(vim.fn.execute('highlight LspCodeLens'), 'links to Comment', 'LspCodeLens after :colorscheme')
  end },
  { 'hover rendering: headings, bold, code spans and links lose their markup', function()
    local hover = require('inductor_ls.hover')
    local lines, hl, links = hover.render(table.concat({
      '### [`k`](file:///a.py#L3)',
      '',
      '',
      '**From**',
      '- [model.py:16](file:///m.py#L16) `h = F.gelu(x)` *(note)*',
      '- `` a`b `` \\[x\\]',
    }, '\n'))
    H.eq({ 'k', '', 'From', '• model.py:16 h = F.gelu(x) (note)', '• a`b [x]' }, lines, 'lines')
    H.eq({ { 0, 0, 1, 'file:///a.py#L3' }, { 3, 4, 15, 'file:///m.py#L16' } }, links, 'links')
    local groups = {}
    for _, h in ipairs(hl) do
      groups[h[4]] = (groups[h[4]] or 0) + 1
    end
    H.ok(groups.InductorLsHoverHeading == 1 and groups.InductorLsHoverStrong == 1 and groups.InductorLsHoverLink == 2
      and groups.InductorLsHoverCode == 3 and groups.InductorLsHoverNote == 1, 'highlights: ' .. vim.inspect(hl))
  end },
  { 'hover rendering: a thematic break is a rule as wide as the text, in place of the blank lines around it', function()
    local hover = require('inductor_ls.hover')
    local lines, hl = hover.render(table.concat({
      '---',
      '**Kernels**',
      '',
      '---',
      '',
      '```text',
      'a_b',
      '```',
      '',
      '---',
    }, '\n'))
    H.eq({ 'Kernels', string.rep('─', 7), '  a_b' }, lines, 'lines')
    local rule = 0
    for _, h in ipairs(hl) do
      if h[1] == 1 and h[4] == 'InductorLsHoverNote' then
        rule = rule + 1
      end
    end
    H.eq(1, rule, 'the rule is highlighted')
  end },
}
