---@brief
--- Root detection: which directory a buffer's server instance is rooted at.
---
--- Order (first hit wins):
---  1. the nearest ancestor that looks like a trace case: it holds a
---     `dedicated_log_torch_trace*.log`, or a `trace/` directory holding one, or a
---     `torch_compile_debug/` directory;
---  2. the nearest ancestor holding `.git`;
---  3. the file's own directory.
--- Trace markers win over `.git` so that a trace folder inside a repository gets its
--- own server, with the trace folder as root (the server resolves recorded paths by
--- suffix against it). Works on Neovim 0.7.2: no `vim.fs`.

local uv = vim.uv or vim.loop

local M = {}

---@param path string
---@return boolean
local function is_dir(path)
  local stat = uv.fs_stat(path)
  return stat ~= nil and stat.type == 'directory'
end

---@param path string
---@return boolean
local function exists(path)
  return uv.fs_stat(path) ~= nil
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

--- Root directory for a file path (absolute) or directory.
---@param path string
---@return string
function M.find(path)
  local start = is_dir(path) and path or vim.fn.fnamemodify(path, ':h')
  start = vim.fn.fnamemodify(start, ':p'):gsub('(.)/$', '%1')
  local dirs = ancestors(start)
  for _, dir in ipairs(dirs) do
    if M.is_trace_root(dir) then
      return dir
    end
  end
  for _, dir in ipairs(dirs) do
    if exists(dir .. '/.git') then
      return dir
    end
  end
  return start
end

--- Root directory for a buffer, or nil when the buffer is not a file on disk
--- (unnamed, or a URI such as `inductor-trace:`).
---@param bufnr integer
---@return string?
function M.for_buffer(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:find('inductor-trace:', 1, true) or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return M.find(name)
end

return M
