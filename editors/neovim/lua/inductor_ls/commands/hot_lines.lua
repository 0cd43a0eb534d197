---@brief
--- `:InductorHotLines` (`:Inductor hotlines`): the user lines that cost the most GPU time, from
--- the profiler traces the server joined to the launches (`inductor/hotLines`), in the quickfix
--- list, hottest first. Each entry reads `133 µs/step  30%  h = F.gelu(self.fc1(h))` (`total`
--- instead of `/step` when the profile marks no steps); the quickfix title says which, and any
--- caveat of the join (CUDA graph replays, calls it could not tie) ends the list, and is echoed on one
--- line.

local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local config = require('inductor_ls.config')
local message = require('inductor_ls.message')

return function()
  local client = lsp.require_client()
  if not client then
    return
  end
  protocol.request(client, 'inductor/hotLines', { limit = 500 }, function(err, result)
    if err then
      message.notify('inductor-ls: hot lines: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if not result or result.basis == 'none' then
      message.notify('inductor-ls: no profiler trace found (set `profiles` in init_options, or put the trace beside '
        .. 'the TORCH_TRACE logs)', vim.log.levels.INFO)
      return
    end
    local lines = result.lines or {}
    if #lines == 0 then
      message.notify('inductor-ls: no user line has a GPU time (' .. result.basisText .. ')', vim.log.levels.INFO)
      return
    end
    -- One item per line, in the server's order (hottest first); the text is the time, the share and the code.
    local items = {}
    for _, l in ipairs(lines) do
      local item = vim.lsp.util.locations_to_items({ l.location }, client.offset_encoding)[1]
      if item then
        item.text = string.format('%-14s %5.1f%%  %s', l.label, l.percent, vim.trim(l.code or ''))
        table.insert(items, item)
      end
    end
    -- Each caveat in full at the end of the list; echoed as one line (the first, and how many more).
    for _, caveat in ipairs(result.caveats or {}) do
      table.insert(items, { text = 'caveat: ' .. caveat, type = 'W' })
      message.notify('inductor-ls: ' .. caveat, vim.log.levels.WARN, 'the end of the quickfix list')
    end
    vim.fn.setqflist({}, ' ', { title = 'Hottest lines: ' .. result.basisText, items = items })
    if config.get().open_quickfix then
      vim.cmd('botright copen')
    end
  end)
end
