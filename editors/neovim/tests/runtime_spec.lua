-- Runtime insight in Neovim 0.7 (no inlay hints): the timed lenses, :InductorHotLines filling the
-- quickfix list sorted by GPU time (profiled_mlp), and the printer's first NaN with its code action
-- (jit_printer).
local H = require('helpers')

local profiled = H.fixtures .. '/traces/profiled_mlp'
local jit = H.fixtures .. '/traces/jit_printer'

return {
  { 'the lens of profiled_mlp model.py line 17 ends with its GPU time', function()
    local bufnr = H.open(profiled .. '/model.py')
    local lens = H.wait('a timed lens on model.py line 17', function()
      for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
        if l.range.start.line == 16 and l.command and l.command.title:find(' total$') then
          return l
        end
      end
    end)
    H.ok(lens.command.title:match('^4 kernels, 10 launches · 2 forward · 2 backward · [%d.]+ %S+ total$'), lens.command.title)
  end },
  { ':InductorHotLines fills the quickfix list hottest first', function()
    H.open(profiled .. '/model.py')
    local qf = H.quickfix_of('InductorHotLines', 'Hottest lines')
    H.contains(qf.title, 'totals over the profiled region', 'quickfix title')
    H.eq(6, #qf.items, 'one entry per user line with kernels')
    -- The server's order is the time order: parse the times back and check they do not increase.
    local function ns(text)
      local v, unit = text:match('^([%d.]+) (%S+) total')
      local scale = ({ ns = 1, ['µs'] = 1e3, ms = 1e6, s = 1e9 })[unit]
      return tonumber(v) * scale
    end
    for i = 2, #qf.items do
      H.ok(ns(qf.items[i - 1].text) >= ns(qf.items[i].text), 'order: ' .. qf.items[i - 1].text .. ' / ' .. qf.items[i].text)
    end
    for _, item in ipairs(qf.items) do
      H.ok(vim.fn.bufname(item.bufnr):match('model%.py$'), 'entry outside model.py: ' .. vim.fn.bufname(item.bufnr))
    end
    -- The hottest is h = self.fc2(h) (line 18) or the gelu line (17): the two linear layers of the block.
    H.ok(qf.items[1].lnum == 18 or qf.items[1].lnum == 17, 'hottest line: ' .. qf.items[1].lnum)
    H.contains(qf.items[1].text, '%', 'entry text')
    vim.cmd('cclose')
  end },
  { 'the first NaN of jit_printer is an error on model.py line 16, with the printer code actions', function()
    local bufnr, client = H.open(jit .. '/model.py')
    local diagnostic = H.wait('the first-NaN diagnostic on model.py', function()
      for _, d in ipairs(vim.diagnostic.get(bufnr)) do
        if d.severity == vim.diagnostic.severity.ERROR and d.message:find('first NaN', 1, true) then
          return d
        end
      end
    end)
    H.eq(15, diagnostic.lnum, 'diagnostic line (0-based)')
    H.contains(diagnostic.message, 'triton_poi_fused_addmm_log_relu_sub_0', 'diagnostic message')
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = 15, character = 0 }, ['end'] = { line = 15, character = 0 } },
      context = { diagnostics = {} },
    }
    local response = require('inductor_ls.lsp').request_sync(client, 'textDocument/codeAction', params, H.timeout, bufnr)
    local actions = response and response.result or {}
    H.eq(2, #actions, 'code actions')
    local action = actions[1]
    H.eq('inductor.showPrinterEnv', action.command.command, 'action command')
    -- Run it as Neovim does for a command the client knows.
    vim.fn.setreg('"', '')
    local notified = H.notified_by(function()
      client.commands['inductor.showPrinterEnv'](action.command, { bufnr = bufnr, client_id = client.id })
    end)
    local reg = vim.fn.getreg('"')
    H.contains(reg, 'AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER=2', 'register')
    H.contains(reg, 'AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT=triton_poi_fused_addmm_log_relu_sub_0', 'register')
    -- Shown in a floating window, not echoed over several lines (which asks "Press ENTER").
    local shown = H.float_with(reg, 'the environment in a floating window')
    H.contains(shown[#shown], 'copied to the unnamed register', 'last line')
    H.eq({}, notified, 'messages echoed')
    H.close_floats()
  end },
}
