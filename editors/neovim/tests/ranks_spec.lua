-- Ranks that disagree (issue 29) in Neovim: ranks_diverge's four ranks, one recompiling, one breaking
-- the graph, one generating other code. The diagnostics name the ranks; :InductorRanks lists each
-- divergence once on its line.
local H = require('helpers')

local root = H.fixtures .. '/traces/ranks_diverge'

return {
  { 'a recompile on one rank only is a diagnostic that names it', function()
    local bufnr = H.open(root .. '/model.py')
    local d = H.wait('the rank-only recompile', function()
      for _, x in ipairs(vim.diagnostic.get(bufnr)) do
        if x.message:find('recompiled on rank 2 only (1 of 4)', 1, true) then
          return x
        end
      end
    end)
    H.eq(24, d.lnum, 'diagnostic line (0-based)')
  end },
  { ':InductorRanks lists the three divergences on their lines', function()
    H.open(root .. '/model.py')
    local qf = H.quickfix_of('InductorRanks', 'Ranks that disagree')
    H.eq('Ranks that disagree (4 ranks)', qf.title, 'quickfix title')
    local got = {}
    for _, item in ipairs(qf.items) do
      table.insert(got, item.lnum .. ' ' .. item.text:match('^%[[^]]+%] ([^:]+):'))
    end
    table.sort(got)
    H.eq({ '25 different code', '25 recompile', '26 graph break' }, got, 'divergences (line kind)')
    vim.cmd('cclose')
  end },
}
