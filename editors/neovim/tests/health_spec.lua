-- Compile health on the compile_health fixture (graph breaks and recompiles): the
-- server's diagnostics through vim.diagnostic, :InductorCompiles, the def-line lens and a
-- quick fix. Expected lines come from the trace itself.
local H = require('helpers')

local case = H.fixtures .. '/traces/compile_health'

--- Graph-break lines (0-based) of model.py, the number of recompiles, the compiled
--- functions (not the frames resumed after a break), from the trace.
local function expected()
  local log = vim.fn.glob(case .. '/trace/dedicated_log_torch_trace*.log', false, true)[1]
  H.ok(log, 'no trace log under ' .. case)
  local breaks, recompiles, functions = {}, 0, {}
  for _, line in ipairs(vim.fn.readfile(log)) do
    local file, lnum = line:match('^\tGraph break in user code at (.*):(%d+)$')
    if file and file:sub(-9) == '/model.py' then
      breaks[tonumber(lnum) - 1] = true
    end
    if line:find('"name": "recompile_reasons"', 1, true) then
      recompiles = recompiles + 1
    end
    local fn = line:match('^[^\t].-{"compilation_metrics": {.-"co_name": "([^"]+)"')
    if fn and not fn:find('^torch_dynamo_resume_in_') then
      functions[fn] = true
    end
  end
  return breaks, recompiles, functions
end

local function health(bufnr)
  return vim.tbl_filter(function(d)
    return d.source == 'torch.compile'
  end, vim.diagnostic.get(bufnr))
end

return {
  { 'vim.diagnostic has the graph breaks and recompiles at the lines of the trace', function()
    local breaks, recompiles = expected()
    local bufnr = H.open(case .. '/model.py')
    local want = vim.tbl_count(breaks) + recompiles
    local diags = H.wait('torch.compile diagnostics on model.py', function()
      local d = health(bufnr)
      return #d >= want and d
    end)
    H.eq(want, #diags, 'number of torch.compile diagnostics')
    local got_breaks, got_recompiles = {}, 0
    for _, d in ipairs(diags) do
      if d.severity == vim.diagnostic.severity.WARN then
        got_breaks[d.lnum] = true
        H.ok(d.message:find('^Graph break: '), 'graph break message: ' .. d.message)
        H.ok(tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)):find('^gb%d+'),
          'graph break code: ' .. vim.inspect(d))
      elseif d.message:find('^recompiled ') then
        H.eq(vim.diagnostic.severity.INFO, d.severity, 'recompile severity')
        got_recompiles = got_recompiles + 1
      end
    end
    H.eq(breaks, got_breaks, 'graph break lines (0-based)')
    H.eq(recompiles, got_recompiles, 'recompile diagnostics')
  end },
  { ':InductorCompiles lists every compiled function and its events', function()
    local _, _, functions = expected()
    H.open(case .. '/model.py')
    vim.fn.setqflist({}, 'r')
    vim.cmd('InductorCompiles')
    local items = H.wait('the compiles in the quickfix list', function()
      local qf = vim.fn.getqflist({ title = 1, items = 1 })
      return qf.title == 'Inductor compiles' and #qf.items > 0 and qf.items
    end)
    local text = {}
    for _, it in ipairs(items) do
      table.insert(text, it.text)
    end
    text = table.concat(text, '\n')
    for fn in pairs(functions) do
      H.contains(text, fn .. ': [', 'quickfix list')
    end
    H.contains(text, 'graph break: Failed to trace builtin operator', 'quickfix list')
    H.contains(text, 'recompile: ', 'quickfix list')
    vim.cmd('cclose')
    -- `!`: this file only, in the location list.
    vim.cmd('InductorCompiles!')
    H.wait('the location list', function()
      return #vim.fn.getloclist(0) > 0
    end)
    vim.cmd('lclose')
  end },
  { 'the lens on a def line lists that function (inductor.showCompiles)', function()
    local bufnr = H.open(case .. '/model.py')
    local def = H.cursor_to('def with_print(')
    local lens = H.wait('the compile lens of with_print', function()
      for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
        if l.range.start.line == def - 1 and l.command and l.command.command == 'inductor.showCompiles' then
          return l
        end
      end
    end)
    H.ok(lens.command.title:find('^%[0/0, 1/0%] 2 compiles · 1 graph break'), 'lens title: ' .. lens.command.title)
    vim.fn.setqflist({}, 'r')
    vim.lsp.codelens.run()
    local items = H.wait('the function in the quickfix list', function()
      local qf = vim.fn.getqflist({ title = 1, items = 1 })
      return qf.title == lens.command.title and #qf.items > 0 and qf.items
    end)
    H.ok(items[1].text:find('^with_print: '), 'first entry: ' .. items[1].text)
    for _, it in ipairs(items) do
      H.ok(not it.text:find('^data_dependent_branch'), 'another function listed: ' .. it.text)
    end
    vim.cmd('cclose')
  end },
  { 'a code action applies the hint of the .item() graph break', function()
    local bufnr, client = H.open(case .. '/model.py')
    local lnum = H.cursor_to('.max().item()')
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      range = { start = { line = lnum - 1, character = 0 }, ['end'] = { line = lnum - 1, character = 0 } },
      context = { diagnostics = {} },
    }
    local actions = H.request(client, 'textDocument/codeAction', params, bufnr)
    local fix
    for _, a in ipairs(actions or {}) do
      if a.title:find('capture_scalar_outputs = True', 1, true) then
        fix = a
      end
    end
    H.ok(fix, 'no capture_scalar_outputs action: ' .. vim.inspect(actions))
    H.eq('quickfix', fix.kind, 'action kind')
    local edits = fix.edit.changes[vim.uri_from_bufnr(bufnr)]
    H.eq('torch._dynamo.config.capture_scalar_outputs = True\n', edits[1].newText, 'edit text')
  end },
}
