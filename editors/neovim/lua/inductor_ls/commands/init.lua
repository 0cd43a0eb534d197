---@brief
--- `:Inductor {subcommand}`: every user command, grouped (nvim-best-practices). Each
--- subcommand lives in its own file in this directory; `:InductorKernels`, `:InductorOrigin` and
--- `:InductorHotLines` are shortcuts for the ones used most.

local M = {}

---@type table<string, string> subcommand → module
M.subcommands = {
  artifacts = 'inductor_ls.commands.artifacts',
  compare = 'inductor_ls.commands.compare',
  compiles = 'inductor_ls.commands.compiles',
  hotlines = 'inductor_ls.commands.hot_lines',
  kernels = 'inductor_ls.commands.kernels',
  origin = 'inductor_ls.commands.origin',
  ranks = 'inductor_ls.commands.ranks',
  reindex = 'inductor_ls.commands.reindex',
  status = 'inductor_ls.commands.status',
}

---@param name string
function M.run(name)
  local module = M.subcommands[name]
  if not module then
    vim.notify('inductor-ls: unknown subcommand ' .. vim.inspect(name) .. '; expected one of: '
      .. table.concat(M.complete(''), ', '), vim.log.levels.ERROR)
    return
  end
  require(module)()
end

---@param arg_lead string
---@return string[]
function M.complete(arg_lead)
  local names = {}
  for name in pairs(M.subcommands) do
    if name:sub(1, #arg_lead) == arg_lead then
      table.insert(names, name)
    end
  end
  table.sort(names)
  return names
end

return M
