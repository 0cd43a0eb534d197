---@brief
--- `:InductorCompare` (`:Inductor compare`): what changed since the baseline run
--- (`inductor/compare`), in the quickfix list: first the compile-health events new or gone since
--- the baseline (`new  graph break  Unsupported Tensor.item() call ...`), then every user line whose
--- kernels changed (`new`, `gone`, `changed`, with its kernels and GPU time before and after:
--- `changed  h = self.fc(self.ln2(x))  4 → 6 kernels · 98.0 → 133.0 µs`). Lines with the same kernels are
--- left out.
--- Without a baseline (a single run), says why.

local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local config = require('inductor_ls.config')
local message = require('inductor_ls.message')

local function micros(us)
  if us == nil or us == vim.NIL then
    return '-'
  end
  return string.format('%.1f', us)
end

--- A line's kernels before and after as its code lens counts them (the lens's `(+2)` is their
--- difference), with the compiles when they differ: `12 → 20 kernels (1 → 2 compiles)`.
local function kernel_counts(l)
  local compiles = ''
  if l.compilesBefore > 0 and l.compilesAfter > 0 and l.compilesBefore ~= l.compilesAfter then
    compiles = string.format(' (%d → %d compiles)', l.compilesBefore, l.compilesAfter)
  end
  return string.format('%d → %d kernels%s', l.kernelCountBefore, l.kernelCountAfter, compiles)
end

return function()
  local client = lsp.require_client()
  if not client then
    return
  end
  protocol.request(client, 'inductor/compare', {}, function(err, result)
    if err then
      message.notify('inductor-ls: compare: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if not result or result.baseline == nil or result.baseline == vim.NIL then
      message.notify('inductor-ls: ' .. ((result and result.reason) or 'no baseline run'), vim.log.levels.INFO)
      return
    end
    local items = {}
    for _, e in ipairs(result.events or {}) do
      table.insert(items, {
        filename = e.file ~= '' and e.file or nil,
        lnum = e.line,
        text = string.format('%-7s %-11s %s', e.change, e.kind, e.message),
        type = e.change == 'new' and 'W' or 'I',
      })
    end
    for _, l in ipairs(result.lines or {}) do
      if l.change ~= 'same' then
        table.insert(items, {
          filename = l.file,
          lnum = l.line,
          text = string.format('%-7s %s  %s · %s → %s µs', l.change, l.text, kernel_counts(l),
            micros(l.gpuTimeBeforeUs), micros(l.gpuTimeAfterUs)),
        })
      end
    end
    if #items == 0 then
      message.notify('inductor-ls: nothing changed since run ' .. result.baseline.id, vim.log.levels.INFO)
      return
    end
    vim.fn.setqflist({}, ' ', { title = 'Changes since run ' .. result.baseline.id, items = items })
    if config.get().open_quickfix then
      vim.cmd('botright copen')
    end
  end)
end
