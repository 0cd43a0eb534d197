-- Runs (issue 28) in Neovim: runs_gpt holds two runs of one edited model. The latest is served and
-- compared with the previous one: a lens says what changed on its line, a diagnostic new since the
-- baseline says so, and :InductorCompare lists the changes in the quickfix list.
local H = require('helpers')

local root = H.fixtures .. '/traces/runs_gpt'
-- The baseline: the first run's start, UTC (both logs' first chromium event).
local baseline = '2026-11-27 02:31:04'

--- The runs' starts as `MM-DD HH:MM:SS`, newest first, by a rule of the test's own: one run per log (each
--- a single-process job), started at its first record's glog time (`V1127 02:31:47.595000 ...`).
local function starts()
  local list = {}
  for _, log in ipairs(vim.fn.glob(root .. '/trace/dedicated_log_torch_trace_*.log', false, true)) do
    local month, day, time = vim.fn.readfile(log, '', 1)[1]:match('^%u(%d%d)(%d%d) (%d%d:%d%d:%d%d)')
    table.insert(list, month .. '-' .. day .. ' ' .. time)
  end
  table.sort(list, function(a, b)
    return a > b
  end)
  return list
end

--- `inductor/status` asked now (not the last notification): the run served and the baseline.
local function status_now(client)
  local s = H.request(client, 'inductor/status', vim.empty_dict())
  return s.indexing == false and s
end

--- Run `command` with vim.ui.select answered by `choose(labels, items)` (the index of the item to
--- choose, or nil to dismiss); returns the labels offered.
local function pick(command, choose)
  local select = vim.ui.select
  local labels
  vim.ui.select = function(items, opts, on_choice)
    labels = {}
    for _, item in ipairs(items) do
      table.insert(labels, opts.format_item(item))
    end
    local i = choose(labels)
    on_choice(i and items[i] or nil, i)
  end
  local ok, err = pcall(function()
    vim.cmd(command)
    H.wait('the pick of :' .. command, function()
      return labels
    end)
  end)
  vim.ui.select = select
  if not ok then
    error(err, 0)
  end
  return labels
end

--- The index of the label holding `text` (plain).
local function find(labels, text)
  for i, l in ipairs(labels) do
    if l:find(text, 1, true) then
      return i
    end
  end
  H.fail(string.format('no entry holding %q in %s', text, vim.inspect(labels)))
end

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
    -- :Inductor compare is the same command.
    local again = H.quickfix_of('Inductor compare', 'Changes since run')
    H.eq(qf.title, again.title, ':Inductor compare title')
    H.eq(#qf.items, #again.items, ':Inductor compare entries')
    vim.cmd('cclose')
  end },
  { ':Inductor runs offers the runs newest first; the one chosen is served, and :Inductor status names it', function()
    local _, client = H.open(root .. '/model.py')
    local runs = starts()
    H.eq(2, #runs, 'runs in runs_gpt')
    H.wait('the latest run served, compared with the previous one', function()
      local s = status_now(client)
      return s and s.run and s.run:sub(6) == runs[1] and s.baseline == baseline
    end)
    local labels = pick('Inductor runs', function(labels)
      return find(labels, runs[2])
    end)
    H.ok(labels[1]:match('^latest'), 'first entry: ' .. labels[1])
    H.ok(labels[2]:find(runs[1], 1, true) and labels[2]:find('latest · current', 1, true), 'newest: ' .. labels[2])
    H.ok(labels[3]:find(runs[2], 1, true) and labels[3]:find('baseline', 1, true), 'oldest: ' .. labels[3])
    H.eq(3, #labels, 'entries')
    -- The server reindexes the chosen run; the oldest has no run before it to compare with.
    local s = H.wait('the older run served', function()
      local now = status_now(client)
      return now and now.run and now.run:sub(6) == runs[2] and now
    end)
    H.eq(1, s.otherRuns, 'other runs')
    vim.cmd('Inductor status')
    local shown = H.float_with('inductor-ls [', ':Inductor status window')
    H.eq('  run ' .. s.run .. ', 1 other run; no baseline', shown[2], 'the run line')
    H.close_floats()
    -- Back to the latest, by its word; the baseline is the previous run again.
    vim.cmd('Inductor runs latest')
    s = H.wait('the latest run served again, with its baseline', function()
      local now = status_now(client)
      return now and now.run and now.run:sub(6) == runs[1] and now.baseline == baseline and now
    end)
    vim.cmd('Inductor status')
    shown = H.float_with('inductor-ls [', ':Inductor status window')
    H.eq('  run ' .. s.run .. ', 1 other run; baseline ' .. baseline, shown[2], 'the run line')
    H.close_floats()
  end },
  { ':Inductor baseline: none compares with nothing, a run id compares with it again', function()
    local _, client = H.open(root .. '/model.py')
    local runs = starts()
    local labels = pick('Inductor baseline', function(labels)
      return find(labels, 'none ')
    end)
    H.ok(labels[1]:match('^previous'), 'first entry: ' .. labels[1])
    H.ok(labels[2]:match('^none'), 'second entry: ' .. labels[2])
    H.ok(labels[4]:find(runs[2], 1, true) and labels[4]:match('^%* '), 'the baseline marked: ' .. labels[4])
    H.wait('no baseline', function()
      local s = status_now(client)
      return s and s.run and s.run:sub(6) == runs[1] and (s.baseline == nil or s.baseline == vim.NIL)
    end)
    local notified = H.notified_by(function()
      vim.cmd('Inductor compare')
    end, function(n)
      return #n > 0
    end)
    H.eq(vim.log.levels.INFO, notified[1].level, 'level of the no-baseline message')
    -- By its id (it holds a space).
    vim.cmd('Inductor baseline ' .. baseline)
    H.wait('the baseline again', function()
      local s = status_now(client)
      return s and s.baseline == baseline
    end)
  end },
  { ':Inductor completes subcommands, lowered stages and run ids', function()
    H.open(root .. '/model.py')
    local commands = require('inductor_ls.commands')
    H.eq({ 'lowered' }, commands.complete('lo', 'Inductor lo'), 'subcommand')
    H.eq({ 'runs' }, commands.complete('ru', 'Inductor ru'), 'subcommand')
    H.eq({ 'ptx' }, commands.complete('p', 'Inductor lowered p'), 'stage')
    H.eq({ 'none' }, commands.complete('n', 'Inductor baseline n'), 'baseline word')
    -- A run id holds a space: the part after it is completed.
    H.eq({ baseline:sub(12) }, commands.complete(baseline:sub(12, 18), 'Inductor baseline ' .. baseline:sub(1, 18)),
      'run id')
  end },
}
