---@brief
--- `:InductorOrigin` (`:Inductor origin`): from a kernel (launch, definition, or name in
--- the kernel source) or an FX node in a graph dump, jump to the user source line(s) it
--- came from (`textDocument/definition` on the inductor-ls client only).

local lsp = require('inductor_ls.lsp')
local locations = require('inductor_ls.locations')
local message = require('inductor_ls.message')

return function()
  local client = lsp.require_client()
  if not client then
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  lsp.request(client, 'textDocument/definition', lsp.position_params(client), function(err, result)
    if err then
      message.notify('inductor-ls: definition: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    locations.show(locations.normalize(result), client.offset_encoding, 'Origin of ' .. vim.fn.expand('<cword>'), client)
  end, bufnr)
end
