-- Runs (issue 28) in Neovim: runs_gpt holds two runs of one edited model. The latest is served and
-- compared with the previous one: a lens says what changed on its line, a diagnostic new since the
-- baseline says so, and :InductorCompare lists the changes in the quickfix list.
local H = require('helpers')

local root = H.fixtures .. '/traces/runs_gpt'
-- The baseline: the first run's start, UTC (both logs' first chromium event).
local baseline = '2026-11-27 02:31:04'

return {
  { 'a line only the latest run compiled has a (new) lens; the print line a graph break new since the baseline', function()
    local bufnr = H.open(root .. '/model.py')
    local silu = H.cursor_to('h = F.silu(h)')
    -- Refreshed (workspace/codeLens/refresh) once the baseline's index is built, after the latest run's.
    local lens = H.wait('the lens of the silu line, new since the baseline', function()
      for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
        if l.range.start.line == silu - 1 and l.command and l.command.title:find('(new)', 1, true) then
          return l
        end
      end
    end)
    H.ok(lens.command.title:match('^8 kernels %(new%) over 2 compiles'), lens.command.title)
    local print_line = H.cursor_to('print("mlp scale"')
    -- Published again once the baseline's index is built (it is built after the latest run's).
    local d = H.wait('the graph break on the print line, new since the baseline', function()
      for _, x in ipairs(vim.diagnostic.get(bufnr)) do
        if x.lnum == print_line - 1 and x.message:find('Graph break', 1, true)
          and x.message:find('new since run ' .. baseline, 1, true) then
          return x
        end
      end
    end)
    H.ok(d.message:find('Graph break', 1, true) == 1, d.message)
  end },
  { ':InductorCompare lists the new events and the new and gone lines', function()
    H.open(root .. '/model.py')
    local qf = H.quickfix_of('InductorCompare', 'Changes since run')
    H.eq('Changes since run ' .. baseline, qf.title, 'quickfix title')
    local lines = vim.fn.readfile(root .. '/model.py')
    local function entry(change, text)
      for _, item in ipairs(qf.items) do
        if item.text:find('^' .. change) and lines[item.lnum] and lines[item.lnum]:find(text, 1, true) then
          return item
        end
      end
      H.fail(string.format('no %s entry on a line holding %q in %s', change, text, vim.inspect(qf.items)))
    end
    H.contains(entry('new', 'print("mlp scale"').text, 'graph break', 'the new graph break')
    entry('new', 'h = F.silu(h)')
    entry('new', 'x = self.norm(x)')
    -- A gone line is no longer in model.py: its entry is at the baseline's line, whose text it shows.
    local gone = false
    for _, item in ipairs(qf.items) do
      gone = gone or (item.text:find('^gone') and item.text:find('F.gelu', 1, true) ~= nil)
    end
    H.ok(gone, 'no gone entry for F.gelu: ' .. vim.inspect(qf.items))
    vim.cmd('cclose')
  end },
}
