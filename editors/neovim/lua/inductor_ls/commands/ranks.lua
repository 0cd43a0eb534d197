---@brief
--- `:InductorRanks` (`:Inductor ranks`): where the ranks of a distributed run diverge
--- (`inductor/ranks`), in the quickfix list, each divergence once on the user line that caused it:
--- `[0/1] recompile: recompiled on rank 2 only (1 of 4): temp == 1.0`. Cache differences are
--- listed too (they have no diagnostic). A divergence with no known line is an entry without a file.

local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local config = require('inductor_ls.config')
local message = require('inductor_ls.message')

return function()
  local client = lsp.require_client()
  if not client then
    return
  end
  protocol.request(client, 'inductor/ranks', {}, function(err, result)
    if err then
      message.notify('inductor-ls: ranks: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if not result or (result.count or 0) < 2 then
      message.notify('inductor-ls: not a distributed run (one rank or none): nothing to compare', vim.log.levels.INFO)
      return
    end
    local items = {}
    for _, d in ipairs(result.divergences or {}) do
      local text = string.format('[%s] %s: %s', d.compileId, d.kind, d.message)
      local item = { text = text, type = (d.kind == 'collective schedule') and 'E' or 'W' }
      if type(d.file) == 'string' and type(d.line) == 'number' then
        item.filename, item.lnum, item.col = d.file, d.line, 1
      end
      -- A divergence with no known line is an entry without a file: echoing each would stop Neovim
      -- with "Press ENTER".
      table.insert(items, item)
    end
    if #items == 0 then
      message.notify('inductor-ls: all ' .. result.count .. ' ranks agree', vim.log.levels.INFO)
      return
    end
    vim.fn.setqflist({}, ' ', { title = 'Ranks that disagree (' .. result.count .. ' ranks)', items = items })
    if config.get().open_quickfix then
      vim.cmd('botright copen')
    end
  end)
end
