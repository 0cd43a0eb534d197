---@brief
--- `:Inductor reindex`: ask the server to re-read its traces (`workspace/executeCommand`
--- `inductor.reindex`). The server refreshes lenses and sends `inductor/status` when done.

local lsp = require('inductor_ls.lsp')
local message = require('inductor_ls.message')
local protocol = require('inductor_ls.protocol')

return function()
  local client = lsp.any_client()
  if not client then
    return
  end
  protocol.execute(client, 'inductor.reindex', {}, function(err)
    if err then
      message.notify('inductor-ls: reindex: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end)
end
