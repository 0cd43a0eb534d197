---@brief
--- `:Inductor {subcommand} [argument]`: every user command, grouped (nvim-best-practices). Each
--- subcommand lives in its own file in this directory; `:InductorKernels`, `:InductorOrigin`,
--- `:InductorHotLines`, `:InductorCompare`, `:InductorRanks` and `:InductorLowered` are shortcuts.

local message = require('inductor_ls.message')

local M = {}

---@type table<string, string> subcommand → module
M.subcommands = {
  artifacts = 'inductor_ls.commands.artifacts',
  baseline = 'inductor_ls.commands.runs',
  compare = 'inductor_ls.commands.compare',
  compiles = 'inductor_ls.commands.compiles',
  hotlines = 'inductor_ls.commands.hot_lines',
  kernels = 'inductor_ls.commands.kernels',
  lowered = 'inductor_ls.commands.lowered',
  origin = 'inductor_ls.commands.origin',
  ranks = 'inductor_ls.commands.ranks',
  reindex = 'inductor_ls.commands.reindex',
  runs = 'inductor_ls.commands.runs',
  status = 'inductor_ls.commands.status',
}

--- Subcommands that take an argument, with how to run them and complete it.
local with_argument = {
  lowered = {
    run = function(arg)
      require('inductor_ls.commands.lowered')(arg)
    end,
    complete = function()
      return { 'ttir', 'ttgir', 'llir', 'ptx' }
    end,
  },
  runs = {
    run = function(arg)
      require('inductor_ls.commands.runs').select(false, arg)
    end,
    complete = function()
      return require('inductor_ls.commands.runs').complete(false)
    end,
  },
  baseline = {
    run = function(arg)
      require('inductor_ls.commands.runs').select(true, arg)
    end,
    complete = function()
      return require('inductor_ls.commands.runs').complete(true)
    end,
  },
}

--- Run `:Inductor {args}`: the subcommand is the first word, its argument the rest (a run id holds a
--- space: `:Inductor runs 2026-11-27 02:31:04`).
---@param args string
function M.run(args)
  local name, rest = (args or ''):match('^%s*(%S*)%s*(.-)%s*$')
  local module = M.subcommands[name]
  if not module then
    -- The list itself is too long for the command line on a narrow screen: <Tab> shows it.
    message.notify('inductor-ls: unknown subcommand ' .. vim.inspect(name) .. ' (:Inductor <Tab> lists them)',
      vim.log.levels.ERROR)
    return
  end
  if with_argument[name] then
    with_argument[name].run(rest ~= '' and rest or nil)
    return
  end
  if rest ~= '' then
    message.notify('inductor-ls: ' .. name .. ' takes no argument', vim.log.levels.ERROR)
    return
  end
  require(module)()
end

--- Completion of `:Inductor`: the subcommands, then the argument of those that take one.
---@param arg_lead string
---@param cmd_line? string
---@return string[]
function M.complete(arg_lead, cmd_line)
  local name = (cmd_line or ''):match('^%s*%S+%s+(%S+)%s')
  local candidates = {}
  if name then
    if with_argument[name] then
      -- What is typed after the subcommand, spaces included (run ids hold one).
      local typed = cmd_line:match('^%s*%S+%s+%S+%s+(.*)$') or arg_lead
      local start = #typed - #arg_lead
      for _, c in ipairs(with_argument[name].complete()) do
        if c:sub(1, #typed) == typed then
          table.insert(candidates, c:sub(start + 1))
        end
      end
    end
    return candidates
  end
  for n in pairs(M.subcommands) do
    if n:sub(1, #arg_lead) == arg_lead then
      table.insert(candidates, n)
    end
  end
  table.sort(candidates)
  return candidates
end

return M
