---@brief
--- Options of inductor_ls: defaults, merge and validation.
---
--- `setup(opts)` merges the user's table over `defaults` (deep merge, lists replaced whole)
--- and validates the result with `vim.validate`. Nothing here talks to the server.

---@class inductor_ls.Opts
---@field cmd? string[] Command that starts the server. Default: `{ 'inductor-ls' }`.
---@field init_options? table Sent verbatim as `initializationOptions` (`traceDirs`, `pathMappings`, `profiles`, `runLogs`, `tritonCacheDirs`). Default: nil (the server discovers traces under the root).
---@field python_path? string The Python interpreter of the environment that ran the traced script (its `sys.path` finds files of installed packages such as transformers); sent as `initializationOptions.pythonPath`. Default: nil (the server runs `python3` on PATH outside the workspace, and reads a `.venv`, `$VIRTUAL_ENV`, `$CONDA_PREFIX` without running them).
---@field library_paths? string[] Globs of files whose frames are library code, never an origin (`initializationOptions.libraryPaths`). Default: nil.
---@field filetypes? string[] Filetypes that start/attach the client. Default: `{ 'python', 'c', 'cpp', 'ptx', 'mlir', 'llvm' }`.
---@field root_dir? fun(bufnr: integer): string? Overrides root detection; return nil to skip the buffer. Default: nil (see |inductor_ls-root|).
---@field capabilities? table Merged over the client capabilities the plugin builds. Default: nil.
---@field on_attach? fun(client: table, bufnr: integer) Called after the plugin's own attach logic. Default: nil.
---@field codelens? boolean Show and refresh code lenses. Default: true.
---@field timeout_ms? integer Limit for the synchronous `inductor/artifactContent` request that fills an `inductor-trace:` buffer (the server answers once its index is built). Default: 20000.
---@field open_quickfix? boolean Open the quickfix window after filling it. Default: true.
---@field keymaps? table|false Buffer-local mappings set when a buffer attaches (|inductor_ls-keymaps|): `{ hover = 'K', definition = 'gd' }`; a key set to `false` is not mapped; `false` maps nothing. Default: `{ hover = 'K', definition = 'gd' }`.

local M = {}

---@type inductor_ls.Opts
M.defaults = {
  cmd = { 'inductor-ls' },
  init_options = nil,
  python_path = nil,
  library_paths = nil,
  filetypes = { 'python', 'c', 'cpp', 'ptx', 'mlir', 'llvm' },
  root_dir = nil,
  capabilities = nil,
  on_attach = nil,
  codelens = true,
  timeout_ms = 20000,
  open_quickfix = true,
  keymaps = { hover = 'K', definition = 'gd' },
}

--- Current options; `setup()` replaces them. Read through `get()`.
---@type inductor_ls.Opts
local current = vim.deepcopy(M.defaults)

--- Whether `setup()` ran (reported by `:checkhealth inductor_ls`).
M.setup_called = false

local function is_list_of_strings(v)
  local islist = vim.islist or vim.tbl_islist -- vim.tbl_islist is deprecated from 0.10
  if type(v) ~= 'table' or not islist(v) then
    return false
  end
  for _, s in ipairs(v) do
    if type(s) ~= 'string' then
      return false
    end
  end
  return true
end

--- Validate a merged option table. Raises an error naming the bad field.
---@param opts inductor_ls.Opts
function M.validate(opts)
  vim.validate({
    cmd = { opts.cmd, function(v) return is_list_of_strings(v) and #v > 0 end, 'non-empty list of strings' },
    init_options = { opts.init_options, 'table', true },
    python_path = { opts.python_path, 'string', true },
    library_paths = {
      opts.library_paths,
      function(v) return v == nil or is_list_of_strings(v) end,
      'list of strings',
    },
    filetypes = { opts.filetypes, is_list_of_strings, 'list of strings' },
    root_dir = { opts.root_dir, 'function', true },
    capabilities = { opts.capabilities, 'table', true },
    on_attach = { opts.on_attach, 'function', true },
    codelens = { opts.codelens, 'boolean' },
    timeout_ms = { opts.timeout_ms, 'number' },
    open_quickfix = { opts.open_quickfix, 'boolean' },
    keymaps = {
      opts.keymaps,
      function(v)
        if v == false then
          return true
        end
        if type(v) ~= 'table' then
          return false
        end
        for k, lhs in pairs(v) do
          if (k ~= 'hover' and k ~= 'definition') or (lhs ~= false and type(lhs) ~= 'string') then
            return false
          end
        end
        return true
      end,
      "false, or a table { hover = 'K', definition = 'gd' } (a key may be false)",
    },
  })
end

--- Merge `opts` over the defaults, validate, and make the result current.
---@param opts? inductor_ls.Opts
---@return inductor_ls.Opts
function M.set(opts)
  opts = opts or {}
  vim.validate({ opts = { opts, 'table' } })
  local merged = vim.deepcopy(M.defaults)
  for k, v in pairs(opts) do
    if
      M.defaults[k] == nil
      and k ~= 'init_options'
      and k ~= 'python_path'
      and k ~= 'library_paths'
      and k ~= 'root_dir'
      and k ~= 'capabilities'
      and k ~= 'on_attach'
    then
      error(string.format('inductor_ls: unknown option %q', k), 0)
    end
    -- Lists and functions are taken whole; init_options is passed verbatim.
    merged[k] = v
  end
  M.validate(merged)
  current = merged
  M.setup_called = true
  return current
end

--- The `initializationOptions` sent to the server: `init_options`, with `python_path` and `library_paths`
--- as `pythonPath` and `libraryPaths` (an explicit `init_options` field wins).
---@param opts inductor_ls.Opts
---@return table?
function M.init_options(opts)
  local out = vim.deepcopy(opts.init_options or {})
  if opts.python_path and out.pythonPath == nil then
    out.pythonPath = vim.fn.expand(opts.python_path)
  end
  if opts.library_paths and out.libraryPaths == nil then
    out.libraryPaths = opts.library_paths
  end
  if next(out) == nil then
    return nil
  end
  return out
end

---@return inductor_ls.Opts
function M.get()
  return current
end

return M
