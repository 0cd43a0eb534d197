-- Roots without a trace beside the file (issue 41): setup() attaches a file only where a trace is, as
-- lsp/inductor_ls.lua does on 0.11. A stray file opened from a folder that holds other traces gets no server
-- (none indexes that folder), and attaches once a run writes a trace beside it. With init_options.traceDirs,
-- the files under the current directory share one server rooted there, which says once that no trace was
-- found and how to make one, then picks the trace up by itself when a run writes it (Neovim 0.7 has no
-- didChangeWatchedFiles: the server watches). The status and the artifact picker read well.
local H = require('helpers')
local config = require('inductor_ls.config')
local lsp = require('inductor_ls.lsp')
local root = require('inductor_ls.root')

--- A fresh project folder without a trace.
local function project()
  local dir = vim.fn.resolve(vim.fn.tempname())
  vim.fn.mkdir(dir .. '/pkg/sub', 'p')
  vim.fn.writefile({ 'import torch', 'x = 1' }, dir .. '/train.py')
  vim.fn.writefile({ 'y = 2' }, dir .. '/pkg/sub/util.py')
  return dir
end

--- Copy mlp_train's TORCH_TRACE log into `dir` (made when missing); returns the copy's path.
local function write_trace(dir)
  local src = vim.fn.glob(H.mlp .. '/trace/dedicated_log_torch_trace_*.log', false, true)[1]
  vim.fn.mkdir(dir, 'p')
  local target = dir .. '/' .. vim.fn.fnamemodify(src, ':t')
  vim.fn.writefile(vim.fn.readfile(src, 'b'), target, 'b')
  return target
end

--- Make `dir` the current directory and the session root (fixed by the first buffer that needs it).
local function enter(dir)
  vim.cmd('cd ' .. vim.fn.fnameescape(dir))
  root._session = nil
end

--- The clients started and buffers attached (`vim.lsp.start`, `start_client`, `buf_attach_client`) while
--- running Ex command `cmd` (editing or entering a file) and what it scheduled. The plugin attaches a
--- buffer in its FileType and BufEnter autocommands, which run inside the command: a file that got
--- nothing by then gets nothing later, so `{}` here needs no sleep to mean "no server".
---@return string[] the functions called, in order
local function attaches_by(cmd)
  local called, saved = {}, {}
  for _, name in ipairs({ 'start', 'start_client', 'buf_attach_client' }) do
    local fn = vim.lsp[name]
    if fn then
      saved[name] = fn
      vim.lsp[name] = function(...)
        table.insert(called, name)
        return fn(...)
      end
    end
  end
  local ok, err = pcall(function()
    vim.cmd(cmd)
    H.flush()
  end)
  for name, fn in pairs(saved) do
    vim.lsp[name] = fn
  end
  if not ok then
    error(err, 0)
  end
  return called
end

--- Stop `client` once its index is served, and wait until it has exited, cleanly: an exit reported
--- later would be taken for the next case's server failing to start.
local function stop(client)
  H.wait('the index of ' .. client.config.root_dir, function()
    local s = lsp.status[client.id]
    return s and s.indexing == false
  end)
  local exits = #lsp.exits
  vim.lsp.stop_client(client.id)
  local e = H.wait('the client to exit', function()
    return lsp.exits[exits + 1]
  end)
  H.eq({ code = 0, signal = 0 }, { code = e.code, signal = e.signal }, 'exit of the server of ' .. e.root)
end

local state = {}

return {
  { 'a stray file under a folder holding other traces gets no server: none indexes that folder', function()
    state.cwd = vim.fn.getcwd()
    state.session = root._session
    state.config = config.get()
    -- A parent folder holding a trace case in a subfolder, and a script beside that case.
    state.parent = vim.fn.resolve(vim.fn.tempname())
    write_trace(state.parent .. '/case_a/trace')
    vim.fn.writefile({ 'print(1)' }, state.parent .. '/script.py')
    enter(state.parent)
    local before = #lsp.clients()
    local attached = attaches_by('edit ' .. vim.fn.fnameescape(state.parent .. '/script.py'))
    local bufnr = vim.api.nvim_get_current_buf()
    H.eq('python', vim.bo[bufnr].filetype, 'filetype')
    H.eq({}, attached, 'clients started or attached for the stray script')
    H.eq(nil, lsp.client_for_buffer(bufnr), 'client of the stray script')
    H.eq(before, #lsp.clients(), 'clients')
    -- A command there says why, on one line.
    local notified = H.notified_by(function()
      vim.cmd('Inductor status')
    end, function(n)
      return #n > 0
    end)
    H.eq('inductor-ls: no trace above this file (:help inductor_ls-root)', notified[1].msg, 'why there is no server')
    -- The trace case itself still gets its own server.
    local _, client = H.open(state.parent .. '/case_a/model.py')
    H.eq(state.parent .. '/case_a', client.config.root_dir, 'root of the case')
    stop(client)
  end },
  { 'a file with no trace beside it attaches when entered again once a run wrote one there', function()
    state.later = project()
    enter(state.later)
    local attached = attaches_by('edit ' .. vim.fn.fnameescape(state.later .. '/train.py'))
    local bufnr = vim.api.nvim_get_current_buf()
    H.eq({}, attached, 'clients started or attached before the trace')
    H.eq(nil, lsp.client_for_buffer(bufnr), 'client before the trace')
    write_trace(state.later .. '/trace') -- TORCH_TRACE=<its folder>/trace
    vim.cmd('enew')
    vim.cmd('buffer ' .. bufnr)
    local client = H.wait('the client once the trace is there', function()
      return lsp.client_for_buffer(bufnr)
    end)
    H.eq(state.later, client.config.root_dir, 'root')
    local status = H.wait('the index of the trace', function()
      local s = lsp.status[client.id]
      return s and s.indexing == false and s
    end)
    H.eq(1, status.counts.compiles, 'compiles of mlp_train')
    vim.cmd('enew')
    stop(client)
  end },
  { 'with traceDirs, the files under the current directory share one server rooted there', function()
    state.dir = project()
    enter(state.dir)
    config.set(vim.tbl_extend('force', state.config, { init_options = { traceDirs = { state.dir .. '/runs' } } }))
    state.notified = {}
    state.notify = vim.notify
    vim.notify = function(msg, level, opts)
      table.insert(state.notified, { msg = msg, level = level })
      return state.notify(msg, level, opts)
    end
    local before = vim.tbl_map(function(c)
      return c.id
    end, lsp.clients())
    local _, client = H.open(state.dir .. '/train.py')
    local _, other = H.open(state.dir .. '/pkg/sub/util.py')
    H.eq(client.id, other.id, 'one client for both files')
    H.ok(not vim.tbl_contains(before, client.id), 'a new client')
    H.eq(state.dir, client.config.root_dir, 'session root')
    H.eq({ state.dir .. '/runs' }, client.config.init_options.traceDirs, 'traceDirs sent')
    -- A file outside the current directory is not the session's.
    H.eq(nil, root.find(state.parent .. '/script.py'), 'root of a file elsewhere')
    config.set(state.config)
    state.client = client
  end },
  { 'no trace: said once, with how to make one (window/showMessage through vim.notify)', function()
    local client = H.ok(state.client, 'no session client')
    local msg = H.wait('the no-trace message', function()
      for _, m in ipairs(lsp.messages) do
        if m.client_id == client.id then
          return m.message
        end
      end
    end)
    H.contains(msg, 'no torch.compile trace found in traceDirs (' .. state.dir .. '/runs)', 'message')
    H.contains(msg, 'TORCH_TRACE=' .. state.dir .. '/trace INDUCTOR_PROVENANCE=1', 'message')
    -- Notified on one line that fits the command line (else Neovim stops with "Press ENTER"), at its level.
    local note = H.wait('vim.notify of the message', function()
      for _, n in ipairs(state.notified) do
        if n.msg:find('no torch.compile trace found', 1, true) then
          return n
        end
      end
    end)
    H.ok(not note.msg:find('\n', 1, true), 'a line break in ' .. vim.inspect(note.msg))
    H.ok(vim.fn.strdisplaywidth(note.msg) < vim.v.echospace, 'wider than the command line: ' .. note.msg)
    H.eq(vim.log.levels.INFO, note.level, 'level of the no-trace message')
    H.eq(note.msg:sub(1, 40), msg:sub(1, 40), 'notified text')
    local status = H.wait('the status', function()
      local s = lsp.status[client.id]
      return s and s.indexing == false and s
    end)
    H.eq('inductor: no trace !', require('inductor_ls').statusline(0), 'statusline')
    H.eq('noTrace', status.notices[1].kind, 'notice in the status')
  end },
  { 'a trace written later is indexed by itself; the missing sources are said once', function()
    local client = H.ok(state.client, 'no session client')
    write_trace(state.dir .. '/runs/1/trace')
    local status = H.wait('an index of the new trace', function()
      local s = lsp.status[client.id]
      return s and s.indexing == false and s.counts and s.counts.traces == 1 and s
    end)
    H.eq(29, status.launchesWithMissingSource, 'launches without their source here')
    local msg = H.wait('the missing-sources message', function()
      for _, m in ipairs(lsp.messages) do
        if m.client_id == client.id and m.message:find('not on this machine', 1, true) then
          return m.message
        end
      end
    end)
    H.contains(msg, '/tmp/work/mlp_train/model.py', 'first missing path')
    H.contains(msg, 'pathMappings', 'the fix')
    -- Counted as every view counts (the server's `counts`): one Dynamo compile (its forward and backward
    -- graphs), the kernels its graphs launch.
    H.eq('inductor: 1 compile · 14 kernels !', require('inductor_ls').statusline(0), 'statusline')
  end },
  { 'server messages: one line each, once, most severe first when several come at once; never Press ENTER', function()
    local client = H.ok(state.client, 'no session client')
    local handler = client.handlers['window/showMessage']
    local notified = {}
    local saved = vim.notify
    vim.notify = function(msg, level)
      table.insert(notified, { msg = msg, level = level })
    end
    local ok, err = pcall(function()
      local long = 'inductor-ls: a test message\nwith a line break and ' .. string.rep('many words ', 40) .. 'at the end.'
      handler(nil, { type = 3, message = long }, { client_id = client.id })
      handler(nil, { type = 2, message = 'inductor-ls: a test warning' }, { client_id = client.id })
      handler(nil, { type = 2, message = 'inductor-ls: a test warning' }, { client_id = client.id })
      H.wait('the notification', function()
        return #notified > 0
      end)
      -- The messages' notifications are scheduled (|inductor_ls.message|): a second one, if any, runs before
      -- what is scheduled now.
      H.flush()
      H.eq(1, #notified, 'notifications: ' .. vim.inspect(notified))
      H.eq({ msg = 'inductor-ls: a test warning (+1 more: :Inductor status)', level = vim.log.levels.WARN },
        notified[1], 'the most severe, and how many more')
      notified = {}
      handler(nil, { type = 3, message = long .. ' (again, changed)' }, { client_id = client.id })
      handler(nil, { type = 2, message = 'inductor-ls: a test warning' }, { client_id = client.id })
      H.wait('the notification', function()
        return #notified > 0
      end)
      local msg = notified[1].msg
      H.ok(not msg:find('\n', 1, true), 'a line break in ' .. vim.inspect(msg))
      H.ok(vim.fn.strdisplaywidth(msg) < vim.v.echospace, 'wider than the command line: ' .. msg)
      H.ok(msg:match('^inductor%-ls: a test message with a line break.*… %(:Inductor status%)$'),
        'the cut message: ' .. msg)
      H.eq(vim.log.levels.INFO, notified[1].level, 'level')
      H.flush()
      H.eq(1, #notified, 'the repeated warning is not notified again')
    end)
    vim.notify = saved
    if not ok then
      error(err, 0)
    end
  end },
  { ':Inductor status reads well: plurals, notices', function()
    local status = require('inductor_ls.commands.status')
    local lines = status.describe({ indexing = false, traces = 1, compiles = 1, kernels = 2, launches = 194, errors = 0,
      notices = { { kind = 'noTrace', message = 'inductor-ls: no torch.compile trace found under /x.' } } }, '/x')
    H.eq('inductor-ls [/x]: 1 trace, 1 compile, 2 kernels, 194 launches', lines[1], 'counts')
    H.eq('  no torch.compile trace found under /x.', lines[2], 'notice')
    lines = status.describe({ indexing = false, traces = 1, compiles = 8, kernels = 9, launches = 9, errors = 1,
      counts = { traces = 1, compiles = 5, graphs = 8, kernels = 8, launches = 8, problems = 4, graphBreaks = 3,
        recompiles = 0, failures = 1 } }, '/x')
    H.eq('inductor-ls [/x]: 1 trace, 5 compiles, 8 graphs, 8 kernels, 8 launches, 4 problems (3 graph breaks, '
      .. '0 recompiles, 1 failure), 1 indexing error', lines[1], 'the counts every view shows')
    lines = status.describe({ indexing = true, ready = false, progress = { percentage = 45, message = 'reading trace logs: 50 of 110 MB' }, waitingRequests = 2 }, nil)
    H.eq('inductor-ls [session, no folder]: indexing 45% (reading trace logs: 50 of 110 MB), 2 requests waiting', lines[1], 'indexing')
    -- The run served, the others and the baseline.
    local function run_line(s)
      return status.describe(vim.tbl_extend('force', { indexing = false, traces = 1, compiles = 1, kernels = 1,
        launches = 1 }, s), '/x')[2]
    end
    H.eq('  run 2026-11-27 02:31:47, 1 other run; baseline 2026-11-27 02:31:04',
      run_line({ run = '2026-11-27 02:31:47', otherRuns = 1, baseline = '2026-11-27 02:31:04' }), 'two runs')
    H.eq('  run 2026-11-27 02:31:04, 2 other runs; no baseline',
      run_line({ run = '2026-11-27 02:31:04', otherRuns = 2, baseline = vim.NIL }), 'the oldest of three')
    H.eq('  run 2026-11-27 02:31:04, no other run', run_line({ run = '2026-11-27 02:31:04', otherRuns = 0 }), 'one run')
    -- The statusline says the same in short.
    local client = H.ok(state.client, 'no session client')
    local saved = lsp.status[client.id]
    lsp.status[client.id] = { indexing = true, progress = { percentage = 45 }, waitingRequests = 1 }
    H.eq('inductor: indexing 45% · 1 waiting', require('inductor_ls').statusline(0), 'statusline while indexing')
    lsp.status[client.id] = saved
    -- Through the command: in a floating window, with the notices in full; nothing echoed (no "Press ENTER").
    state.notified = {}
    vim.cmd('Inductor status')
    local shown = H.float_with('inductor-ls [', ':Inductor status window')
    H.contains(shown[1], '1 trace, 1 compile, 2 graphs, 14 kernels, 29 launches, 0 problems', 'command output')
    -- The run: the log's first record's time (glog's `V1122 10:29:20`), in a year the log does not name.
    local log = vim.fn.glob(H.mlp .. '/trace/dedicated_log_torch_trace_*.log', false, true)[1]
    local first = vim.fn.readfile(log, '', 1)[1]
    local month, day, time = first:match('^%u(%d%d)(%d%d) (%d%d:%d%d:%d%d)')
    H.ok(shown[2]:match('^  run %d%d%d%d%-' .. month .. '%-' .. day .. ' ' .. time .. ', no other run$'),
      'the run line: ' .. vim.inspect(shown[2]))
    H.contains(table.concat(shown, '\n'), 'not on this machine', 'the missing-sources notice in full')
    H.flush() -- a message is notified in the next tick (|inductor_ls.message|)
    H.eq({}, state.notified, 'messages echoed by :Inductor status')
    H.close_floats()
  end },
  { ':Inductor artifacts: one entry per file, labelled with compile and graph', function()
    H.ok(state.client, 'no session client')
    local select = vim.ui.select
    local seen
    vim.ui.select = function(items, opts, on_choice)
      seen = {}
      for _, item in ipairs(items) do
        table.insert(seen, opts.format_item(item))
      end
      on_choice(items[1])
    end
    vim.cmd('Inductor artifacts')
    H.wait('the picker', function()
      return seen
    end)
    vim.ui.select = select
    local unique = {}
    for _, entry in ipairs(seen) do
      H.ok(not unique[entry], 'duplicate entry ' .. entry)
      unique[entry] = true
      H.ok(not entry:find('[?', 1, true), 'unknown compile in ' .. entry)
    end
    H.contains(seen[1], '[0/0] forward · output code in the log  (output code)', 'first entry')
    H.wait('the chosen artifact opened', function()
      return vim.api.nvim_buf_get_name(0):find('inductor-trace:', 1, true)
    end)
  end },
  { 'cleanup: the session server stops', function()
    vim.notify = state.notify or vim.notify
    if state.config then
      config.set(state.config)
    end
    if state.client then
      vim.lsp.stop_client(state.client.id)
    end
    vim.cmd('enew')
    vim.cmd('cd ' .. vim.fn.fnameescape(state.cwd))
    root._session = state.session
    for _, dir in ipairs({ state.dir, state.parent, state.later }) do
      vim.fn.delete(dir, 'rf')
    end
  end },
}
