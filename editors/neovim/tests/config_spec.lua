-- Options: defaults, merge, validation; root detection (no server needed).
local H = require('helpers')
local config = require('inductor_ls.config')
local root = require('inductor_ls.root')

return {
  { 'defaults are documented values', function()
    H.eq({ 'inductor-ls' }, config.defaults.cmd, 'default cmd')
    H.eq({ 'python', 'c', 'cpp', 'ptx', 'mlir', 'llvm' }, config.defaults.filetypes, 'default filetypes')
    H.eq(nil, config.defaults.init_options, 'default init_options')
  end },
  { 'invalid options are rejected with the field name', function()
    local saved = config.get()
    local ok, err = pcall(config.set, { cmd = 'inductor-ls' })
    H.ok(not ok, 'cmd as a string was accepted')
    H.contains(tostring(err), 'cmd', 'error message')
    ok, err = pcall(config.set, { cmdd = { 'x' } })
    H.ok(not ok, 'unknown option was accepted')
    H.contains(tostring(err), 'cmdd', 'error message')
    config.set(saved)
  end },
  { 'init_options pass through verbatim', function()
    local saved = config.get()
    local init = { traceDirs = { '/a' }, pathMappings = { { from = '/tmp/work', to = '/x' } } }
    config.set(vim.tbl_extend('force', saved, { init_options = init }))
    H.eq(init, require('inductor_ls.lsp').make_config('/r').init_options, 'init_options')
    config.set(saved)
  end },
  { 'python_path and library_paths become pythonPath and libraryPaths', function()
    local saved = config.get()
    config.set(vim.tbl_extend('force', saved, { python_path = '/venv/bin/python', library_paths = { '**/timm/**' } }))
    local init = require('inductor_ls.lsp').make_config('/r').init_options
    H.eq('/venv/bin/python', init.pythonPath, 'pythonPath')
    H.eq({ '**/timm/**' }, init.libraryPaths, 'libraryPaths')
    local ok = pcall(config.set, { python_path = 3 })
    H.ok(not ok, 'python_path as a number was accepted')
    config.set(saved)
  end },
  { 'capabilities offer utf-8 and utf-16 and lens refresh', function()
    local caps = require('inductor_ls.lsp').capabilities()
    H.eq({ 'utf-8', 'utf-16' }, caps.general.positionEncodings, 'general.positionEncodings')
    H.eq({ 'utf-8', 'utf-16' }, caps.offsetEncoding, 'offsetEncoding')
    H.eq(true, caps.workspace.codeLens.refreshSupport, 'workspace.codeLens.refreshSupport')
  end },
  { 'root: trace case folder for model.py and for output code', function()
    H.eq(H.mlp, root.find(H.mlp .. '/model.py'), 'root of model.py')
    H.eq(H.mlp, root.find(H.forward_output_code()), 'root of output_code.py')
  end },
  { 'root: without trace markers, none (no server), whatever .git says; with traceDirs, the session root', function()
    local tmp = vim.fn.resolve(vim.fn.tempname())
    vim.fn.mkdir(tmp .. '/repo/.git', 'p')
    vim.fn.mkdir(tmp .. '/repo/src', 'p')
    vim.fn.mkdir(tmp .. '/plain', 'p')
    H.eq(nil, root.find(tmp .. '/repo/src/x.py'), 'root under .git')
    H.eq(nil, root.find(tmp .. '/plain/x.py'), 'root without markers')
    H.eq(nil, root.find_trace_root(tmp .. '/plain/x.py'), 'trace root without markers')
    -- traceDirs name the traces: the files under the session's folder share its server; others get none.
    local saved, session, cwd = config.get(), root._session, vim.fn.getcwd()
    config.set(vim.tbl_extend('force', saved, { init_options = { traceDirs = { '/elsewhere/trace' } } }))
    vim.cmd('cd ' .. vim.fn.fnameescape(tmp .. '/repo'))
    root._session = nil
    H.eq(tmp .. '/repo', root.find(tmp .. '/repo/src/x.py'), 'root under the current directory, with traceDirs')
    H.eq(nil, root.find(tmp .. '/plain/x.py'), 'root outside the current directory, with traceDirs')
    vim.cmd('cd ' .. vim.fn.fnameescape(cwd))
    root._session = session
    config.set(saved)
    -- A trace log appearing makes a trace root.
    vim.fn.mkdir(tmp .. '/plain/trace', 'p')
    vim.fn.writefile({}, tmp .. '/plain/trace/dedicated_log_torch_trace_x.log')
    H.eq(tmp .. '/plain', root.find(tmp .. '/plain/x.py'), 'root once a trace is there')
    vim.fn.delete(tmp, 'rf')
  end },
  { 'root: the session has no folder when started from $HOME or /', function()
    local saved, cwd = root._session, vim.fn.getcwd()
    root._session = nil
    vim.cmd('cd ' .. vim.fn.fnameescape(vim.env.HOME))
    H.eq(root.NO_FOLDER, root.session(), 'session root from $HOME')
    root._session = nil
    vim.cmd('cd /')
    H.eq(root.NO_FOLDER, root.session(), 'session root from /')
    vim.cmd('cd ' .. vim.fn.fnameescape(cwd))
    root._session = saved
    H.eq(nil, require('inductor_ls.lsp').make_config(root.NO_FOLDER).workspace_folders, 'no workspace folder')
  end },
  { 'keymaps option: validated, defaults K and gd', function()
    H.eq({ hover = 'K', definition = 'gd' }, config.defaults.keymaps, 'default keymaps')
    local saved = config.get()
    H.ok(pcall(config.set, { keymaps = false }), 'keymaps = false accepted')
    H.ok(pcall(config.set, { keymaps = { hover = '<leader>K', definition = false } }), 'one key off accepted')
    local ok, err = pcall(config.set, { keymaps = { hover = 1 } })
    H.ok(not ok, 'keymaps.hover = 1 accepted')
    H.contains(tostring(err), 'keymaps', 'error message')
    ok = pcall(config.set, { keymaps = { hoover = 'K' } })
    H.ok(not ok, 'unknown key accepted')
    config.set(saved)
  end },
  { 'uri: inductor-trace spellings map both ways', function()
    local uri = require('inductor_ls.uri')
    local server = 'inductor-trace:/dedicated_log_torch_trace_abc.log/147/0_0_0-forward-output_code.py'
    local client = 'inductor-trace:///dedicated_log_torch_trace_abc.log/147/0_0_0-forward-output_code.py'
    H.eq(client, uri.to_client(server), 'to_client')
    H.eq(client, uri.to_client(client), 'to_client is idempotent')
    H.eq(server, uri.server_uri(client), 'server_uri of the buffer spelling')
    H.eq(server, uri.server_uri('/home/u/' .. server), 'server_uri of an expanded buffer name')
    H.eq(server, uri.server_uri(vim.uri_from_fname('/home/u/' .. server)), 'server_uri of file://…')
    H.eq(nil, uri.server_uri('/home/u/model.py'), 'server_uri of a plain file')
    local params = uri.params_to_server({ textDocument = { uri = client }, x = vim.empty_dict() })
    H.eq(server, params.textDocument.uri, 'params_to_server')
    H.ok(getmetatable(params.x) == getmetatable(vim.empty_dict()), 'empty_dict metatable kept')
  end },
}
