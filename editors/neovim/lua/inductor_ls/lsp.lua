---@brief
--- Starting the inductor-ls client and attaching buffers to it: one client per root,
--- reused. Uses `vim.lsp.start` where it exists (0.8+) and `vim.lsp.start_client` +
--- `vim.lsp.buf_attach_client` on 0.7.
---
--- The client adds nothing the server lacks: it maps settings, negotiates the position
--- encoding, shows code lenses, and implements the client-side commands the server's
--- lenses use (`inductor.showLocations`, `inductor.showLaunchSites`, `inductor.showCompiles`). Compile-health diagnostics
--- reach `vim.diagnostic` through Neovim's own `textDocument/publishDiagnostics` handler.

local config = require('inductor_ls.config')
local protocol = require('inductor_ls.protocol')
local uri = require('inductor_ls.uri')

local M = {}

--- Client name, also the key for `vim.lsp.start` reuse.
M.name = 'inductor_ls'

--- Last `inductor/status` notification per client id: `{indexing, traces, compiles, kernels, launches, errors}`.
---@type table<integer, table>
M.status = {}

--- Id of the client most recently attached to or used from a buffer; `inductor-trace:`
--- buffers opened without context ask it first.
---@type integer?
M.last_client_id = nil

--- Clients that exited, in order: `{client_id, root, code, signal}` (shown by `:checkhealth`).
---@type table[]
M.exits = {}

local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients

--- All running inductor-ls clients.
---@return table[]
function M.clients()
  local list = {}
  for _, client in ipairs(get_clients()) do
    if client.name == M.name and not client:is_stopped() then
      table.insert(list, client)
    end
  end
  return list
end

--- The inductor-ls client attached to `bufnr`, if any.
---@param bufnr integer
---@return table?
function M.client_for_buffer(bufnr)
  if bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  for _, client in ipairs(M.clients()) do
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
  return nil
end

--- Client capabilities: Neovim's own, plus the position encodings we can speak (as
--- nvim-lspconfig's clangd config offers them) and code-lens refresh support.
---@return table
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.general = caps.general or {}
  caps.general.positionEncodings = { 'utf-8', 'utf-16' }
  caps.offsetEncoding = { 'utf-8', 'utf-16' } -- clangd's pre-3.17 spelling.
  caps.workspace = caps.workspace or {}
  caps.workspace.codeLens = { refreshSupport = true }
  -- Compile-health diagnostics: pushed, so that every file with a graph break or recompile is in
  -- vim.diagnostic, not only the buffers Neovim (0.10+) would pull them for.
  if caps.textDocument then
    caps.textDocument.diagnostic = nil
  end
  local user = config.get().capabilities
  if user then
    caps = vim.tbl_deep_extend('force', caps, user)
  end
  return caps
end

--- Lens requests in flight, and buffers asked again meanwhile (bufnr -> true).
local lens_inflight, lens_again = {}, {}

--- Refresh code lenses of `bufnr` (current buffer when nil), from this plugin's client.
--- Not through `vim.lsp.codelens.refresh()`: it drops a refresh asked while one is in flight, so a
--- `workspace/codeLens/refresh` that arrives while the first request still waits for the index (the
--- baseline run is indexed after the current one) would be lost, and the lenses stale. Here a refresh
--- asked meanwhile runs again once the answer is shown.
---@param bufnr? integer
function M.refresh_codelens(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not config.get().codelens or not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local client = M.client_for_buffer(bufnr)
  if not client then
    return
  end
  if lens_inflight[bufnr] then
    lens_again[bufnr] = true
    return
  end
  lens_inflight[bufnr] = true
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  local sent = M.request(client, 'textDocument/codeLens', params, function(err, result, ctx, cfg)
    vim.lsp.codelens.on_codelens(err, result, ctx, cfg)
    lens_inflight[bufnr] = nil
    if lens_again[bufnr] then
      lens_again[bufnr] = nil
      M.refresh_codelens(bufnr)
    end
  end, bufnr)
  if not sent then
    lens_inflight[bufnr] = nil
  end
end

--- Buffers attached to a client (`client.attached_buffers` exists from 0.7 to 0.11;
--- `vim.lsp.get_buffers_by_client_id` is deprecated from 0.11).
---@param client_id integer
---@return integer[]
local function attached_buffers(client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  return client and vim.tbl_keys(client.attached_buffers or {}) or {}
end

--- Handlers of this client only (they do not replace the global `vim.lsp.handlers`).
local handlers = {}

--- `workspace/codeLens/refresh` (server → client request): re-request lenses of every
--- loaded buffer this client is attached to. Must answer `null`.
handlers['workspace/codeLens/refresh'] = function(_, _, ctx)
  vim.schedule(function()
    for _, bufnr in ipairs(attached_buffers(ctx.client_id)) do
      M.refresh_codelens(bufnr)
    end
  end)
  return vim.NIL
end

--- `inductor/status` (notification): keep the counts, announce `User InductorLsStatus`.
--- Kept as `protocol.view` cuts it: the fields this client declares it reads.
handlers['inductor/status'] = function(_, result, ctx)
  result = protocol.view('inductor/status', result, true)
  M.status[ctx.client_id] = result
  if result and result.indexing == false then
    M.labels[ctx.client_id] = nil -- A new index: artifact labels are fetched again.
  end
  vim.schedule(function()
    vim.api.nvim_exec_autocmds('User', { pattern = 'InductorLsStatus', modeline = false })
  end)
end

--- `textDocument/hover`: rendered for the terminal (|inductor_ls.hover|), also when
--- `vim.lsp.buf.hover()` asks this client.
handlers['textDocument/hover'] = function(...)
  return require('inductor_ls.hover').handler(...)
end

--- `window/showMessage`: the server says what went wrong once (no trace found, sources not
--- on this machine, corrupted records). Through vim.notify (so that notification plugins show
--- it) as one line that fits the command line, at the message's level, each text once per
--- session (|inductor_ls.message|: a longer or wrapped message, or two echoed in a row, would
--- stop Neovim with "Press ENTER"). The full text stays in `M.messages` and `:Inductor status`.
handlers['window/showMessage'] = function(_, result, ctx)
  if type(result) ~= 'table' or type(result.message) ~= 'string' then
    return vim.NIL
  end
  table.insert(M.messages, { client_id = ctx.client_id, type = result.type, message = result.message })
  if M.notified[result.message] then
    return vim.NIL
  end
  M.notified[result.message] = true
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  require('inductor_ls.message').notify(result.message, levels[tonumber(result.type) or 3] or vim.log.levels.INFO,
    ':Inductor status')
  return vim.NIL
end

--- Messages the servers showed (window/showMessage), in order: `{client_id, type, message}`.
---@type table[]
M.messages = {}

--- Message texts already notified (each is notified once per session).
---@type table<string, boolean>
M.notified = {}

--- Artifact labels per client: URI → `[0/0] backward · output_code.py` (from
--- `inductor/listArtifacts`), fetched when first needed after each index.
---@type table<integer, table<string, string>>
M.labels = {}

--- The label of an artifact URI (server spelling or buffer spelling), or nil.
---@param client table
---@param target string
---@return string?
function M.label(client, target)
  local labels = M.labels[client.id]
  if not labels then
    labels = {}
    local response = protocol.request_sync(client, 'inductor/listArtifacts', vim.empty_dict(), 2000)
    for _, a in ipairs(response and type(response.result) == 'table' and response.result or {}) do
      local key = uri.to_client(a.uri)
      if labels[key] and a.compile and not labels[key]:find(a.compile, 1, true) then
        labels[key] = labels[key] .. ' (also ' .. a.compile .. ')'
      elseif not labels[key] then
        labels[key] = a.label
      end
    end
    M.labels[client.id] = labels
  end
  return labels[uri.to_client(target)]
end

--- Buffer-local set-up when a client attaches.
---@param client table
---@param bufnr integer
local function on_attach(client, bufnr)
  M.last_client_id = client.id
  local opts = config.get()
  require('inductor_ls.keymaps').attach(bufnr, opts.keymaps)
  if opts.codelens then
    local group = vim.api.nvim_create_augroup('inductor_ls_codelens_' .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
      group = group,
      buffer = bufnr,
      callback = function(args)
        M.refresh_codelens(args.buf)
      end,
    })
    M.refresh_codelens(bufnr)
  end
  vim.api.nvim_create_autocmd('BufEnter', {
    group = vim.api.nvim_create_augroup('inductor_ls_last_' .. bufnr, { clear = true }),
    buffer = bufnr,
    callback = function(args)
      local c = M.client_for_buffer(args.buf)
      if c then
        M.last_client_id = c.id
      end
    end,
  })
  if opts.on_attach then
    opts.on_attach(client, bufnr)
  end
end

--- The client-side commands of the server's lenses and code actions.
M.commands = {
  ['inductor.showLocations'] = function(command, ctx)
    require('inductor_ls.commands.show_locations')(command, ctx)
  end,
  ['inductor.showLaunchSites'] = function(command, ctx)
    require('inductor_ls.commands.show_launch_sites')(command, ctx)
  end,
  ['inductor.showCompiles'] = function(command, ctx)
    require('inductor_ls.commands.compiles').lens(command, ctx)
  end,
  ['inductor.showPrinterEnv'] = function(command)
    require('inductor_ls.commands.printer_env')(command)
  end,
}

--- The client's handlers (they do not replace the global `vim.lsp.handlers`).
M.handlers = handlers

--- `on_init`: the negotiated position encoding (0.7 does not read it itself; later versions
--- do the same), the `inductor-trace:` URI mapping, and signs sorted by severity (`sort_signs`).
---@param client table
---@param result table the `initialize` result
function M.on_init(client, result)
  local encoding = result.offsetEncoding or (result.capabilities and result.capabilities.positionEncoding)
  if encoding then
    client.offset_encoding = encoding
  end
  uri.attach(client)
  M.sort_signs(client)
end

--- Neovim shows one sign per line, and without `severity_sort` every diagnostic's sign has the same
--- priority: the last one placed wins, so a rank divergence (Warning) could hide behind an Info sign
--- on its line. This client's diagnostics are sorted by severity (the highest's sign shows, virtual
--- text lists it first), unless the user's global |vim.diagnostic.config()| already sets
--- `severity_sort` (as `{ reverse = true }` say), which is then kept.
---@param client table
function M.sort_signs(client)
  if vim.diagnostic.config().severity_sort then
    return
  end
  local ok, namespace = pcall(vim.lsp.diagnostic.get_namespace, client.id)
  if ok and namespace then
    vim.diagnostic.config({ severity_sort = true }, namespace)
  end
end

--- `on_attach`: buffer-local `K`/`gd`, code lenses, the user's `on_attach` of setup().
M.on_attach = on_attach

--- Build the client configuration for a root directory (|inductor_ls-root|); `''` is the
--- session server without a folder.
---@param root string
---@return table
function M.make_config(root)
  local opts = config.get()
  local folder = root ~= '' and root or nil
  return {
    name = M.name,
    cmd = opts.cmd,
    root_dir = folder,
    workspace_folders = folder and { { uri = vim.uri_from_fname(folder), name = folder } } or nil,
    inductor_root = root,
    init_options = config.init_options(opts),
    capabilities = M.capabilities(),
    handlers = handlers,
    commands = M.commands,
    on_init = M.on_init,
    on_attach = on_attach,
    on_exit = function(code, signal, client_id)
      M.status[client_id] = nil
      M.labels[client_id] = nil
      table.insert(M.exits, { client_id = client_id, root = root, code = code, signal = signal })
    end,
  }
end

--- The running client for `root`, if any.
---@param root string
---@return table?
function M.client_for_root(root)
  for _, client in ipairs(M.clients()) do
    if client.config.inductor_root == root then
      return client
    end
  end
  return nil
end

--- Start (or reuse) the client for `root` without attaching a buffer.
---@param root string
---@return integer? client_id
function M.ensure_client(root)
  local client = M.client_for_root(root)
  if client then
    return client.id
  end
  if vim.fn.has('nvim-0.11') == 1 then
    return vim.lsp.start(M.make_config(root), { attach = false })
  end
  return vim.lsp.start_client(M.make_config(root))
end

--- Attach `bufnr` to the client for `root`, starting it if needed.
---@param bufnr integer
---@param root string
---@return integer? client_id
function M.attach(bufnr, root)
  if vim.lsp.start then
    return vim.lsp.start(M.make_config(root), {
      bufnr = bufnr,
      reuse_client = function(client, cfg)
        return client.name == cfg.name and client.config.inductor_root == cfg.inductor_root
      end,
    })
  end
  local client_id = M.ensure_client(root)
  if client_id then
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  return client_id
end

--- Position params for the cursor in window `win`, in the client's encoding.
---@param client table
---@param win? integer
---@return table
function M.position_params(client, win)
  return vim.lsp.util.make_position_params(win or 0, client.offset_encoding)
end

--- `client:request` (0.11+) or `client.request` (0.7–0.10).
---@param client table
---@param method string
---@param params table?
---@param handler fun(err: table?, result: any, ctx: table)
---@param bufnr? integer
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- `client:request_sync` (0.11+) or `client.request_sync` (0.7–0.10).
---@param client table
---@param method string
---@param params table?
---@param timeout_ms integer
---@param bufnr? integer
---@return table? response `{err, result}`
---@return string? err
function M.request_sync(client, method, params, timeout_ms, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request_sync(method, params, timeout_ms, bufnr)
  end
  return client.request_sync(method, params, timeout_ms, bufnr)
end

--- Whether `bufnr` is a file this plugin would attach if a root were above it.
---@param bufnr integer
---@return boolean
local function attachable(bufnr)
  return vim.api.nvim_buf_get_name(bufnr) ~= '' and vim.bo[bufnr].buftype == ''
    and vim.tbl_contains(config.get().filetypes, vim.bo[bufnr].filetype)
end

--- Why buffer `bufnr` has no inductor-ls client, in one sentence: for a file, that no trace is above
--- it, and where the help says how to make one (|inductor_ls-root|).
---@param bufnr integer
---@return string
function M.why_no_client(bufnr)
  if not attachable(bufnr == 0 and vim.api.nvim_get_current_buf() or bufnr) then
    return 'inductor-ls: no inductor-ls client attached to this buffer'
  end
  -- Short enough for an 80-column command line; the help says how to make a trace (TORCH_TRACE).
  return 'inductor-ls: no trace above this file (:help inductor_ls-root)'
end

--- For commands about the index rather than a buffer (status, reindex, artifacts): the current
--- buffer's client; from a buffer no client could serve (a help page, a listing), the one last used,
--- else any. Without one, or from a file with no trace above it, says why (`why_no_client`): another
--- root's index would not be this file's.
---@return table? client
function M.any_client()
  local client = M.client_for_buffer(0)
  if not client and not attachable(vim.api.nvim_get_current_buf()) then
    local last = M.last_client_id and vim.lsp.get_client_by_id(M.last_client_id)
    client = (last and last.name == M.name and not last:is_stopped()) and last or M.clients()[1]
  end
  if not client then
    require('inductor_ls.message').notify(M.why_no_client(0), vim.log.levels.WARN)
  end
  return client
end

--- The inductor-ls client for the current buffer, or an error message.
---@return table? client
function M.require_client()
  local client = M.client_for_buffer(0)
  if not client then
    require('inductor_ls.message').notify(M.why_no_client(0), vim.log.levels.WARN)
    return nil
  end
  M.last_client_id = client.id
  return client
end

return M
