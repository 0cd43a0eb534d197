---@brief
--- Buffer-local `K` and `gd` for buffers attached to inductor-ls (|inductor_ls-keymaps|).
---
--- Neovim 0.7–0.9 map neither to the LSP (`K` runs 'keywordprg', pydoc for Python; `gd` is
--- Vim's search for a local declaration), and later versions send `K` to every server on
--- the buffer. These ask inductor-ls first:
---  * `K`: the inductor-ls hover (kernels of a model line, a kernel's origins and FX nodes),
---    rendered by |inductor_ls.hover|, at the cursor, else of the line; where inductor-ls has
---    nothing, the LSP hover (`vim.lsp.buf.hover()`: other servers' hover, else Neovim's
---    one-line "No information available"), never 'keywordprg'.
---  * `gd`: the origin of the kernel or FX node under the cursor (one: jump; several: the
---    quickfix list); where inductor-ls has nothing, the other servers' definition, else the
---    built-in `gd`.
--- Set `keymaps = false` in setup() to map nothing, or `keymaps = { hover = '<leader>K' }`
--- for other keys (`false` for one of them). A buffer-local mapping the user made before
--- the client attached is kept; mappings made in `on_attach` replace these.

local M = {}

--- Other language clients attached to `bufnr` (pyright, clangd…).
---@param bufnr integer
---@param own_id integer
---@return boolean
local function others_attached(bufnr, own_id)
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(clients) do
    if client.id ~= own_id then
      return true
    end
  end
  return false
end

--- The built-in behaviour of a key, without mappings.
local function builtin(keys)
  pcall(vim.cmd, 'normal! ' .. vim.v.count1 .. keys)
end

--- The inductor-ls hover at `params`; `done(shown)` says whether it showed one.
local function inductor_hover(client, params, bufnr, done)
  local lsp = require('inductor_ls.lsp')
  lsp.request(client, 'textDocument/hover', params, function(err, result, ctx)
    done(not err and result and result.contents and require('inductor_ls.hover').handler(err, result, ctx) and true
      or false)
  end, bufnr)
end

--- `K`: the inductor-ls hover at the cursor; off a kernel name (in generated code, a launch's
--- arguments or the space around it), the hover of the line (at its first non-blank
--- character: the launch or definition the line starts with); where inductor-ls has neither
--- (a model line without kernels), the LSP hover (`vim.lsp.buf.hover()`: other servers, or
--- Neovim's one-line "No information available"), never 'keywordprg' (pydoc in a new window).
---@param bufnr integer
function M.hover(bufnr)
  local lsp = require('inductor_ls.lsp')
  local client = lsp.client_for_buffer(bufnr)
  if not client then
    return builtin('K')
  end
  local params = lsp.position_params(client)
  local win = vim.api.nvim_get_current_win()
  inductor_hover(client, params, bufnr, function(shown)
    if shown then
      return
    end
    local function fallback()
      if vim.api.nvim_get_current_win() == win and vim.api.nvim_get_current_buf() == bufnr then
        M.lsp_hover(bufnr, client.id)
      end
    end
    local line = vim.api.nvim_buf_get_lines(bufnr, params.position.line, params.position.line + 1, false)[1] or ''
    local first = (line:find('%S') or 1) - 1
    if first == params.position.character or not line:find('%S') then
      return fallback()
    end
    local at_line = vim.deepcopy(params)
    -- Indentation is ASCII: its byte count is the position in every encoding.
    at_line.position.character = first
    inductor_hover(client, at_line, bufnr, function(shown_line)
      if not shown_line then
        fallback()
      end
    end)
  end)
end

--- The LSP hover of the cursor: `vim.lsp.buf.hover()` where other servers are attached;
--- with inductor-ls alone, which has nothing here, what Neovim says then, on one line.
---@param bufnr integer
---@param own_id integer
function M.lsp_hover(bufnr, own_id)
  if others_attached(bufnr, own_id) then
    vim.lsp.buf.hover()
  else
    vim.notify('No information available', vim.log.levels.INFO)
  end
end

--- `gd`.
---@param bufnr integer
function M.definition(bufnr)
  local lsp = require('inductor_ls.lsp')
  local locations = require('inductor_ls.locations')
  local client = lsp.client_for_buffer(bufnr)
  if not client then
    return builtin('gd')
  end
  local word = vim.fn.expand('<cword>')
  lsp.request(client, 'textDocument/definition', lsp.position_params(client), function(err, result)
    local locs = err and {} or locations.normalize(result)
    if #locs > 0 then
      locations.show(locs, client.offset_encoding, 'Origin of ' .. word, client)
    elseif others_attached(bufnr, client.id) then
      vim.lsp.buf.definition()
    else
      builtin('gd')
    end
  end, bufnr)
end

--- Whether `lhs` already has a buffer-local normal-mode mapping in `bufnr`.
local function mapped(bufnr, lhs)
  return vim.api.nvim_buf_call(bufnr, function()
    local m = vim.fn.maparg(lhs, 'n', false, true)
    return type(m) == 'table' and m.buffer == 1
  end)
end

--- Set the buffer-local mappings of `keymaps` (the option) on `bufnr`.
---@param bufnr integer
---@param keymaps table|boolean
function M.attach(bufnr, keymaps)
  if keymaps == false then
    return
  end
  keymaps = type(keymaps) == 'table' and keymaps or {}
  local defs = {
    { keymaps.hover == nil and 'K' or keymaps.hover, M.hover, 'inductor-ls: kernels and origins (hover)' },
    { keymaps.definition == nil and 'gd' or keymaps.definition, M.definition, 'inductor-ls: go to origin' },
  }
  for _, def in ipairs(defs) do
    local lhs, fn, desc = def[1], def[2], def[3]
    if lhs and not (vim.b[bufnr].inductor_ls_keymaps or {})[lhs] and not mapped(bufnr, lhs) then
      vim.keymap.set('n', lhs, function()
        fn(bufnr)
      end, { buffer = bufnr, desc = desc })
      local set = vim.b[bufnr].inductor_ls_keymaps or {}
      set[lhs] = true
      vim.b[bufnr].inductor_ls_keymaps = set
    end
  end
end

return M
