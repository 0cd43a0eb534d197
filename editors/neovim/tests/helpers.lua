-- Test helpers: assertions that raise with a message, waits on real signals
-- (vim.wait on a predicate, never a fixed sleep), and fixture access.
local H = {}

H.repo = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h')
H.fixtures = vim.env.INDUCTOR_FIXTURES or (H.repo .. '/../shared/fixtures')
H.fixtures = vim.fn.fnamemodify(H.fixtures, ':p'):gsub('/$', '')
H.mlp = H.fixtures .. '/traces/mlp_train'

--- Long enough for the first request, which the server answers once its index is built.
H.timeout = tonumber(vim.env.INDUCTOR_TEST_TIMEOUT_MS or '') or 30000

function H.fail(msg)
  error(msg, 0)
end

function H.ok(cond, msg)
  if not cond then
    H.fail(msg)
  end
  return cond
end

function H.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    H.fail(string.format('%s: expected %s, got %s', what, vim.inspect(expected), vim.inspect(actual)))
  end
end

function H.contains(haystack, needle, what)
  if type(haystack) ~= 'string' or not haystack:find(needle, 1, true) then
    H.fail(string.format('%s: %q not found in %s', what, needle, vim.inspect(haystack)))
  end
end

--- Wait until `pred()` returns a truthy value; return it, or fail naming `what`.
function H.wait(what, pred, timeout)
  local value
  local done = vim.wait(timeout or H.timeout, function()
    value = pred()
    return value and true or false
  end, 10)
  if not done then
    H.fail('timed out waiting for ' .. what)
  end
  return value
end

--- Run the callbacks scheduled before this call (vim.schedule: first in, first out) by waiting for one
--- scheduled now, which runs after them. What must not happen "soon" (a second notification, a
--- message) has happened by then if it was scheduled at all: no sleep that is long enough by luck.
function H.flush()
  local done = false
  vim.schedule(function()
    done = true
  end)
  H.wait('the callbacks scheduled before', function()
    return done
  end)
end

--- The forward graph's output_code.py of mlp_train.
function H.forward_output_code()
  local files = vim.fn.glob(H.mlp .. '/torch_compile_debug/*/torchinductor/model__0_forward_1.0/output_code.py', false, true)
  H.ok(#files == 1, 'fixture forward output_code.py not found under ' .. H.mlp)
  return files[1]
end

--- Edit `path` and wait for the inductor-ls client to be attached and initialized.
---@return integer bufnr, table client
--- Once a server fails to come up (it exited, or did not initialize in time), later
--- opens fail at once instead of waiting out the timeout again.
H.dead = nil

function H.open(path)
  if H.dead then
    H.fail(H.dead)
  end
  local lsp = require('inductor_ls.lsp')
  local exits = #lsp.exits
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  local ok, client = pcall(H.wait, 'inductor-ls client on ' .. path, function()
    return lsp.client_for_buffer(bufnr) or (#lsp.exits > exits and 'exited')
  end)
  if not ok then
    H.dead = tostring(client) .. ' (earlier)'
    H.fail(client)
  end
  if client == 'exited' then
    local e = lsp.exits[#lsp.exits]
    H.dead = string.format('the server exited before answering (code %s, signal %s): %s', tostring(e.code),
      tostring(e.signal), table.concat(require('inductor_ls.config').get().cmd, ' '))
    H.fail(H.dead)
  end
  return bufnr, client
end

--- Put the cursor on the first occurrence of `text` (plain) at or after line `from` (1-based).
---@return integer lnum 1-based
function H.cursor_to(text, from)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  for lnum = from or 1, #lines do
    local col = lines[lnum]:find(text, 1, true)
    if col then
      vim.api.nvim_win_set_cursor(0, { lnum, col - 1 })
      return lnum
    end
  end
  H.fail(string.format('%q not found in %s', text, vim.api.nvim_buf_get_name(0)))
end

--- Synchronous request through the plugin's client (so the URI mapping applies).
function H.request(client, method, params, bufnr)
  local lsp = require('inductor_ls.lsp')
  local response, err = lsp.request_sync(client, method, params, H.timeout, bufnr or 0)
  if not response then
    H.fail(string.format('%s: no response (%s)', method, tostring(err)))
  end
  if response.err then
    H.fail(string.format('%s %s: error %s', method, vim.inspect(params), vim.inspect(response.err)))
  end
  return response.result
end

--- Locations normalised to a list.
function H.locations(result)
  return require('inductor_ls.locations').normalize(result)
end

--- `path:LINE` (1-based) of a Location or LocationLink.
function H.where(loc)
  local uri = loc.uri or loc.targetUri
  local range = loc.targetSelectionRange or loc.range
  return string.format('%s:%d', vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t'), range.start.line + 1)
end

--- Run `command` (an Ex command filling the quickfix list) on an empty list and wait for the list it
--- fills: a title holding `title` (plain) and at least one entry.
---@return table `{title, items}` as getqflist gives them
function H.quickfix_of(command, title)
  vim.fn.setqflist({}, 'r')
  vim.cmd(command)
  return H.wait('the quickfix list of :' .. command, function()
    local q = vim.fn.getqflist({ title = 1, items = 1 })
    return q.title:find(title, 1, true) and #q.items > 0 and q
  end)
end

--- Floating windows currently open.
function H.floats()
  local wins = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      table.insert(wins, win)
    end
  end
  return wins
end

--- The lines of the floating window whose text holds `needle` (plain), waited for; fails naming `what`.
---@return string[]
function H.float_with(needle, what)
  return H.wait(what, function()
    for _, win in ipairs(H.floats()) do
      local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      if table.concat(lines, '\n'):find(needle, 1, true) then
        return lines
      end
    end
  end)
end

--- Run `fn` with vim.notify recording what it is given (`{msg, level}` each, in order), and return the
--- record; the messages are still shown.
---@param fn fun()
---@param wait_for? fun(notified: table[]): boolean wait until this holds before returning
---@return table[]
function H.notified_by(fn, wait_for)
  local notified = {}
  local saved = vim.notify
  vim.notify = function(msg, level, opts)
    table.insert(notified, { msg = msg, level = level })
    return saved(msg, level, opts)
  end
  local ok, err = pcall(function()
    fn()
    if wait_for then
      H.wait('the notification', function()
        return wait_for(notified)
      end)
    end
    H.flush() -- what was scheduled with it
  end)
  vim.notify = saved
  if not ok then
    error(err, 0)
  end
  return notified
end

function H.close_floats()
  for _, win in ipairs(H.floats()) do
    pcall(vim.api.nvim_win_close, win, true)
  end
end

return H
