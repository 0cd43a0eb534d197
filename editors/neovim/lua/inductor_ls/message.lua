---@brief
--- How the plugin tells the user something without ever stopping Neovim with "Press ENTER":
--- Neovim asks for Enter when a message is wider than the command line's free space
--- (`v:echospace`), holds a line break, or follows another message before a redraw. So a
--- message is one line cut to fit (`notify`; several in one tick show as the most severe, with
--- how many more), and what does not fit on one line is shown in a floating window (`show`),
--- which echoes nothing.

local M = {}

--- `message` on one line of at most `width` display cells: whitespace runs (newlines
--- included) become one space; a longer text is cut, at a word where one is near, and ends
--- with `…`.
---@param message string
---@param width integer
---@return string text
---@return boolean cut whether the text was shortened
function M.one_line(message, width)
  local text = vim.trim((message:gsub('%s+', ' ')))
  if vim.fn.strdisplaywidth(text) <= width then
    return text, false
  end
  local n = math.max(width - 1, 0)
  local cut = vim.fn.strcharpart(text, 0, n)
  while n > 0 and vim.fn.strdisplaywidth(cut) > width - 1 do
    n = n - 1
    cut = vim.fn.strcharpart(text, 0, n)
  end
  local at_word = cut:match('^(.*%S)%s')
  if at_word and vim.fn.strdisplaywidth(at_word) > width * 2 / 3 then
    cut = at_word
  end
  return cut .. '…', true
end

--- The display cells a message may take: one less than the command line's free space (a
--- message that fills the last cell asks for Enter too), at least 30.
---@return integer
function M.width()
  return math.max((tonumber(vim.v.echospace) or 80) - 1, 30)
end

--- Messages waiting for the next `flush`: `{text, level, more}` (`more`: where the full text is, when
--- the line is cut).
---@type table[]
M.pending = {}

--- Show the waiting messages as one notification: the most severe (the first of those), on one
--- line within `width()`, with how many more there were; where the text was cut, the suffix says
--- where the full text is.
function M.flush()
  local pending = M.pending
  M.pending = {}
  if #pending == 0 then
    return
  end
  local first = pending[1]
  for _, p in ipairs(pending) do
    if p.level > first.level then
      first = p
    end
  end
  local width = M.width()
  local where = first.more and (': ' .. first.more) or ''
  local suffix = #pending > 1 and string.format(' (+%d more%s)', #pending - 1, where) or ''
  local text, cut = M.one_line(first.text, width - vim.fn.strdisplaywidth(suffix))
  if cut and suffix == '' and first.more then
    suffix = ' (' .. first.more .. ')'
    text = M.one_line(first.text, width - vim.fn.strdisplaywidth(suffix))
  end
  vim.notify(text .. suffix, first.level, { title = 'inductor-ls' })
end

--- Notify `text` at `level` (a `vim.log.levels` value, INFO when nil) on one line that fits the
--- command line, in the next tick together with any other message of this tick.
---@param text string
---@param level? integer
---@param more? string where the full text is when the line is cut (`:Inductor status`)
function M.notify(text, level, more)
  table.insert(M.pending, { text = text, level = level or vim.log.levels.INFO, more = more })
  if #M.pending == 1 then
    vim.schedule(M.flush)
  end
end

--- How many screen rows `line` takes in a window `width` cells wide that breaks lines at spaces
--- ('linebreak'), the continuations indented as the line ('breakindent'); a word longer than a row
--- is broken where it must.
---@param line string
---@param width integer
---@return integer
function M.rows(line, width)
  local indent = math.min(vim.fn.strdisplaywidth(line:match('^%s*')), width - 1)
  local rows, used = 1, nil
  for word in line:gmatch('%S+') do
    local w = vim.fn.strdisplaywidth(word)
    if not used then
      used = indent + w
    elseif used + 1 + w <= width then
      used = used + 1 + w
    else
      rows = rows + 1
      used = indent + w
    end
    while used > width do -- A word wider than a row.
      rows = rows + 1
      used = used - width + indent
    end
  end
  return rows
end

--- Show `lines` in a floating window at the cursor, closed when the cursor moves (`<C-w>w` enters it,
--- `q` there closes it). Long lines wrap at spaces on screen; the buffer keeps them whole. Echoes
--- nothing, so it never asks for Enter.
---@param lines string[]
---@param id string the window's identity (`focus_id`): a second `show` with it replaces it
---@return integer bufnr
---@return integer winid
function M.show(lines, id)
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.max(math.min(width, vim.o.columns - 6), 20)
  local bufnr, winid = vim.lsp.util.open_floating_preview(lines, nil, {
    focus_id = id,
    focus = false, -- A second `show` replaces the window (fresh content) rather than entering the old one.
    border = 'single',
    max_width = width,
    max_height = math.max(vim.o.lines - 6, 5),
  })
  vim.wo[winid].linebreak = true
  vim.wo[winid].breakindent = true
  -- The height open_floating_preview gave counts rows as if lines broke anywhere; at spaces they may
  -- need more.
  local rows = 0
  for _, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    rows = rows + M.rows(l, vim.api.nvim_win_get_width(winid))
  end
  vim.api.nvim_win_set_height(winid, math.min(rows, math.max(vim.o.lines - 6, 5)))
  return bufnr, winid
end

return M
