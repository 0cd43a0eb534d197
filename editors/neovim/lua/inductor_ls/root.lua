---@brief
--- Root detection: which server instance a buffer belongs to (|inductor_ls-root|).
---
--- 1. The nearest ancestor that looks like a trace case: it holds a
---    `dedicated_log_torch_trace*.log`, or a `trace/` directory holding one, or a
---    `torch_compile_debug/` directory. Each such root gets its own server.
--- 2. Otherwise, only when `init_options.traceDirs` names the traces, the session root for a
---    file under the current directory: one server for all of them, rooted at the current
---    directory when the first such buffer attaches, or at no folder at all when that is `/` or
---    `$HOME` (the server then reads only the traceDirs).
--- 3. Otherwise no server: a stray file opened from a folder that happens to hold other traces
---    (in its subfolders) must not make a server index that whole folder. Such a buffer is tried
---    again when entered, so that a trace a run writes beside it later is picked up.
--- As `lsp/inductor_ls.lua` attaches on 0.11. Works on Neovim 0.7.2: no `vim.fs`.

local uv = vim.uv or vim.loop

local M = {}

--- Root directory name of the session server when it has no folder (see M.session).
M.NO_FOLDER = ''

---@param path string
---@return boolean
local function is_dir(path)
  local stat = uv.fs_stat(path)
  return stat ~= nil and stat.type == 'directory'
end

--- Whether `dir` directly holds a TORCH_TRACE log file.
---@param dir string
---@return boolean
local function has_trace_log(dir)
  local handle = uv.fs_scandir(dir)
  if not handle then
    return false
  end
  while true do
    local name, kind = uv.fs_scandir_next(handle)
    if not name then
      return false
    end
    if kind ~= 'directory' and name:match('^dedicated_log_torch_trace.*%.log$') then
      return true
    end
  end
end

--- Whether `dir` is the root of a trace case.
---@param dir string
---@return boolean
function M.is_trace_root(dir)
  return has_trace_log(dir) or has_trace_log(dir .. '/trace') or is_dir(dir .. '/torch_compile_debug')
end

--- Directories from `dir` up to `/`, nearest first.
---@param dir string
---@return string[]
local function ancestors(dir)
  local list = {}
  local current = dir
  while current and current ~= '' do
    table.insert(list, current)
    local parent = vim.fn.fnamemodify(current, ':h')
    if parent == current then
      break
    end
    current = parent
  end
  return list
end

--- Strip a trailing slash (except from `/`).
local function clean(dir)
  return (vim.fn.fnamemodify(dir, ':p'):gsub('(.)/$', '%1'))
end

--- The trace root above a file path (absolute) or directory, or nil when there is none.
---@param path string
---@return string?
function M.find_trace_root(path)
  local start = clean(is_dir(path) and path or vim.fn.fnamemodify(path, ':h'))
  for _, dir in ipairs(ancestors(start)) do
    if M.is_trace_root(dir) then
      return dir
    end
  end
  return nil
end

--- The session root: the current directory, or NO_FOLDER when it is `/` or `$HOME`.
--- Fixed by the first call, so that the session keeps one server when the directory
--- changes.
---@return string
function M.session()
  if not M._session then
    local cwd = clean(vim.fn.getcwd())
    local home = uv.os_homedir and uv.os_homedir() or vim.env.HOME
    M._session = (cwd == '/' or (home and cwd == clean(home))) and M.NO_FOLDER or cwd
  end
  return M._session
end

--- Whether `init_options.traceDirs` names the traces (a non-empty list).
---@return boolean
function M.trace_dirs_configured()
  local init = require('inductor_ls.config').get().init_options
  local dirs = type(init) == 'table' and init.traceDirs
  return type(dirs) == 'table' and #dirs > 0
end

--- Root for a file path (absolute) or directory: its trace root; else, when traceDirs are configured
--- and the path is under the session's folder (the current directory when the session has none), the
--- session root; else nil (no server).
---@param path string
---@return string?
function M.find(path)
  local found = M.find_trace_root(path)
  if found then
    return found
  end
  if not M.trace_dirs_configured() then
    return nil
  end
  local session = M.session()
  if M.inside(path, session ~= M.NO_FOLDER and session or vim.fn.getcwd()) then
    return session
  end
  return nil
end

--- The file path of a buffer, or nil when the buffer is not a file on disk (unnamed, or a
--- URI such as `inductor-trace:`).
---@param bufnr integer
---@return string?
local function file_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:find('inductor-trace:', 1, true) or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return name
end

--- Root for a buffer (see `find`), or nil when it gets no server or is not a file on disk.
---@param bufnr integer
---@return string?
function M.for_buffer(bufnr)
  local name = file_of(bufnr)
  return name and M.find(name)
end

--- The trace root above a buffer's file (step 1 above only, no session root), or nil.
---@param bufnr integer
---@return string?
function M.trace_root_for_buffer(bufnr)
  local name = file_of(bufnr)
  return name and M.find_trace_root(name)
end

--- Whether `path` (absolute) is `dir` or inside it.
---@param path string
---@param dir string
---@return boolean
function M.inside(path, dir)
  dir = clean(dir)
  path = clean(path)
  return path == dir or path:sub(1, #dir + 1) == (dir == '/' and '/' or dir .. '/')
end

return M
