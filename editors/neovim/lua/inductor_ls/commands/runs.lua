---@brief
--- `:Inductor runs [run]` and `:Inductor baseline [run]`: the run every answer comes from (navigation,
--- lenses, diagnostics), and the run it is compared with (lenses' changes, `:Inductor compare`), when
--- the traces hold several (a script rerun into one `TORCH_TRACE` folder). Without an argument, a
--- |vim.ui.select()| over `inductor/runs`, newest first, with the settings' words first: `latest`
--- (follows new runs as they are written) for the run, `previous` (the run before the current one)
--- and `none` for the baseline; the run chosen now is marked. The choice goes to the server's
--- `inductor.selectRun` / `inductor.selectBaseline` (server/workspace/Runs.cpp): it reindexes the chosen run or
--- builds the chosen baseline and says so with `inductor/status` (`:Inductor status`, the statusline).
--- As VS Code's *Inductor: Select Run* / *Select Baseline Run* (editors/vscode/src/runs.ts).

local lsp = require('inductor_ls.lsp')
local message = require('inductor_ls.message')
local protocol = require('inductor_ls.protocol')

local M = {}

--- "ranks 0–3" for a contiguous set, else the list; nothing for a single rank 0 (not distributed).
---@param ranks integer[]
---@return string
function M.describe_ranks(ranks)
  if #ranks == 0 then
    return ''
  end
  if #ranks == 1 then
    return ranks[1] == 0 and '' or ('rank ' .. ranks[1])
  end
  local sorted = vim.deepcopy(ranks)
  table.sort(sorted)
  for i = 2, #sorted do
    if sorted[i] ~= sorted[i - 1] + 1 then
      return 'ranks ' .. table.concat(sorted, ', ')
    end
  end
  return string.format('ranks %d–%d', sorted[1], sorted[#sorted])
end

--- The entries of the pick, in order: the settings' words, then the runs newest first.
--- Each `{id, label}`; `chosen` marks the one in effect now.
---@param runs table[] `inductor/runs`'s runs, oldest first
---@param baseline boolean
---@return table[]
function M.entries(runs, baseline)
  local entries = baseline
      and {
        { id = 'previous', label = 'previous  the run before the current one (default)' },
        { id = 'none', label = 'none      compare with nothing' },
      }
    or { { id = 'latest', label = 'latest    follows new runs as they are written (default)' } }
  for i = #runs, 1, -1 do
    local run = runs[i]
    local marks = {}
    if i == #runs then
      table.insert(marks, 'latest')
    end
    if run.current then
      table.insert(marks, 'current')
    end
    if run.baseline then
      table.insert(marks, 'baseline')
    end
    local parts = { table.concat(marks, ' · ') }
    table.insert(parts, M.describe_ranks(run.ranks or {}))
    local n = #(run.logs or {})
    table.insert(parts, string.format('%d log%s', n, n == 1 and '' or 's'))
    parts = vim.tbl_filter(function(p)
      return p ~= ''
    end, parts)
    local chosen = (baseline and run.baseline) or (not baseline and run.current)
    table.insert(entries, {
      id = run.id,
      label = (chosen and '* ' or '  ') .. run.id .. '  ' .. table.concat(parts, ' · '),
      chosen = chosen,
    })
  end
  return entries
end

--- Ask the server to serve (or compare with) run `id`, and say so on one line.
---@param client table
---@param baseline boolean
---@param id string
local function choose(client, baseline, id)
  local command = baseline and 'inductor.selectBaseline' or 'inductor.selectRun'
  protocol.execute(client, command, { id }, function(err)
    if err then
      message.notify('inductor-ls: ' .. command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    message.notify(baseline and ('inductor-ls: comparing with run ' .. id) or ('inductor-ls: serving run ' .. id
      .. ' (reindexing)'))
  end)
end

--- `:Inductor runs [id]` (`baseline` false) or `:Inductor baseline [id]` (true): with `id`, choose it;
--- without, pick among the runs.
---@param baseline boolean
---@param id? string
function M.select(baseline, id)
  local client = lsp.require_client()
  if not client then
    return
  end
  if id then
    choose(client, baseline, id)
    return
  end
  protocol.request(client, 'inductor/runs', {}, function(err, result)
    if err or type(result) ~= 'table' then
      message.notify('inductor-ls: runs: ' .. (err and err.message or 'no answer'), vim.log.levels.ERROR)
      return
    end
    local runs = result.runs or {}
    if #runs == 0 then
      message.notify('inductor-ls: the traces hold no run yet')
      return
    end
    vim.ui.select(M.entries(runs, baseline), {
      prompt = baseline and 'Compare with which run? ' or 'Serve which run? ',
      format_item = function(entry)
        return entry.label
      end,
    }, function(entry)
      if entry then
        choose(client, baseline, entry.id)
      end
    end)
  end)
end

--- Completion of the argument: the settings' words and the run ids (asked of the current buffer's
--- server, briefly; only the words when it does not answer in time).
---@param baseline boolean
---@return string[]
function M.complete(baseline)
  local words = baseline and { 'previous', 'none' } or { 'latest', 'previous' }
  local client = lsp.client_for_buffer(0)
  if client then
    local response = protocol.request_sync(client, 'inductor/runs', {}, 500)
    local runs = response and type(response.result) == 'table' and response.result.runs or {}
    for i = #runs, 1, -1 do
      table.insert(words, runs[i].id)
    end
  end
  return words
end

return setmetatable(M, {
  __call = function()
    M.select(false)
  end,
})
