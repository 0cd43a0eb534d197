---@brief
--- Spelling of `inductor-trace:` URIs between the server and Neovim.
---
--- The server names log-only artifacts `inductor-trace:/<log>/<n>/<name>.py` (one slash).
--- Neovim treats a buffer name as a URL only when `://` follows the scheme, so a buffer
--- named `inductor-trace:/x` is stored as `<cwd>/inductor-trace:/x` and
--- `vim.uri_from_bufnr()` then reports `file://<cwd>/inductor-trace:/x` (neovim/neovim#19773,
--- neovim/neovim#23824; same in 0.7 through 0.11).
---
--- So the client names those buffers `inductor-trace:///<log>/...` (empty authority, the
--- same path) and maps at the wire, in one place (`attach()`):
---  * server → client: a string value that starts with `inductor-trace:/` and not
---    `inductor-trace://` gets two more slashes;
---  * client → server: `inductor-trace:///x` and `file://…/inductor-trace:/x` (a buffer
---    opened by its one-slash name) become `inductor-trace:/x` again.
--- Only whole string values that start with a scheme are touched; hover markdown and
--- other text pass unchanged.

local M = {}

M.scheme = 'inductor-trace'

local SERVER_PREFIX = 'inductor-trace:/'
local CLIENT_PREFIX = 'inductor-trace:///'

--- Server spelling → buffer spelling.
---@param s string
---@return string
function M.to_client(s)
  if s:sub(1, #SERVER_PREFIX) == SERVER_PREFIX and s:sub(#SERVER_PREFIX + 1, #SERVER_PREFIX + 1) ~= '/' then
    return CLIENT_PREFIX .. s:sub(#SERVER_PREFIX + 1)
  end
  return s
end

--- Buffer spelling (either form, or a buffer name Neovim expanded) → server spelling.
--- Returns nil when `s` names no `inductor-trace:` artifact.
---@param s string
---@return string?
function M.server_uri(s)
  if s:sub(1, #CLIENT_PREFIX) == CLIENT_PREFIX then
    return SERVER_PREFIX .. s:sub(#CLIENT_PREFIX + 1)
  end
  if s:sub(1, #SERVER_PREFIX) == SERVER_PREFIX then
    return s
  end
  local path = s
  if s:sub(1, 7) == 'file://' then
    path = vim.uri_to_fname(s)
  end
  local tail = path:match('(inductor%-trace:/.*)$')
  if tail and (path:sub(1, 1) == '/' or path:match('^%a:[/\\]')) then
    return M.server_uri(tail)
  end
  return nil
end

--- Client → server mapping of one string: unchanged unless it names an artifact.
---@param s string
---@return string
local function to_server(s)
  if s:sub(1, #CLIENT_PREFIX) == CLIENT_PREFIX or (s:sub(1, 7) == 'file://' and s:find('/inductor-trace:/', 1, true)) then
    return M.server_uri(s) or s
  end
  return s
end

--- Apply `fn` to every string in `value`; tables are copied only where something changed
--- (metatables such as `vim.empty_dict()`'s are kept).
---@param value any
---@param fn fun(s: string): string
---@return any
local function map_strings(value, fn)
  if type(value) == 'string' then
    return fn(value)
  end
  if type(value) ~= 'table' then
    return value
  end
  local out
  for k, v in pairs(value) do
    local nv = map_strings(v, fn)
    if nv ~= v then
      if not out then
        out = {}
        for k2, v2 in pairs(value) do
          out[k2] = v2
        end
        setmetatable(out, getmetatable(value))
      end
      out[k] = nv
    end
  end
  return out or value
end

---@param value any
---@return any
function M.params_to_server(value)
  return map_strings(value, to_server)
end

---@param value any
---@return any
function M.result_to_client(value)
  return map_strings(value, M.to_client)
end

--- Install the mapping on a client's RPC object (`client.rpc.request`/`notify`; the same
--- fields exist from 0.7 to 0.11). Call from `on_init`, before any buffer is attached.
---@param client table
function M.attach(client)
  local rpc = client.rpc
  if not rpc or rpc.__inductor_ls_uri then
    return
  end
  local request, notify = rpc.request, rpc.notify
  rpc.request = function(method, params, callback, ...)
    local wrapped = callback
    if callback then
      wrapped = function(err, result)
        return callback(err, M.result_to_client(result))
      end
    end
    return request(method, M.params_to_server(params), wrapped, ...)
  end
  rpc.notify = function(method, params)
    return notify(method, M.params_to_server(params))
  end
  rpc.__inductor_ls_uri = true
end

return M
