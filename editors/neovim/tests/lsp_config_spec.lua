-- lsp/inductor_ls.lua, the Neovim 0.11 `vim.lsp.config` file. Debian's Neovim 0.7.2 has no vim.lsp.config or
-- vim.lsp.enable: the file is loaded with dofile, and its table and its root_dir checked on folders made here
-- with and without a trace. Its use by a real 0.11 is not tested.
local H = require('helpers')

local file = H.repo .. '/editors/neovim/lsp/inductor_ls.lua'

--- A fresh folder with `files` (paths relative to it; a trailing `/` makes a folder).
local function tree(files)
  local dir = vim.fn.fnamemodify(vim.fn.tempname(), ':p'):gsub('/$', '')
  vim.fn.mkdir(dir, 'p')
  for _, f in ipairs(files) do
    if f:sub(-1) == '/' then
      vim.fn.mkdir(dir .. '/' .. f, 'p')
    else
      vim.fn.mkdir(vim.fn.fnamemodify(dir .. '/' .. f, ':h'), 'p')
      vim.fn.writefile({ '' }, dir .. '/' .. f)
    end
  end
  return vim.fn.resolve(dir)
end

--- What root_dir says for a buffer of `path` (not loaded, so nothing attaches it): the root it
--- passes to on_dir, or false when it calls on_dir not at all.
local function root_of(cfg, path)
  local bufnr = vim.fn.bufadd(path)
  local got = false
  local calls = 0
  cfg.root_dir(bufnr, function(dir)
    got = dir
    calls = calls + 1
  end)
  vim.api.nvim_buf_delete(bufnr, { force = true })
  H.ok(calls <= 1, 'on_dir called ' .. calls .. ' times for ' .. path)
  return got
end

--- Run `fn` as a user of `vim.lsp.enable` (setup() never called), with `vim.lsp.config` standing in for 0.11's
--- resolved config when `resolved` is given, and the current directory `cwd`.
local function as_enable_user(resolved, cwd, fn)
  local config = require('inductor_ls.config')
  local saved_called, saved_config, saved_cwd = config.setup_called, vim.lsp.config, vim.fn.getcwd()
  config.setup_called = false
  vim.lsp.config = resolved and { inductor_ls = resolved } or nil
  if cwd then
    vim.cmd('cd ' .. vim.fn.fnameescape(cwd))
  end
  local ok, err = pcall(fn)
  config.setup_called, vim.lsp.config = saved_called, saved_config
  vim.cmd('cd ' .. vim.fn.fnameescape(saved_cwd))
  if not ok then
    error(err, 0)
  end
end

return {
  { 'lsp/inductor_ls.lua is a vim.lsp.config table: cmd, filetypes, root_dir, capabilities, handlers, commands', function()
    H.ok(vim.fn.filereadable(file) == 1, file .. ' missing')
    local cfg = dofile(file)
    H.eq({ 'inductor-ls' }, cfg.cmd, 'cmd')
    H.eq({ 'python', 'c', 'cpp', 'ptx', 'mlir', 'llvm' }, cfg.filetypes, 'filetypes')
    H.eq('function', type(cfg.root_dir), 'root_dir')
    H.eq({ 'utf-8', 'utf-16' }, cfg.capabilities.general.positionEncodings, 'position encodings')
    H.eq(true, cfg.capabilities.workspace.codeLens.refreshSupport, 'code lens refresh')
    H.ok(cfg.capabilities.textDocument and cfg.capabilities.textDocument.hover, "Neovim's own capabilities kept")
    for _, method in ipairs({ 'textDocument/hover', 'window/showMessage', 'inductor/status', 'workspace/codeLens/refresh' }) do
      H.eq('function', type(cfg.handlers[method]), 'handler ' .. method)
    end
    for _, command in ipairs({ 'inductor.showLocations', 'inductor.showLaunchSites', 'inductor.showCompiles', 'inductor.showPrinterEnv' }) do
      H.eq('function', type(cfg.commands[command]), 'client command ' .. command)
    end
    H.eq('function', type(cfg.on_init), 'on_init')
    H.eq('function', type(cfg.on_attach), 'on_attach')
    H.eq(nil, cfg.init_options, 'init_options (absent: the server discovers traces under the root)')
  end },
  { 'root_dir: a buffer attaches under a trace (log, trace/ with a log, torch_compile_debug/), nowhere else', function()
    local cfg = dofile(file)
    H.ok(#vim.fn.glob('/tmp/dedicated_log_torch_trace*.log', false, true) == 0, 'a trace log in /tmp itself')
    local log_dir = tree({ 'dedicated_log_torch_trace_rank_0_ab12cd.log', 'pkg/sub/model.py' })
    local trace_dir = tree({ 'trace/dedicated_log_torch_trace_x1.log', 'train.py' })
    local debug_dir = tree({ 'torch_compile_debug/run_1/torchinductor/model__0_forward_1.0/output_code.py', 'model.py' })
    local plain = tree({ 'proj/model.py', 'proj/trace/notes.txt', 'proj/torch_compile_debug.txt' })
    as_enable_user(nil, nil, function()
      H.eq(log_dir, root_of(cfg, log_dir .. '/pkg/sub/model.py'), 'a log above the file')
      H.eq(trace_dir, root_of(cfg, trace_dir .. '/train.py'), 'a trace/ folder holding a log')
      H.eq(debug_dir, root_of(cfg, debug_dir .. '/model.py'), 'torch_compile_debug/ beside the file')
      H.eq(debug_dir,
        root_of(cfg, debug_dir .. '/torch_compile_debug/run_1/torchinductor/model__0_forward_1.0/output_code.py'),
        'output code inside torch_compile_debug/')
      H.eq(false, root_of(cfg, plain .. '/proj/model.py'), 'a project without a trace')
      H.eq(false, root_of(cfg, '/usr/lib/python3/dist-packages/some_module.py'), 'a file elsewhere on the machine')
    end)
    -- An inductor-trace: buffer is the plugin's BufReadCmd's to attach.
    as_enable_user(nil, nil, function()
      H.eq(false, root_of(cfg, 'inductor-trace:///x/output_code.py'), 'inductor-trace: URI')
    end)
  end },
  { 'root_dir: with traceDirs configured, files under the current directory attach there', function()
    local cfg = dofile(file)
    local proj = tree({ 'src/model.py' })
    local other = tree({ 'model.py' })
    as_enable_user({ init_options = { traceDirs = { '/data/traces/run42' } } }, proj, function()
      H.eq(proj, root_of(cfg, proj .. '/src/model.py'), 'a file under the current directory')
      H.eq(false, root_of(cfg, other .. '/model.py'), 'a file outside it')
    end)
    as_enable_user({ init_options = { traceDirs = {} } }, proj, function()
      H.eq(false, root_of(cfg, proj .. '/src/model.py'), 'empty traceDirs')
    end)
  end },
  { 'root_dir attaches nothing once setup() ran (setup() attaches those buffers itself)', function()
    local cfg = dofile(file)
    H.ok(require('inductor_ls.config').setup_called, 'the runner called setup()')
    H.eq(false, root_of(cfg, H.mlp .. '/model.py'), 'a file under a trace, with setup()')
  end },
}
