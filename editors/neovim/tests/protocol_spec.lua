-- The Lua client against protocol/inductor-protocol.json, the one description of the custom
-- protocol (the server's e2e test and VS Code's protocol.ts are held to the same file): every
-- field lua/inductor_ls/protocol.lua declares the client reads or sends exists in the description
-- with a compatible type, and what may be absent or null there is declared optional here; no Lua
-- file talks to an `inductor/` method except through protocol.request/request_sync/view, which
-- cut each answer down to the declared fields. The same for the `workspace/executeCommand` commands:
-- protocol.lua's `commands` are the description's, on the same side, with compatible arguments;
-- lsp.lua's `commands` (what the client runs) are exactly the description's client commands; no Lua
-- file names a command protocol.lua does not declare, sends one except through protocol.execute, or
-- reads a command's arguments except through protocol.arguments. The drift cases feed the check a
-- mutated description or declaration and a mutated Lua source, to show that it catches them.
local H = require('helpers')
local protocol = require('inductor_ls.protocol')
local config = require('inductor_ls.config')
local lsp = require('inductor_ls.lsp')

local description_path = H.repo .. '/protocol/inductor-protocol.json'

local function load_description()
  local text = table.concat(vim.fn.readfile(description_path), '\n')
  return vim.json.decode(text)
end

local function resolve(d, s)
  while type(s) == 'table' and s['$ref'] do
    s = d['$defs'][s['$ref']:match('^#/%$defs/(.+)$')]
    assert(s, 'dangling $ref in the description')
  end
  return s
end

--- The branches of a schema (anyOf flattened), unresolved.
local function raw_branches(s)
  return s.anyOf or { s }
end

local function types_of(d, s)
  s = resolve(d, s)
  local out = {}
  if s.enum then
    for _, v in ipairs(s.enum) do
      if v == vim.NIL then
        out.null = true
      elseif type(v) == 'number' then
        out[math.floor(v) == v and 'integer' or 'number'] = true
      else
        out[type(v)] = true
      end
    end
  elseif type(s.type) == 'table' then
    for _, t in ipairs(s.type) do
      out[t] = true
    end
  elseif s.type then
    out[s.type] = true
  end
  return out
end

--- Non-null branches, resolved, and whether null is allowed.
local function branches(d, s)
  local out, nullable = {}, false
  for _, b in ipairs(raw_branches(resolve(d, s))) do
    local r = resolve(d, b)
    if r.anyOf then
      local inner, n = branches(d, r)
      vim.list_extend(out, inner)
      nullable = nullable or n
    else
      local t = types_of(d, r)
      if t.null then
        nullable = true
      end
      t.null = nil
      if next(t) then
        table.insert(out, r)
      end
    end
  end
  return out, nullable
end

local compatible = {
  integer = { integer = true },
  number = { integer = true, number = true },
  string = { string = true },
  boolean = { boolean = true },
}

--- Problems of declaration `decl` against schema `s` at `path`. `absent_ok`: the key may be absent
--- there. `sending`: params the client writes (optional there means "not always sent").
local function check(d, s, decl, path, absent_ok, sending, problems)
  local leaf = type(decl) == 'string'
  local optional = (leaf and decl:sub(-1) == '?') or protocol.is_optional(decl)
  local alts, nullable = branches(d, s)
  if sending then
    if optional and not absent_ok then
      table.insert(problems, path .. ': required in the description, declared optional (not always sent)')
    end
  elseif (absent_ok or nullable) and not optional then
    table.insert(problems, path .. ': may be ' .. (absent_ok and 'absent' or 'null')
      .. ' in the description, but the Lua client does not declare it optional (`?`)')
  end
  if leaf then
    local base = optional and decl:sub(1, -2) or decl
    if base == 'Location' then
      local found = false
      for _, b in ipairs(raw_branches(s)) do
        found = found or b['$ref'] == '#/$defs/Location'
      end
      if not found then
        table.insert(problems, path .. ': declared Location, the description says otherwise')
      end
      return
    end
    for _, b in ipairs(alts) do
      for t in pairs(types_of(d, b)) do
        if t ~= 'null' and not (compatible[base] or {})[t] then
          table.insert(problems, string.format('%s: declared %s, the description says %s', path, base, t))
        end
      end
    end
    return
  end
  local elem = protocol.list_of(decl)
  for _, b in ipairs(alts) do
    if elem then
      if not types_of(d, b).array then
        table.insert(problems, path .. ': declared a list, the description says otherwise')
      else
        check(d, b.items, elem, path .. '[]', false, sending, problems)
      end
    elseif not b.properties then
      table.insert(problems, path .. ': declared an object, the description says otherwise')
    else
      local required = {}
      for _, k in ipairs(b.required or {}) do
        required[k] = true
      end
      for k, field in pairs(protocol.fields(decl)) do
        if b.properties[k] == nil then
          table.insert(problems, path .. '.' .. k .. ': not in the description')
        else
          check(d, b.properties[k], field, path .. '.' .. k, not required[k], sending, problems)
        end
      end
      if sending then
        for k in pairs(required) do
          if protocol.fields(decl)[k] == nil then
            table.insert(problems, path .. '.' .. k .. ': required by the description, not declared sent')
          end
        end
      end
    end
  end
end

--- Every problem of `methods`/`notifications` (protocol.lua's shape) against description `d`.
local function compare(d, methods, notifications)
  local problems = {}
  for method, m in pairs(methods) do
    local described = d.requests[method]
    if not described then
      table.insert(problems, method .. ': not a request of the description')
    else
      check(d, described.params, m.sends, method .. ' params', false, true, problems)
      check(d, described.result, m.reads, method .. ' result', false, false, problems)
    end
  end
  for method, m in pairs(notifications) do
    local described = d.notifications[method]
    if not described then
      table.insert(problems, method .. ': not a notification of the description')
    else
      check(d, described.params, m.reads, method .. ' notification', false, false, problems)
    end
  end
  table.sort(problems)
  return problems
end

--- Every problem of `commands` (protocol.lua's shape) against description `d`, and of `handled` (the
--- names of the client commands the client runs: lsp.lua's `commands`).
local function compare_commands(d, commands, handled)
  local problems = {}
  for name, c in pairs(commands) do
    local described = d.commands[name]
    if type(described) ~= 'table' then
      table.insert(problems, name .. ': not a command of the description')
    elseif described.side ~= c.side then
      table.insert(problems, string.format('%s: a %s command in the description, declared %s', name,
        tostring(described.side), tostring(c.side)))
    else
      if #c.arguments > #described.arguments then
        table.insert(problems, string.format('%s: %d arguments declared, %d in the description', name, #c.arguments,
          #described.arguments))
      end
      for i, decl in ipairs(c.arguments) do
        if described.arguments[i] then
          check(d, described.arguments[i], decl, string.format('%s arguments[%d]', name, i), false, c.side == 'server',
            problems)
        end
      end
    end
  end
  for name, described in pairs(d.commands) do
    if type(described) == 'table' and described.side == 'client' then
      if not commands[name] then
        table.insert(problems, name .. ': a client command of the description, not declared in protocol.lua')
      end
      if not handled[name] then
        table.insert(problems, name .. ": a client command of the description, not in lsp.lua's commands")
      end
    end
  end
  for name in pairs(handled) do
    if not (commands[name] and commands[name].side == 'client') then
      table.insert(problems, name .. ": in lsp.lua's commands, not a client command declared in protocol.lua")
    end
  end
  table.sort(problems)
  return problems
end

--- `inductor.` commands named in Lua source `text` that `commands` (protocol.lua's) does not declare,
--- and `workspace/executeCommand` requests or reads of a command's arguments other than through
--- protocol.execute and protocol.arguments.
local function unchecked_commands(name, text, commands)
  local out = {}
  for n, line in ipairs(vim.split(text, '\n', { plain = true })) do
    local code = line:gsub('%-%-.*$', '')
    for command in code:gmatch("['\"](inductor%.%w+)['\"]") do
      if not commands[command] then
        table.insert(out, string.format('%s:%d: %s is not a command declared in inductor_ls.protocol', name, n,
          command))
      end
    end
    if code:find('workspace/executeCommand', 1, true) then
      table.insert(out, string.format('%s:%d: workspace/executeCommand sent without inductor_ls.protocol', name, n))
    end
    if code:gsub('protocol%.arguments%(', ''):find('%.arguments%f[^%w_]') then
      table.insert(out, string.format('%s:%d: command arguments read without inductor_ls.protocol', name, n))
    end
  end
  return out
end

--- `inductor/` methods named in Lua source `text` other than through protocol.request,
--- protocol.request_sync, protocol.view or the handler table (whose handler must call view).
local function unchecked_uses(name, text)
  local out = {}
  for n, line in ipairs(vim.split(text, '\n', { plain = true })) do
    local code = line:gsub('%-%-.*$', '')
    local from = 1
    while true do
      local s, e, method = code:find("['\"](inductor/%w+)['\"]", from)
      if not s then
        break
      end
      local before = code:sub(1, s - 1)
      local ok = before:match('protocol%.request%(client, $') or before:match('protocol%.request_sync%(client, $')
        or before:match('protocol%.view%($') or before:match('handlers%[$')
      if not ok then
        table.insert(out, string.format('%s:%d: %s used without inductor_ls.protocol', name, n, method))
      end
      from = e + 1
    end
  end
  return out
end

local function has(problems, part)
  for _, p in ipairs(problems) do
    if p:find(part, 1, true) then
      return true
    end
  end
  return false
end

local function assert_flags(problems, part)
  H.ok(has(problems, part), 'expected a problem with ' .. vim.inspect(part) .. ', got ' .. vim.inspect(problems))
end

--- The text of every Lua file of the plugin but protocol.lua, by path.
local function plugin_sources()
  local here = H.repo .. '/editors/neovim'
  local out = {}
  for _, dir in ipairs({ 'lua', 'plugin', 'lsp' }) do
    for _, f in ipairs(vim.fn.globpath(here .. '/' .. dir, '**/*.lua', false, true)) do
      if not f:match('/protocol%.lua$') then
        out[f] = table.concat(vim.fn.readfile(f), '\n')
      end
    end
  end
  return out
end

return {
  { 'the fields the client reads and sends are in the description', function()
    local problems = compare(load_description(), protocol.methods, protocol.notifications)
    H.eq({}, problems, 'protocol.lua against ' .. description_path)
  end },
  { 'every Lua file asks for inductor/ methods through inductor_ls.protocol only', function()
    local here = H.repo .. '/editors/neovim'
    local files = {}
    for _, dir in ipairs({ 'lua', 'plugin', 'lsp' }) do
      vim.list_extend(files, vim.fn.globpath(here .. '/' .. dir, '**/*.lua', false, true))
    end
    H.ok(#files > 10, 'found ' .. #files .. ' Lua files under ' .. here)
    local problems, uses = {}, 0
    for _, f in ipairs(files) do
      local text = table.concat(vim.fn.readfile(f), '\n')
      if not f:match('/protocol%.lua$') then
        vim.list_extend(problems, unchecked_uses(f, text))
        for _ in text:gmatch("protocol%.request[_%w]*%(client, 'inductor/") do
          uses = uses + 1
        end
      end
    end
    H.eq({}, problems, 'inductor/ methods used directly')
    -- Every request the client declares is made somewhere (a declaration no code uses checks nothing).
    local methods = 0
    for _ in pairs(protocol.methods) do
      methods = methods + 1
    end
    H.ok(uses >= methods, string.format('%d protocol.request calls for %d declared methods', uses, methods))
    local lsp_text = table.concat(vim.fn.readfile(here .. '/lua/inductor_ls/lsp.lua'), '\n')
    H.contains(lsp_text, "protocol.view('inductor/status', result, true)", 'the status handler views its params')
  end },
  { 'the commands the client runs and sends are the description\'s, with its arguments', function()
    local d = load_description()
    H.eq({}, compare_commands(d, protocol.commands, lsp.commands),
      'protocol.lua and lsp.lua against ' .. description_path)
    -- Both sides are checked (no silent skip), and the 0.11 config runs the same table.
    local sides = {}
    for _, c in pairs(protocol.commands) do
      sides[c.side] = true
    end
    H.eq({ client = true, server = true }, sides, 'sides declared')
    H.eq(lsp.commands, lsp.make_config('').commands, 'the commands of the client config')
  end },
  { 'every Lua file names declared commands only, and runs and sends them through inductor_ls.protocol', function()
    local problems, text = {}, {}
    for f, t in pairs(plugin_sources()) do
      vim.list_extend(problems, unchecked_commands(f, t, protocol.commands))
      table.insert(text, t)
    end
    table.sort(problems)
    H.eq({}, problems, 'commands named, sent or read directly')
    -- Every declaration is used (one no code uses checks nothing): a client command's arguments are
    -- read through protocol.arguments, a server command is named where it is sent.
    text = table.concat(text, '\n')
    for name, c in pairs(protocol.commands) do
      local use = c.side == 'client' and ("protocol.arguments('" .. name .. "', command)") or ("'" .. name .. "'")
      H.contains(text, use, name .. ' used')
    end
  end },
  { 'arguments keeps only the declared positions and fields; execute sends server commands only', function()
    local args = protocol.arguments('inductor.showCompiles', { command = 'inductor.showCompiles', arguments = {
      'file:///m.py', { line = 3, character = 0, extra = 1 }, { ['function'] = 'f', line = 4, compileIds = { '0/0' } },
      'a fourth' } })
    H.eq({ 'file:///m.py', { line = 3, character = 0 }, { ['function'] = 'f', line = 4 } }, args, 'cut arguments')
    H.eq({}, protocol.arguments('inductor.showPrinterEnv', { command = 'inductor.showPrinterEnv' }), 'no arguments')
    H.eq({ 'x' }, protocol.arguments('inductor.showPrinterEnv', { arguments = { 'x' } }), 'a malformed one as sent')
    local ok, err = pcall(protocol.arguments, 'inductor.reindex', { arguments = {} })
    H.ok(not ok, 'a server command read as a client one')
    H.contains(tostring(err), 'inductor.reindex is not a declared client command', 'the error names it')
    ok, err = pcall(protocol.execute, {}, 'inductor.showLocations', {}, function() end)
    H.ok(not ok, 'a client command sent')
    H.contains(tostring(err), 'inductor.showLocations is not a declared server command', 'the error names it')
    ok, err = pcall(protocol.execute, {}, 'inductor.selectRun', { 'latest', 'more' }, function() end)
    H.ok(not ok, 'more arguments than declared')
    H.contains(tostring(err), 'inductor.selectRun sends 2 arguments, 1 declared', 'the error says so')
  end },
  { 'view keeps only the declared fields; params not declared are refused', function()
    local v = protocol.view('inductor/hotLines', {
      basis = 'total',
      basisText = 'totals',
      kernels = { { kernel = 'k' } },
      lines = { { label = '1 µs', percent = 1.5, code = 'x', location = vim.NIL, ns = 1000 } },
    })
    H.eq(nil, v.kernels, 'an undeclared field')
    H.eq(nil, v.lines[1].ns, 'an undeclared field of a list element')
    H.eq(vim.NIL, v.lines[1].location, 'null kept as the server sent it')
    H.eq('1 µs', v.lines[1].label, 'a declared field')
    local s = protocol.view('inductor/status', { indexing = false, python = { interpreter = 'p' } }, true)
    H.eq(false, s.indexing, 'declared')
    H.eq(nil, s.python, 'not declared')
    local ok, err = pcall(protocol.request, {}, 'inductor/hotLines', { limt = 5 }, function() end)
    H.ok(not ok, 'a misspelt param was sent')
    H.contains(tostring(err), 'limt', 'the error names it')
  end },
  { 'initializationOptions the client builds are in the description', function()
    local d = load_description()
    local props = resolve(d, d.initializationOptions).properties
    local out = config.init_options({ init_options = { traceDirs = { '/t' } }, python_path = '/usr/bin/python3',
      library_paths = { '**/x/**' } })
    local problems = {}
    for k, v in pairs(out) do
      local s = props[k]
      if not s then
        table.insert(problems, k .. ': not in the description')
      else
        local want = type(v) == 'table' and 'array' or type(v)
        local found = false
        for _, b in ipairs(branches(d, s)) do
          found = found or types_of(d, b)[want] == true
        end
        if not found then
          table.insert(problems, k .. ': a ' .. want .. ', which the description does not allow')
        end
      end
    end
    H.eq({}, problems, 'init_options')
    H.eq('/usr/bin/python3', out.pythonPath, 'python_path sent')
    H.eq({ '**/x/**' }, out.libraryPaths, 'library_paths sent')
  end },
  { 'drift fails: a field renamed or made optional in the description, renamed in the client', function()
    local d = load_description()
    local counts = d['$defs'].Counts
    counts.properties.graphBreak, counts.properties.graphBreaks = counts.properties.graphBreaks, nil
    assert_flags(compare(d, protocol.methods, protocol.notifications), 'inductor/status result.counts.graphBreaks: not in the description')

    d = load_description()
    d['$defs'].StatusResult.required = vim.tbl_filter(function(k)
      return k ~= 'waitingRequests'
    end, d['$defs'].StatusResult.required)
    assert_flags(compare(d, protocol.methods, protocol.notifications),
      'inductor/status notification.waitingRequests: may be absent in the description')

    d = load_description()
    d['$defs'].HotLine.properties.percent = { type = 'string' }
    assert_flags(compare(d, protocol.methods, protocol.notifications),
      'inductor/hotLines result.lines[].percent: declared number, the description says string')

    d = load_description()
    d.requests['inductor/hotLines'].params = { ['$ref'] = '#/$defs/NoParams' }
    assert_flags(compare(d, protocol.methods, protocol.notifications), 'inductor/hotLines params.limit: not in the description')

    local methods = vim.deepcopy(protocol.methods)
    local reads = methods['inductor/hotLines'].reads
    reads.basisTxt, reads.basisText = reads.basisText, nil
    protocol.list_of(methods['inductor/compiles'].reads.frames).frameID = 'integer?'
    local problems = compare(load_description(), methods, protocol.notifications)
    assert_flags(problems, 'inductor/hotLines result.basisTxt: not in the description')
    assert_flags(problems, 'inductor/compiles result.frames[].frameID: not in the description')

    assert_flags(unchecked_uses('x.lua', "  lsp.request(client, 'inductor/hotLines', {}, cb)"),
      'x.lua:1: inductor/hotLines used without inductor_ls.protocol')
  end },
  { 'drift fails: a command renamed, moved or retyped in the description, renamed in the client', function()
    local function flags(d, part, commands, handled)
      assert_flags(compare_commands(d, commands or protocol.commands, handled or lsp.commands), part)
    end
    local d = load_description()
    local moved = d.commands['inductor.showLocations']
    d.commands['inductor.showLocation'], d.commands['inductor.showLocations'] = moved, nil
    flags(d, 'inductor.showLocations: not a command of the description')
    flags(d, 'inductor.showLocation: a client command of the description, not declared in protocol.lua')
    flags(d, "inductor.showLocation: a client command of the description, not in lsp.lua's commands")

    d = load_description()
    d.commands['inductor.selectRun'].side = 'client'
    flags(d, 'inductor.selectRun: a client command in the description, declared server')

    d = load_description()
    d.commands['inductor.showCompiles'].arguments[3] = { ['$ref'] = '#/$defs/Position' }
    flags(d, 'inductor.showCompiles arguments[3].function: not in the description')
    d = load_description()
    d.commands['inductor.showLocations'].arguments[3] = { type = 'string' }
    flags(d, 'inductor.showLocations arguments[3]: declared a list, the description says otherwise')
    d = load_description()
    d.commands['inductor.selectBaseline'].arguments = {}
    flags(d, 'inductor.selectBaseline: 1 arguments declared, 0 in the description')

    -- The argument objects, field by field: a field the client reads made optional, or renamed.
    d = load_description()
    d['$defs'].CompilesSelection.required = { 'function', 'compileIds' }
    flags(d, 'inductor.showCompiles arguments[3].line: may be absent in the description')
    d = load_description()
    local env = d['$defs'].PrinterEnv.properties
    env.shellLine, env.shell = env.shell, nil
    flags(d, 'inductor.showPrinterEnv arguments[1].shell: not in the description')

    local commands = vim.deepcopy(protocol.commands)
    commands['inductor.showPrinterEnv'].arguments[1].titel = 'string'
    commands['inductor.reIndex'], commands['inductor.reindex'] = commands['inductor.reindex'], nil
    flags(load_description(), 'inductor.showPrinterEnv arguments[1].titel: not in the description', commands)
    flags(load_description(), 'inductor.reIndex: not a command of the description', commands)

    local handled = vim.deepcopy(lsp.commands)
    handled['inductor.showLaunchSite'], handled['inductor.showLaunchSites'] = handled['inductor.showLaunchSites'], nil
    d = load_description()
    flags(d, "inductor.showLaunchSite: in lsp.lua's commands, not a client command declared in protocol.lua", nil, handled)
    flags(d, "inductor.showLaunchSites: a client command of the description, not in lsp.lua's commands", nil, handled)

    assert_flags(unchecked_commands('x.lua', "  local command = 'inductor.reIndex'", protocol.commands),
      'x.lua:1: inductor.reIndex is not a command declared in inductor_ls.protocol')
    local send = "  lsp.request(client, 'workspace/executeCommand', p, cb)"
    assert_flags(unchecked_commands('x.lua', send, protocol.commands),
      'x.lua:1: workspace/executeCommand sent without inductor_ls.protocol')
    assert_flags(unchecked_commands('x.lua', '  local uri = command.arguments[1]', protocol.commands),
      'x.lua:1: command arguments read without inductor_ls.protocol')
  end },
}
