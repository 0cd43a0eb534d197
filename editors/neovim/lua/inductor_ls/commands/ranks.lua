---@brief
--- `:InductorRanks` (`:Inductor ranks`): where the ranks of a distributed run diverge
--- (`inductor/ranks`), in the quickfix list, each divergence once on the user line that caused it:
--- `[0/1] recompile: recompiled on rank 2 only (1 of 4): temp == 1.0`. Cache differences are
--- listed too (they have no diagnostic). A divergence with no known line is echoed instead.

local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local config = require('inductor_ls.config')

return function()
  local client = lsp.require_client()
  if not client then
    return
  end
  protocol.request(client, 'inductor/ranks', {}, function(err, result)
    if err then
      vim.notify('inductor-ls: ranks: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if not result or (result.count or 0) < 2 then
      vim.notify('inductor-ls: not a distributed run (one rank or none): nothing to compare', vim.log.levels.INFO)
      return
    end
    local items = {}
    for _, d in ipairs(result.divergences or {}) do
      local text = string.format('[%s] %s: %s', d.compileId, d.kind, d.message)
      if type(d.file) == 'string' and type(d.line) == 'number' then
        table.insert(items, { filename = d.file, lnum = d.line, col = 1, text = text,
          type = (d.kind == 'collective schedule') and 'E' or 'W' })
      else
        vim.notify('inductor-ls: ' .. text, vim.log.levels.WARN)
      end
    end
    if #items == 0 then
      vim.notify('inductor-ls: all ' .. result.count .. ' ranks agree', vim.log.levels.INFO)
      return
    end
    vim.fn.setqflist({}, ' ', { title = 'Ranks that disagree (' .. result.count .. ' ranks)', items = items })
    if config.get().open_quickfix then
      vim.cmd('botright copen')
    end
  end)
end
