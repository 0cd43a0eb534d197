---@brief
--- `:checkhealth inductor_ls`: Neovim version, options, the server binary, running clients.

local M = {}

-- 0.10+: vim.health.start/ok/…; 0.8–0.9: vim.health.report_*; 0.7: health#report_*.
local health = vim.health or {}
local function report(kind)
  return health[kind] or health['report_' .. kind] or function(msg, advice)
    if advice then
      vim.fn['health#report_' .. kind](msg, advice)
    else
      vim.fn['health#report_' .. kind](msg)
    end
  end
end
local start, ok, warn, err, info = report('start'), report('ok'), report('warn'), report('error'), report('info')

function M.check()
  start('inductor_ls')
  if vim.fn.has('nvim-0.7.2') == 1 then
    ok('Neovim ' .. tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch)
  else
    err('Neovim 0.7.2 or newer is required')
  end

  local config = require('inductor_ls.config')
  local opts = config.get()
  if config.setup_called then
    ok('setup() called; filetypes: ' .. table.concat(opts.filetypes, ', '))
  else
    warn("setup() not called: buffers are attached only by vim.lsp.enable('inductor_ls') (Neovim 0.11+, "
      .. 'lsp/inductor_ls.lua, under a folder holding a trace)', { "require('inductor_ls').setup({})" })
  end
  local valid, msg = pcall(config.validate, opts)
  if valid then
    ok('options are valid')
  else
    err('invalid options: ' .. tostring(msg))
  end

  local exe = opts.cmd[1]
  if vim.fn.executable(exe) == 1 then
    local version = vim.fn.system({ exe, '--version' })
    if vim.v.shell_error == 0 then
      ok(string.format('%s: %s', vim.fn.exepath(exe), vim.trim(version)))
    else
      warn(string.format('%s --version failed (exit %d): %s', exe, vim.v.shell_error, vim.trim(version)))
    end
  else
    err(string.format('server binary %q not found or not executable', exe), {
      'build it, from a clone of inductor-ls: bash scripts/build.sh inductor-ls',
      "point opts.cmd at it: require('inductor_ls').setup({ cmd = { '/path/to/inductor-ls' } })",
    })
  end

  local lsp = require('inductor_ls.lsp')
  local clients = lsp.clients()
  if #clients == 0 then
    info('no inductor-ls client running')
  end
  for _, exit in ipairs(lsp.exits) do
    local report_exit = (exit.code == 0 and exit.signal == 0) and info or warn
    report_exit(string.format('client %d (root %s) exited: code %s, signal %s', exit.client_id, exit.root,
      tostring(exit.code), tostring(exit.signal)))
  end
  for _, client in ipairs(clients) do
    local s = lsp.status[client.id]
    local counts = s and string.format('%s%d traces, %d compiles, %d kernels, %d launches, %d errors',
      s.indexing and 'indexing; ' or '', s.traces or 0, s.compiles or 0, s.kernels or 0, s.launches or 0, s.errors or 0)
      or 'no inductor/status yet'
    ok(string.format('client %d: root %s, position encoding %s, %s', client.id, client.config.root_dir or '(session, no folder)',
      client.offset_encoding or '?', counts))
    if s and (s.errors or 0) > 0 then
      warn(string.format('client %d: the server reports %d trace errors (see its log: --log-file)', client.id, s.errors))
    end
  end
end

return M
