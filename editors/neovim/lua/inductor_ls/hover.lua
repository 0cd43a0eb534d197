---@brief
--- Hovers of inductor-ls, readable in a terminal on Neovim 0.7.2 and later.
---
--- The server's hovers are Markdown in which every kernel, origin and FX node is a link
--- (`[model.py:16](file:///…/model.py#L16)`). Neovim's own hover float shows that Markdown
--- nearly raw (0.7's markdown syntax conceals neither code spans nor links), so this
--- module renders it: headings, bold labels, code spans and links become highlighted
--- text without their markup, list items get bullets, and each link is remembered with
--- its position. In the float (`K` twice, or the window command to enter it), `<CR>` or
--- `gd` on a link opens its target at its line (`inductor-trace:` targets load through
--- the plugin's reader).
---
--- Highlight groups (linked by default, override them in a colorscheme):
--- `InductorLsHoverHeading` (Title), `InductorLsHoverStrong` (Special),
--- `InductorLsHoverCode` (String), `InductorLsHoverLink` (Underlined),
--- `InductorLsHoverNote` (Comment).

local uri = require('inductor_ls.uri')

local M = {}

M.namespace = vim.api.nvim_create_namespace('inductor_ls_hover')

--- Define the highlight groups (as `default` links, so a colorscheme wins).
function M.define_highlights()
  for group, target in pairs({
    InductorLsHoverHeading = 'Title',
    InductorLsHoverStrong = 'Special',
    InductorLsHoverCode = 'String',
    InductorLsHoverLink = 'Underlined',
    InductorLsHoverNote = 'Comment',
  }) do
    vim.cmd(string.format('highlight default link %s %s', group, target))
  end
end

--- Render one line of inline Markdown: text without markup, highlights and links.
--- Handles backslash escapes, code spans (any number of backticks), links (whose text may
--- hold code spans), `**strong**` and `*emphasis*`.
---@param line string
---@return string text, table[] highlights `{col, end_col, group}` (byte columns), table[] links `{col, end_col, target}`
local function render_inline(line)
  local out, highlights, links = {}, {}, {}
  local len = 0 -- bytes written
  local strong, emphasis = nil, nil -- start columns of open spans
  local function emit(s)
    table.insert(out, s)
    len = len + #s
  end
  local i, n = 1, #line
  while i <= n do
    local c = line:sub(i, i)
    if c == '\\' and i < n then
      emit(line:sub(i + 1, i + 1))
      i = i + 2
    elseif c == '`' then
      local ticks = line:match('^`+', i)
      local close = line:find(ticks, i + #ticks, true)
      if close then
        local code = line:sub(i + #ticks, close - 1)
        if #ticks > 1 then
          code = code:gsub('^ ', ''):gsub(' $', '')
        end
        local start = len
        emit(code)
        table.insert(highlights, { start, len, 'InductorLsHoverCode' })
        i = close + #ticks
      else
        emit(ticks)
        i = i + #ticks
      end
    elseif c == '[' then
      -- `[text](target)`: find the `]` that is not escaped, then `(` right after it.
      local j, depth = i + 1, 1
      while j <= n do
        local d = line:sub(j, j)
        if d == '\\' then
          j = j + 1
        elseif d == '[' then
          depth = depth + 1
        elseif d == ']' then
          depth = depth - 1
          if depth == 0 then
            break
          end
        end
        j = j + 1
      end
      local close_paren = j <= n and line:sub(j + 1, j + 1) == '(' and line:find(')', j + 2, true)
      if close_paren then
        local inner_text, inner_hl = render_inline(line:sub(i + 1, j - 1))
        local target = line:sub(j + 2, close_paren - 1):gsub('%s+".*"$', '')
        local start = len
        emit(inner_text)
        for _, h in ipairs(inner_hl) do
          table.insert(highlights, { start + h[1], start + h[2], h[3] })
        end
        table.insert(highlights, { start, len, 'InductorLsHoverLink' })
        table.insert(links, { start, len, target })
        i = close_paren + 1
      else
        emit(c)
        i = i + 1
      end
    elseif line:sub(i, i + 1) == '**' then
      if strong then
        table.insert(highlights, { strong, len, 'InductorLsHoverStrong' })
        strong = nil
      else
        strong = len
      end
      i = i + 2
    elseif c == '*' and (emphasis or (i < n and line:sub(i + 1, i + 1) ~= ' ')) then
      if emphasis then
        table.insert(highlights, { emphasis, len, 'InductorLsHoverNote' })
        emphasis = nil
      else
        emphasis = len
      end
      i = i + 1
    else
      emit(c)
      i = i + 1
    end
  end
  return table.concat(out), highlights, links
end

--- Render hover Markdown into display lines.
---@param markdown string
---@return string[] lines, table[] highlights `{line0, col, end_col, group}`, table[] links `{line0, col, end_col, target}`, integer[] rules rows (0-based) of rules (thematic breaks), as wide as the text
function M.render(markdown)
  local lines, highlights, links = {}, {}, {}
  local rules = {} -- rows (0-based) of thematic breaks
  local in_fence = false
  for _, raw in ipairs(vim.split(markdown, '\n', { plain = true })) do
    if raw:match('^%s*```') then
      in_fence = not in_fence
    elseif in_fence then
      table.insert(lines, '  ' .. raw)
    elseif raw:match('^%s*%-%-%-+%s*$') or raw:match('^%s*%*%*%*+%s*$') or raw:match('^%s*___+%s*$') then
      -- A thematic break: a rule as wide as the text, drawn below.
      rules[#lines] = true
      table.insert(lines, '')
    else
      local heading = raw:match('^#+%s+(.*)$')
      local prefix, body = '', raw
      if heading then
        body = heading
      elseif raw:match('^%s*[-*] ') then
        local indent, rest = raw:match('^(%s*)[-*] (.*)$')
        prefix, body = indent .. '• ', rest
      end
      local text, hl, lk = render_inline(body)
      local row = #lines
      table.insert(lines, prefix .. text)
      if heading then
        table.insert(highlights, { row, 0, #prefix + #text, 'InductorLsHoverHeading' })
      end
      for _, h in ipairs(hl) do
        table.insert(highlights, { row, #prefix + h[1], #prefix + h[2], h[3] })
      end
      for _, l in ipairs(lk) do
        table.insert(links, { row, #prefix + l[1], #prefix + l[2], l[3] })
      end
    end
  end
  -- Collapse runs of blank lines (Markdown paragraphs) to one, and trim the ends; a rule takes the
  -- place of the blank lines around it.
  local kept, kept_hl, kept_links, map, kept_rules = {}, {}, {}, {}, {}
  local function last_is_gap() -- nothing kept yet, or a blank line or a rule last
    return #kept == 0 or kept_rules[#kept - 1] or kept[#kept]:match('^%s*$') ~= nil
  end
  for row, line in ipairs(lines) do
    if rules[row - 1] then
      if #kept > 0 and not kept_rules[#kept - 1] and kept[#kept]:match('^%s*$') then
        table.remove(kept)
      end
      if #kept > 0 and not kept_rules[#kept - 1] then
        kept_rules[#kept] = true
        table.insert(kept, '')
      end
    elseif not (line:match('^%s*$') and last_is_gap()) then
      table.insert(kept, line)
    end
    map[row - 1] = math.max(#kept - 1, 0)
  end
  while #kept > 0 and (kept_rules[#kept - 1] or kept[#kept]:match('^%s*$')) do
    kept_rules[#kept - 1] = nil
    table.remove(kept)
  end
  local width = 1
  for row, line in ipairs(kept) do
    if not kept_rules[row - 1] then
      width = math.max(width, vim.fn.strdisplaywidth(line))
    end
  end
  width = math.min(width, 100)
  local rule_rows = {}
  for row in pairs(kept_rules) do
    kept[row + 1] = string.rep('─', width)
    table.insert(kept_hl, { row, 0, #kept[row + 1], 'InductorLsHoverNote' })
    table.insert(rule_rows, row)
  end
  for _, h in ipairs(highlights) do
    table.insert(kept_hl, { map[h[1]], h[2], h[3], h[4] })
  end
  for _, l in ipairs(links) do
    table.insert(kept_links, { map[l[1]], l[2], l[3], l[4] })
  end
  return kept, kept_hl, kept_links, rule_rows
end

--- Open a link target (`file:…#L16`, `inductor-trace:/…#L16`) in the window `win`.
---@param target string
---@param win? integer
function M.open_target(target, win)
  local base, line = target:match('^(.-)#L(%d+)$')
  base = base or target
  local bufnr = vim.uri_to_bufnr(uri.to_client(base))
  if win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
  end
  vim.cmd('normal! m\'') -- Keep the jumplist, as gd does.
  vim.api.nvim_win_set_buf(0, bufnr)
  vim.bo[bufnr].buflisted = true
  if line then
    local lnum = math.min(tonumber(line), math.max(1, vim.api.nvim_buf_line_count(bufnr)))
    vim.api.nvim_win_set_cursor(0, { lnum, 0 })
    vim.cmd('normal! ^')
  end
end

--- The link under the cursor of the hover float `win`, if any.
---@param win integer
---@return string? target
function M.link_at_cursor(win)
  local links = vim.w[win].inductor_ls_links or {}
  local cursor = vim.api.nvim_win_get_cursor(win)
  for _, l in ipairs(links) do
    if l[1] == cursor[1] - 1 and cursor[2] >= l[2] and cursor[2] < l[3] then
      return l[4]
    end
  end
  return nil
end

--- Show a hover result (`Hover` of the LSP) in a float. Returns the float's buffer and
--- window, or nil when the result is empty.
---@param result table?
---@param opts? table passed to vim.lsp.util.open_floating_preview
---@return integer? bufnr, integer? winnr
function M.show(result, opts)
  if not (result and result.contents) then
    return nil
  end
  local contents = result.contents
  local markdown
  if type(contents) == 'string' then
    markdown = contents
  elseif contents.value then
    markdown = contents.value
  else
    markdown = table.concat(vim.lsp.util.convert_input_to_markdown_lines(contents), '\n')
  end
  local lines, highlights, links, rules = M.render(markdown)
  if #lines == 0 then
    return nil
  end
  local origin_win = vim.api.nvim_get_current_win()
  opts = vim.tbl_extend('keep', opts or {}, { focus_id = 'inductor_ls_hover', max_width = 100, border = 'rounded' })
  local bufnr, win = vim.lsp.util.open_floating_preview(lines, '', opts)
  if not (bufnr and win) or vim.api.nvim_get_current_win() == win or win == origin_win then
    return bufnr, win -- A second K entered the float already open, or left it.
  end
  -- Rules as wide as the float, which the screen may have made narrower than the text.
  local width = vim.api.nvim_win_get_width(win)
  vim.bo[bufnr].modifiable = true
  for _, row in ipairs(rules) do
    local rule = string.rep('─', width)
    vim.api.nvim_buf_set_lines(bufnr, row, row + 1, false, { rule })
    table.insert(highlights, { row, 0, #rule, 'InductorLsHoverNote' })
  end
  vim.bo[bufnr].modifiable = false
  for _, h in ipairs(highlights) do
    vim.api.nvim_buf_add_highlight(bufnr, M.namespace, h[4], h[1], h[2], h[3])
  end
  vim.w[win].inductor_ls_links = links
  local follow = function()
    local target = M.link_at_cursor(win)
    if target then
      pcall(vim.api.nvim_win_close, win, true)
      M.open_target(target, origin_win)
    end
  end
  for _, lhs in ipairs({ '<CR>', 'gd' }) do
    vim.keymap.set('n', lhs, follow, { buffer = bufnr, nowait = true, desc = 'inductor-ls: open the link under the cursor' })
  end
  return bufnr, win
end

--- `textDocument/hover` handler (for `vim.lsp.buf.hover()` and the plugin's `K`).
function M.handler(_, result, ctx, config)
  config = config or {}
  config.focus_id = ctx and ctx.method or 'inductor_ls_hover'
  return M.show(result, config)
end

return M
