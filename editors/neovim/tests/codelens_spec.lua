-- Code lenses on user code and on output code, and their client-side command.
local H = require('helpers')

--- Wait for a lens on 0-based `line` (or any line when nil) whose title satisfies `match`.
local function wait_lens(bufnr, what, match)
  return H.wait(what, function()
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.command and match(lens) then
        return lens
      end
    end
  end)
end

local function all_titles(bufnr)
  local titles = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(titles, string.format('%d: %s', lens.range.start.line + 1, lens.command and lens.command.title or '?'))
  end
  return table.concat(titles, '\n')
end

return {
  { 'model.py line 16 has a lens counting forward and backward kernels', function()
    local bufnr, client = H.open(H.mlp .. '/model.py')
    local ok, lens = pcall(wait_lens, bufnr, 'a lens on model.py line 16', function(l)
      return l.range.start.line == 15
    end)
    H.ok(ok, tostring(lens) .. '; lenses:\n' .. all_titles(bufnr))
    local title = lens.command.title
    H.ok(title:match('^%d+ kernels?'), 'title starts with the kernel count: ' .. title)
    H.contains(title, 'forward', 'lens title')
    H.contains(title, 'backward', 'lens title')
    H.eq('inductor.showLaunchSites', lens.command.command, 'lens command')
    -- Displayed as virtual text.
    local ns = vim.lsp.codelens.__namespaces and vim.lsp.codelens.__namespaces[client.id]
    if ns then
      local marks = vim.api.nvim_buf_get_extmarks(bufnr, ns, { 15, 0 }, { 15, -1 }, { details = true })
      H.ok(#marks > 0, 'no code-lens virtual text on line 16')
    end
  end },
  { 'running the model.py lens lists its kernels (inductor.showLaunchSites)', function()
    local bufnr = H.open(H.mlp .. '/model.py')
    wait_lens(bufnr, 'the model.py:16 lens', function(l) return l.range.start.line == 15 end)
    vim.api.nvim_win_set_cursor(0, { 16, 4 })
    vim.fn.setqflist({}, 'r')
    vim.lsp.codelens.run()
    H.wait('quickfix list or jump from the lens', function()
      return #vim.fn.getqflist() > 0 or vim.api.nvim_get_current_buf() ~= bufnr
    end)
    if #vim.fn.getqflist() > 0 then
      H.contains(vim.fn.getqflist({ title = 1 }).title, 'kernel', 'quickfix title (the lens title)')
    end
  end },
  { 'output code: the lens above a gelu launch names model.py:16 and its source', function()
    local bufnr = H.open(H.forward_output_code())
    local launch = H.cursor_to('triton_poi_fused_gelu_1.run(') - 1
    local ok, lens = pcall(wait_lens, bufnr, 'a lens near the launch on line ' .. (launch + 1), function(l)
      return l.range.start.line <= launch and l.range.start.line >= launch - 3
        and l.command.title:find('model.py:16', 1, true) ~= nil
    end)
    H.ok(ok, tostring(lens) .. '; lenses:\n' .. all_titles(bufnr))
    H.contains(lens.command.title, 'h = F.gelu(self.fc1(h))', 'lens title')
  end },
  { 'running the lens above a gelu launch goes to model.py line 16', function()
    local bufnr = H.open(H.forward_output_code())
    local launch = H.cursor_to('triton_poi_fused_gelu_1.run(') - 1
    local lens = wait_lens(bufnr, 'a model.py:16 lens near line ' .. (launch + 1), function(l)
      return l.range.start.line <= launch and l.range.start.line >= launch - 3
        and l.command.title:find('model.py:16', 1, true) ~= nil
    end)
    vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
    vim.fn.setqflist({}, 'r')
    vim.lsp.codelens.run()
    H.wait('jump to model.py (or a quickfix list)', function()
      return vim.api.nvim_buf_get_name(0):match('/model%.py$') or #vim.fn.getqflist() > 0
    end)
    if #vim.fn.getqflist() > 0 then
      for _, item in ipairs(vim.fn.getqflist()) do
        H.eq('model.py:16', vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':t') .. ':' .. item.lnum, 'quickfix entry')
      end
    else
      H.eq(16, vim.api.nvim_win_get_cursor(0)[1], 'cursor line after the jump')
    end
  end },
  { 'workspace/codeLens/refresh is answered and lenses stay', function()
    local bufnr, client = H.open(H.mlp .. '/model.py')
    local handler = client.handlers['workspace/codeLens/refresh']
    H.ok(handler, 'no workspace/codeLens/refresh handler on the client')
    H.eq(vim.NIL, handler(nil, vim.NIL, { client_id = client.id, method = 'workspace/codeLens/refresh' }), 'handler result')
    wait_lens(bufnr, 'lenses after a refresh', function(l) return l.range.start.line == 15 end)
  end },
}
