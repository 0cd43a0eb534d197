-- inductor-ls for Neovim 0.11 and later, in the `vim.lsp.config` format: with this plugin's
-- directory on 'runtimepath', `vim.lsp.enable('inductor_ls')` starts the server, and
-- `vim.lsp.config('inductor_ls', { cmd = { '/path/to/inductor-ls' }, init_options = { ... } })`
-- changes what you need (see |inductor_ls-0.11|). Use it instead of `require('inductor_ls').setup()`,
-- not beside it: once setup() ran, buffers are attached by setup() and this config attaches none.
--
-- Roots: a buffer attaches only where a trace is (|inductor_ls-root|): the nearest folder above
-- its file that holds a `dedicated_log_torch_trace*.log` (what TORCH_TRACE writes), a `trace/`
-- folder holding one, or a `torch_compile_debug/` folder (TORCH_COMPILE_DEBUG=1) is the root of
-- its server. Without one, a Python or C++ file gets no server, unless `init_options.traceDirs`
-- names the traces: then the files under the current directory share a server rooted there.
--
-- Not run by the tests of this repository: they use Debian's Neovim 0.7.2, which has no
-- `vim.lsp.config`; they load this file and check its table and its root_dir on folders with
-- and without a trace (tests/lsp_config_spec.lua).

local lsp = require('inductor_ls.lsp')
local root = require('inductor_ls.root')

--- `init_options.traceDirs` of the resolved config (`vim.lsp.config('inductor_ls', ...)`), or nil.
---@return string[]?
local function configured_trace_dirs()
  local ok, cfg = pcall(function()
    return vim.lsp.config and vim.lsp.config.inductor_ls
  end)
  local dirs = ok and type(cfg) == 'table' and type(cfg.init_options) == 'table' and cfg.init_options.traceDirs
  return type(dirs) == 'table' and #dirs > 0 and dirs or nil
end

return {
  cmd = { 'inductor-ls' },
  filetypes = { 'python', 'c', 'cpp', 'ptx', 'mlir', 'llvm' },
  --- Calls `on_dir(root)` only where a trace is (see above); a buffer it does not call it for
  --- gets no inductor-ls client.
  ---@param bufnr integer
  ---@param on_dir fun(root: string)
  root_dir = function(bufnr, on_dir)
    if require('inductor_ls.config').setup_called then
      return
    end
    local found = root.trace_root_for_buffer(bufnr)
    if found then
      return on_dir(found)
    end
    local name = vim.api.nvim_buf_get_name(bufnr)
    local cwd = vim.fn.getcwd()
    if configured_trace_dirs() and name ~= '' and cwd ~= '/' and root.inside(name, cwd) then
      return on_dir((vim.fn.fnamemodify(cwd, ':p'):gsub('(.)/$', '%1')))
    end
  end,
  -- Optional, sent verbatim as initializationOptions (the README's settings table):
  -- init_options = { traceDirs = { 'trace' }, pathMappings = { { from = '/tmp/work', to = '/home/me/work' } } },
  capabilities = lsp.capabilities(),
  handlers = lsp.handlers,
  commands = lsp.commands,
  on_init = lsp.on_init,
  on_attach = lsp.on_attach,
  on_exit = function(_, _, client_id)
    lsp.status[client_id] = nil
    lsp.labels[client_id] = nil
  end,
}
