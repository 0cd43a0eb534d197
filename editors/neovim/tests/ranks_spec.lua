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
    -- :Inductor ranks is the same command.
    local again = H.quickfix_of('Inductor ranks', 'Ranks that disagree')
    H.eq(qf.title, again.title, ':Inductor ranks title')
    H.eq(#qf.items, #again.items, ':Inductor ranks entries')
    vim.cmd('cclose')
  end },
  { 'a line with a rank divergence (Warning) and an Info shows the Warning sign', function()
    local bufnr = H.open(root .. '/model.py')
    -- Line 25 holds the rank-2-only recompile (a Warning) and at least one Info.
    local on_line = H.wait('a Warning and an Info on line 25', function()
      local w, i = false, false
      for _, x in ipairs(vim.diagnostic.get(bufnr, { lnum = 24 })) do
        w = w or x.severity == vim.diagnostic.severity.WARN
        i = i or x.severity == vim.diagnostic.severity.INFO
      end
      return w and i
    end)
    H.ok(on_line, 'diagnostics on line 25')
    -- Neovim shows the sign of highest priority: the Warning's must be above every other one there.
    local placed = vim.fn.sign_getplaced(bufnr, { group = '*', lnum = 25 })[1].signs
    local warn, others = nil, {}
    for _, sign in ipairs(placed) do
      if sign.name == 'DiagnosticSignWarn' then
        warn = math.max(warn or sign.priority, sign.priority)
      else
        table.insert(others, sign)
      end
    end
    H.ok(warn, 'no Warning sign on line 25: ' .. vim.inspect(placed))
    for _, sign in ipairs(others) do
      H.ok(sign.priority < warn, string.format('%s (priority %d) not below the Warning sign (%d)', sign.name,
        sign.priority, warn))
    end
  end },
  { ':Inductor status names the 4 ranks and their divergences, as many as :Inductor ranks lists', function()
    H.open(root .. '/model.py')
    local qf = H.quickfix_of('InductorRanks', 'Ranks that disagree')
    vim.cmd('cclose')
    vim.cmd('Inductor status')
    local shown = H.float_with('inductor-ls [', ':Inductor status window')
    local want = string.format('4 ranks, %d divergences (:Inductor ranks)', #qf.items)
    H.ok(shown[1]:find(want, 1, true), 'status: ' .. shown[1] .. ' (wanted ' .. want .. ')')
    H.close_floats()
  end },
}
