---@brief
--- `:InductorCompiles` (`:Inductor compiles`): every frame torch.compile compiled, with its
--- compiles and what happened in them (graph breaks, recompiles, failures), from the server's
--- `inductor/compiles`, in the quickfix list: one entry per function at its def line (the
--- frames grouped as the server groups them: resumed frames under the function they resume),
--- one per event at its user line (`E` failures, `W` graph breaks, `I` recompiles). `:InductorCompiles!`
--- lists only the frames of the current file, in the window's location list.
---
--- Also the client-side command `inductor.showCompiles` of the server's code lens on a
--- compiled function's def line: the same list for that one function.
--- The diagnostics of the same events reach `vim.diagnostic` through the LSP client itself.

local config = require('inductor_ls.config')
local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local message = require('inductor_ls.message')

local M = {}

local types = { 'E', 'W', 'I', 'N' }

--- One quickfix item at an LSP location (or without a position when there is none).
---@param location table? LSP Location
---@param encoding string
---@param text string
---@param type string
---@return table
local function item(location, encoding, text, type)
  if location and location ~= vim.NIL then
    local converted = vim.lsp.util.locations_to_items({ location }, encoding)[1]
    if converted then
      converted.text = text
      converted.type = type
      return converted
    end
  end
  return { text = text, type = type, valid = 0 }
end

--- The functions of an `inductor/compiles` result, as the server groups the frames: by file and
--- function, a resumed frame (`torch_dynamo_resume_in_f_at_N`) under the function it resumes, the
--- ranks' frames of a function together. Older servers send no `functions`: one per frame.
---@param result table
---@return table[] functions {function, location, status, summary, frames = {frame tables}}
local function functions(result)
  local frames = result.frames or {}
  local out = {}
  if type(result.functions) == 'table' then
    for _, fn in ipairs(result.functions) do
      local members = {}
      for _, i in ipairs(fn.frames or {}) do
        table.insert(members, frames[i + 1])
      end
      table.insert(out, { ['function'] = fn['function'], location = fn.location, status = fn.status,
        summary = fn.summary, frames = members })
    end
  else
    for _, frame in ipairs(frames) do
      table.insert(out, { ['function'] = frame.name or frame['function'], location = frame.location,
        status = frame.status, summary = frame.summary, frames = { frame } })
    end
  end
  return out
end

--- Quickfix items for the functions of an `inductor/compiles` result: one per function at its def line,
--- then one per event of its compiles (those of the frames resumed after its graph breaks too).
---@param result table
---@param encoding string
---@param keep? fun(frame: table): boolean
---@return table[]
function M.items(result, encoding, keep)
  local items = {}
  for _, fn in ipairs(functions(result)) do
    local kept = {}
    for _, frame in ipairs(fn.frames) do
      if not keep or keep(frame) then
        table.insert(kept, frame)
      end
    end
    if #kept > 0 then
      local status = fn.status == 'failed' and 'E' or (fn.status == 'ok' and 'I' or 'W')
      local name = (fn['function'] and fn['function'] ~= '') and fn['function'] or '?'
      table.insert(items, item(fn.location, encoding, string.format('%s: %s', name, fn.summary or ''), status))
      for _, frame in ipairs(kept) do
        local resumed = (type(frame.resumes) == 'table') and string.format(' (resumed at line %d)', frame.resumes.line)
          or ''
        for _, compile in ipairs(frame.compiles or {}) do
          for _, event in ipairs(compile.events or {}) do
            table.insert(items, item(event.location, encoding,
              string.format('%s%s %s: %s', compile.label, resumed, event.kind, event.message),
              types[event.severity] or 'I'))
          end
        end
      end
    end
  end
  return items
end

--- Fill the quickfix (or, with `loclist`, the location) list.
---@param client table
---@param opts { uri?: string, loclist?: boolean, title?: string, keep?: fun(frame: table): boolean, resolve?: fun(frames: table[]) }
function M.show(client, opts)
  local params = opts.uri and { uri = opts.uri } or vim.empty_dict()
  protocol.request(client, 'inductor/compiles', params, function(err, result)
    if err or type(result) ~= 'table' then
      message.notify('inductor-ls: inductor/compiles: ' .. (err and (err.message or vim.inspect(err)) or 'no answer'),
        vim.log.levels.ERROR)
      return
    end
    if opts.resolve then
      opts.resolve(result.frames or {})
    end
    local items = M.items(result, client.offset_encoding or 'utf-16', opts.keep)
    if #items == 0 then
      message.notify('inductor-ls: no compiles in the traces', vim.log.levels.INFO)
      return
    end
    local title = opts.title or 'Inductor compiles'
    if opts.loclist then
      vim.fn.setloclist(0, {}, ' ', { title = title, items = items })
      if config.get().open_quickfix then
        vim.cmd('lopen')
      end
    else
      vim.fn.setqflist({}, ' ', { title = title, items = items })
      if config.get().open_quickfix then
        vim.cmd('botright copen')
      end
    end
  end)
end

--- `:InductorCompiles[!]`.
---@param bang? boolean
function M.run(bang)
  local client = lsp.require_client() or lsp.clients()[1]
  if not client then
    return
  end
  if bang then
    local name = vim.api.nvim_buf_get_name(0)
    M.show(client, { uri = vim.uri_from_fname(name), loclist = true,
      title = 'Inductor compiles: ' .. vim.fn.fnamemodify(name, ':t') })
  else
    M.show(client, {})
  end
end

--- The lens command `inductor.showCompiles`: arguments `[uri, position, {function, line, compileIds}]`.
---@param command table
---@param ctx table
function M.lens(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return
  end
  local args = protocol.arguments('inductor.showCompiles', command)
  local uri, target = args[1], args[3] or {}
  -- The function's own frames, then the frames resumed after its graph breaks (`resumeOf`, an index
  -- into the answer's frames, 0-based).
  local chosen = {}
  M.show(client, {
    uri = uri,
    title = command.title or 'Inductor compiles',
    resolve = function(frames)
      local by_index = {}
      for i, frame in ipairs(frames) do
        local loc = frame.location
        local own = frame['function'] == target['function'] and loc and loc ~= vim.NIL and loc.uri == uri
          and loc.range.start.line == (target.line or 0) - 1
        local resumed = type(frame.resumeOf) == 'number' and by_index[frame.resumeOf] == true
        by_index[i - 1] = own or resumed or nil
        chosen[frame] = by_index[i - 1]
      end
    end,
    keep = function(frame)
      return chosen[frame] == true
    end,
  })
end

return setmetatable(M, {
  __call = function(_, bang)
    M.run(bang)
  end,
})
