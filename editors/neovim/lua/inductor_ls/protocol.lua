---@brief
--- The part of inductor-ls's custom protocol this client uses: per `inductor/*` method, the
--- params it sends and the fields of the answer it reads; per `workspace/executeCommand`
--- command, the arguments it reads (a client command, run by lsp.lua's `commands`) or sends (a
--- server command); and the only ways it talks to the server about them: `request`/`request_sync`
--- (params checked against `sends`, the answer cut down to `reads`), `view` (the `inductor/status`
--- notification), `arguments` (a client command's arguments, cut down to those declared) and
--- `execute` (a server command). Code that reads a field not declared here finds nil, so the
--- declarations are complete wherever the tests exercise the code; `tests/protocol_spec.lua`
--- checks each of them against `protocol/inductor-protocol.json`, the one description of the
--- protocol (the server's e2e test and VS Code's protocol.ts are held to the same file), and that
--- no Lua file asks for an `inductor/` method or names an `inductor.` command any other way.
---
--- A declaration: a type name (`'string'`, `'integer'`, `'number'`, `'boolean'`, or
--- `'Location'`, LSP's type, kept whole), with `?` when the code copes with the field being
--- absent or null (`'string?'`); a table of fields; `M.list(decl)`; `M.optional(table)`.

local M = {}

-- Marker keys (strings, so that vim.deepcopy keeps them); no field of the protocol starts with `__`.
local LIST, OPTIONAL = '__list', '__optional'

--- A list whose elements are `decl`.
function M.list(decl)
  return { [LIST] = decl }
end

--- An object (a table of fields) that may be absent or null.
function M.optional(fields)
  fields[OPTIONAL] = true
  return fields
end

--- The element declaration of a list declaration, or nil.
function M.list_of(decl)
  return type(decl) == 'table' and decl[LIST] or nil
end

--- Whether an object declaration is marked optional.
function M.is_optional(decl)
  return type(decl) == 'table' and decl[OPTIONAL] == true
end

--- The field names of an object declaration (not its markers).
function M.fields(decl)
  local out = {}
  for k, v in pairs(decl) do
    if type(k) == 'string' and k:sub(1, 2) ~= '__' then
      out[k] = v
    end
  end
  return out
end

local status = {
  indexing = 'boolean',
  ready = 'boolean',
  traces = 'integer',
  compiles = 'integer',
  kernels = 'integer',
  launches = 'integer',
  errors = 'integer',
  waitingRequests = 'integer',
  launchesWithMissingSource = 'integer?',
  run = 'string?',
  otherRuns = 'integer?',
  baseline = 'string?',
  problemLines = 'integer?',
  rankDivergences = 'integer?',
  progress = M.optional({ percentage = 'integer', message = 'string' }),
  notices = M.list({ kind = 'string', message = 'string' }),
  counts = M.optional({
    traces = 'integer',
    compiles = 'integer',
    graphs = 'integer',
    kernels = 'integer',
    launches = 'integer',
    problems = 'integer',
    graphBreaks = 'integer',
    recompiles = 'integer',
    failures = 'integer',
    ranks = 'integer',
  }),
}

local artifact = { uri = 'string', title = 'string', label = 'string', kind = 'string', compile = 'string?' }

--- Per method: `sends` (the params keys, `?` when not always sent) and `reads` (the result's
--- fields, or a notification's params).
M.methods = {
  ['inductor/status'] = { sends = {}, reads = status },
  ['inductor/artifactContent'] = {
    sends = { uri = 'string' },
    reads = { text = 'string', languageId = 'string' },
  },
  ['inductor/listArtifacts'] = { sends = {}, reads = M.list(artifact) },
  ['inductor/launchSites'] = {
    sends = { textDocument = { uri = 'string' }, position = { line = 'integer', character = 'integer' } },
    reads = M.list('Location'),
  },
  ['inductor/lowered'] = {
    sends = { textDocument = { uri = 'string' }, position = { line = 'integer', character = 'integer' } },
    reads = M.list({ stage = 'string', locations = M.list('Location'), more = 'integer?', note = 'string?' }),
  },
  ['inductor/compiles'] = {
    sends = { uri = 'string?' },
    reads = {
      frames = M.list({
        ['function'] = 'string',
        name = 'string',
        location = 'Location?',
        status = 'string',
        summary = 'string',
        resumes = M.optional({ line = 'integer' }),
        resumeOf = 'integer?',
        compiles = M.list({
          label = 'string',
          events = M.list({ kind = 'string', severity = 'integer', message = 'string', location = 'Location?' }),
        }),
      }),
      functions = M.optional(M.list({
        ['function'] = 'string',
        location = 'Location?',
        status = 'string',
        summary = 'string',
        frames = M.list('integer'),
      })),
    },
  },
  ['inductor/hotLines'] = {
    sends = { limit = 'integer?', uri = 'string?' },
    reads = {
      basis = 'string',
      basisText = 'string',
      caveats = M.list('string'),
      lines = M.list({ location = 'Location?', label = 'string', percent = 'number', code = 'string' }),
    },
  },
  ['inductor/compare'] = {
    sends = { baseline = 'string?', current = 'string?' },
    reads = {
      baseline = M.optional({ id = 'string' }),
      reason = 'string',
      events = M.list({ change = 'string', kind = 'string', file = 'string', line = 'integer', message = 'string' }),
      lines = M.list({
        change = 'string',
        file = 'string',
        line = 'integer',
        text = 'string',
        kernelCountBefore = 'integer',
        kernelCountAfter = 'integer',
        compilesBefore = 'integer',
        compilesAfter = 'integer',
        gpuTimeBeforeUs = 'number?',
        gpuTimeAfterUs = 'number?',
      }),
    },
  },
  ['inductor/runs'] = {
    sends = {},
    reads = {
      runs = M.list({
        id = 'string',
        startTime = 'string?',
        ranks = M.list('integer'),
        logs = M.list('string'),
        current = 'boolean',
        baseline = 'boolean',
      }),
    },
  },
  ['inductor/ranks'] = {
    sends = { run = 'string?' },
    reads = {
      count = 'integer',
      divergences = M.list({
        kind = 'string',
        ranks = M.list('integer'),
        of = 'integer',
        compileId = 'string',
        file = 'string?',
        line = 'integer?',
        message = 'string',
      }),
    },
  },
}

--- Notifications from the server this client handles, with the fields it reads.
M.notifications = {
  ['inductor/status'] = { reads = status },
}

local position = { line = 'integer', character = 'integer' }

--- The commands of `workspace/executeCommand` this client uses: `side` as the description says
--- ('client': the server's lenses and code actions carry it, lsp.lua's `commands` runs it and reads
--- `arguments`; 'server': the client sends it with `arguments`), and `arguments`, one declaration
--- per position.
M.commands = {
  ['inductor.reindex'] = { side = 'server', arguments = {} },
  ['inductor.selectRun'] = { side = 'server', arguments = { 'string' } },
  ['inductor.selectBaseline'] = { side = 'server', arguments = { 'string' } },
  ['inductor.showLocations'] = { side = 'client', arguments = { 'string', position, M.list('Location') } },
  ['inductor.showLaunchSites'] = { side = 'client', arguments = { 'string', position } },
  ['inductor.showCompiles'] = {
    side = 'client',
    arguments = { 'string', position, { ['function'] = 'string', line = 'integer' } },
  },
  ['inductor.showPrinterEnv'] = {
    side = 'client',
    arguments = { { title = 'string', shell = 'string', explanation = 'string' } },
  },
}

local function cut(decl, value)
  if type(value) ~= 'table' or type(decl) ~= 'table' then
    return value -- A leaf, LSP's Location whole, or vim.NIL / a wrong type as the server sent it.
  end
  local elem = M.list_of(decl)
  if elem then
    local out = {}
    for i, v in ipairs(value) do
      out[i] = cut(elem, v)
    end
    return out
  end
  local out = {}
  for k, d in pairs(M.fields(decl)) do
    out[k] = cut(d, value[k])
  end
  return out
end

--- `value` (an answer of `method`, or the params of the notification `method` with
--- `notification`) with only the fields this client declares it reads.
---@param method string
---@param value any
---@param notification? boolean
---@return any
function M.view(method, value, notification)
  local entry = (notification and M.notifications or M.methods)[method]
  assert(entry, 'inductor_ls.protocol: ' .. method .. ' is not declared')
  return cut(entry.reads, value)
end

--- The arguments of client command `name` as `command` (the LSP Command the server sent) holds them:
--- a list with each declared position cut down to its declaration (a malformed one as sent).
---@param name string
---@param command table `{title, command, arguments}`
---@return table
function M.arguments(name, command)
  local entry = M.commands[name]
  assert(entry and entry.side == 'client', 'inductor_ls.protocol: ' .. name .. ' is not a declared client command')
  local args = type(command) == 'table' and type(command.arguments) == 'table' and command.arguments or {}
  local out = {}
  for i, decl in ipairs(entry.arguments) do
    out[i] = cut(decl, args[i])
  end
  return out
end

--- `workspace/executeCommand` of server command `name` with `arguments` (no more than declared).
---@param client table
---@param name string
---@param arguments table
---@param handler fun(err: table?, result: any, ctx: table?)
function M.execute(client, name, arguments, handler)
  local entry = M.commands[name]
  assert(entry and entry.side == 'server', 'inductor_ls.protocol: ' .. name .. ' is not a declared server command')
  assert(#arguments <= #entry.arguments,
    string.format('inductor_ls.protocol: %s sends %d arguments, %d declared', name, #arguments, #entry.arguments))
  return require('inductor_ls.lsp').request(client, 'workspace/executeCommand',
    { command = name, arguments = arguments }, handler)
end

--- Raises when `params` holds a key this client does not declare it sends for `method`.
local function check_params(method, params)
  local entry = M.methods[method]
  assert(entry, 'inductor_ls.protocol: ' .. method .. ' is not declared')
  for k in pairs(params or {}) do
    assert(entry.sends[k], string.format('inductor_ls.protocol: %s sends `%s`, which is not declared', method, k))
  end
end

--- `lsp.request` for an `inductor/` method: the handler gets `view(method, result)`.
---@param client table
---@param method string
---@param params table
---@param handler fun(err: table?, result: any, ctx: table?)
---@param bufnr? integer
function M.request(client, method, params, handler, bufnr)
  check_params(method, params)
  return require('inductor_ls.lsp').request(client, method, params, function(err, result, ...)
    handler(err, err and result or M.view(method, result), ...)
  end, bufnr)
end

--- `lsp.request_sync` for an `inductor/` method: the response's result is `view(method, result)`.
---@return table? response `{err, result}`
---@return string? err
function M.request_sync(client, method, params, timeout_ms, bufnr)
  check_params(method, params)
  local response, err = require('inductor_ls.lsp').request_sync(client, method, params, timeout_ms, bufnr)
  if type(response) == 'table' and response.result ~= nil then
    response.result = M.view(method, response.result)
  end
  return response, err
end

return M
