---@brief
--- `:InductorLowered [stage]`: from the cursor line of a Triton kernel's source (output code, the
--- kernel's file in the cache, a log-only `inductor-trace:` buffer), the lines of its IR that the
--- compiler attributes to it (`inductor/lowered`), in the quickfix list: every stage (ttir, ttgir,
--- llir, ptx), or only `stage`. `gd` on an IR line leads back to the kernel line.

local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local config = require('inductor_ls.config')
local message = require('inductor_ls.message')

return function(stage)
  local client = lsp.require_client()
  if not client then
    return
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  protocol.request(client, 'inductor/lowered', params, function(err, result)
    if err then
      message.notify('inductor-ls: lowered: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local items = {}
    for _, s in ipairs(result or {}) do
      if not stage or stage == '' or stage == s.stage then
        for _, item in ipairs(vim.lsp.util.locations_to_items(s.locations, client.offset_encoding)) do
          item.text = s.stage .. '  ' .. vim.trim(item.text or '')
          table.insert(items, item)
        end
        -- The server lists the first 4,000 lines of a stage and counts the rest.
        if (s.more or 0) > 0 then
          table.insert(items, { text = s.stage .. '  … ' .. s.more .. ' more lines', valid = 0 })
        end
        -- A stage whose file the server did not read says why.
        if s.note then
          table.insert(items, { text = s.stage .. '  not read: ' .. s.note, valid = 0 })
        end
      end
    end
    if #items == 0 then
      message.notify('inductor-ls: no IR lines for this line (not a Triton kernel line, or no Triton cache entry)',
        vim.log.levels.INFO)
      return
    end
    vim.fn.setqflist({}, ' ', { title = 'Lowered' .. (stage and stage ~= '' and (' (' .. stage .. ')') or ''),
      items = items })
    if config.get().open_quickfix then
      vim.cmd('botright copen')
    end
  end)
end
