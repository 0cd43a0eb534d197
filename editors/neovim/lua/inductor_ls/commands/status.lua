---@brief
--- `:Inductor status`: the server's index (`inductor/status`): counts, the run served and how many
--- other runs the traces hold (and the baseline it is compared with), the build's progress,
--- requests waiting for it, and what the server has to say (no trace found, sources not on this
--- machine, corrupted records). Shown in a floating window (|inductor_ls.message|), which never
--- asks "Press ENTER".

local lsp = require('inductor_ls.lsp')
local message = require('inductor_ls.message')
local protocol = require('inductor_ls.protocol')

local M = {}

local function plural(n, one, many)
  n = n or 0
  return string.format('%d %s', n, n == 1 and one or (many or one .. 's'))
end

--- The status as lines, for people.
---@param s table `inductor/status`
---@param root string?
---@return string[]
function M.describe(s, root)
  local lines = {}
  local head = 'inductor-ls [' .. (root or 'session, no folder') .. ']: '
  if s.indexing then
    local p = s.progress or {}
    head = head .. string.format('indexing %d%% (%s)', p.percentage or 0, p.message or '…')
    if (s.waitingRequests or 0) > 0 then
      head = head .. ', ' .. plural(s.waitingRequests, 'request') .. ' waiting'
    end
  end
  if s.ready ~= false then
    -- The server's one definition of the counts (`counts`: index/model/Counts.h), as the VS Code status bar,
    -- explain and the compiles listing give them; older servers send only the top level.
    local c = type(s.counts) == 'table' and s.counts or nil
    local parts = {
      plural(c and c.traces or s.traces, 'trace'),
      plural(c and c.compiles or s.compiles, 'compile'),
    }
    if c then
      table.insert(parts, plural(c.graphs, 'graph'))
    end
    table.insert(parts, plural(c and c.kernels or s.kernels, 'kernel'))
    table.insert(parts, plural(c and c.launches or s.launches, 'launch', 'launches'))
    if c then
      local problems = plural(c.problems, 'problem')
      if (c.problems or 0) > 0 then
        problems = problems .. string.format(' (%s, %s, %s)', plural(c.graphBreaks, 'graph break'),
          plural(c.recompiles, 'recompile'), plural(c.failures, 'failure'))
        -- The diagnostics list them merged per line and kind.
        if s.problemLines then
          problems = problems .. ' on ' .. plural(s.problemLines, 'line')
        end
      end
      table.insert(parts, problems)
      -- Several ranks: how many, and where they disagree (`:Inductor ranks`).
      if (c.ranks or 0) > 1 then
        local divergences = s.rankDivergences or 0
        table.insert(parts, plural(c.ranks, 'rank') .. (divergences > 0
          and (', ' .. plural(divergences, 'divergence') .. ' (:Inductor ranks)') or ', all agree'))
      end
    end
    if (s.errors or 0) > 0 then
      table.insert(parts, plural(s.errors, 'indexing error'))
    end
    head = head .. (s.indexing and '; ' or '') .. table.concat(parts, ', ')
  end
  table.insert(lines, head)
  -- The run every answer comes from, and the others the traces hold (`:Inductor runs` picks one).
  if type(s.run) == 'string' then
    local others = s.otherRuns or 0
    local line = '  run ' .. s.run .. ', ' .. (others == 0 and 'no other run' or plural(others, 'other run'))
    if others > 0 then
      line = line .. '; ' .. (type(s.baseline) == 'string' and ('baseline ' .. s.baseline) or 'no baseline')
    end
    table.insert(lines, line)
  end
  for _, n in ipairs(s.notices or {}) do
    table.insert(lines, '  ' .. (n.message or ''):gsub('^inductor%-ls: ', ''))
  end
  return lines
end

function M.run()
  local client = lsp.any_client()
  if not client then
    return
  end
  protocol.request(client, 'inductor/status', vim.empty_dict(), function(err, s)
    if err or type(s) ~= 'table' then
      message.notify('inductor-ls: status: ' .. (err and err.message or 'no answer'), vim.log.levels.ERROR)
      return
    end
    message.show(M.describe(s, client.config.root_dir), 'inductor_ls_status')
  end)
end

return setmetatable(M, {
  __call = function()
    M.run()
  end,
})
