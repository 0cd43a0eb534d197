---@brief
--- `inductor-trace:` buffers: generated code or graphs that exist only inside a trace log.
--- Their text comes from the server (`inductor/artifactContent {uri}` →
--- `{text, languageId}`); the buffer is `buftype=nofile`, read-only and not modifiable,
--- its filetype is the languageId, and the client that served it stays attached so that
--- `gd`, hover and lenses work inside it.
---
--- The read is synchronous on purpose: a jump (`gd`, quickfix) sets the cursor right after
--- loading, so the text must be there when `BufReadCmd` returns.

local config = require('inductor_ls.config')
local lsp = require('inductor_ls.lsp')
local protocol = require('inductor_ls.protocol')
local root = require('inductor_ls.root')
local uri = require('inductor_ls.uri')

local M = {}

--- languageId → filetype.
local filetypes = { python = 'python', cpp = 'cpp', c = 'c' }

--- Clients to ask, most likely first: the one last used, then every other one. With none
--- running, start one rooted where the current directory's traces are (|inductor_ls-root|), if anywhere.
---@return table[]
local function candidates()
  local list, seen = {}, {}
  local last = lsp.last_client_id and vim.lsp.get_client_by_id(lsp.last_client_id)
  if last and last.name == lsp.name then
    table.insert(list, last)
    seen[last.id] = true
  end
  for _, client in ipairs(lsp.clients()) do
    if not seen[client.id] then
      table.insert(list, client)
    end
  end
  if #list == 0 then
    local dir = root.find(vim.fn.getcwd())
    local id = dir and lsp.ensure_client(dir)
    local client = id and vim.lsp.get_client_by_id(id)
    if client then
      table.insert(list, client)
    end
  end
  return list
end

---@param bufnr integer
---@param lines string[]
local function set_lines(bufnr, lines)
  vim.bo[bufnr].modifiable = true
  vim.bo[bufnr].readonly = false
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modified = false
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].readonly = true
end

--- `BufReadCmd` for `*inductor-trace:/*`.
---@param args table autocmd callback argument (`args.buf`)
function M.read(args)
  local bufnr = args.buf
  local name = vim.api.nvim_buf_get_name(bufnr)
  local server_uri = uri.server_uri(name)
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].bufhidden = 'hide'
  if not server_uri then
    set_lines(bufnr, { 'inductor-ls: not an inductor-trace URI: ' .. name })
    return
  end
  local timeout = config.get().timeout_ms
  local last_error = 'no inductor-ls client (no trace in the current directory or above)'
  for _, client in ipairs(candidates()) do
    -- A client still initializing cannot take requests yet; the wait is bounded.
    vim.wait(timeout, function()
      return client.initialized or client:is_stopped()
    end, 20)
    local response, err = protocol.request_sync(client, 'inductor/artifactContent', { uri = server_uri }, timeout, bufnr)
    local result = response and response.result
    if type(result) == 'table' and type(result.text) == 'string' then
      local lines = vim.split(result.text, '\n', { plain = true })
      if lines[#lines] == '' then
        table.remove(lines)
      end
      set_lines(bufnr, lines)
      local filetype = filetypes[result.languageId] or result.languageId
      if filetype and filetype ~= '' then
        vim.bo[bufnr].filetype = filetype
      end
      vim.b[bufnr].inductor_ls_uri = server_uri
      vim.lsp.buf_attach_client(bufnr, client.id)
      lsp.last_client_id = client.id
      return
    end
    last_error = err or (response and response.err and response.err.message) or 'no text'
  end
  set_lines(bufnr, { 'inductor-ls: cannot read ' .. server_uri .. ': ' .. tostring(last_error) })
end

return M
