---@brief
--- `:Inductor artifacts`: every generated artifact the server knows
--- (`inductor/listArtifacts`), picked with `vim.ui.select` and opened; log-only ones open
--- as `inductor-trace:` buffers.

local lsp = require('inductor_ls.lsp')

return function()
  local client = lsp.require_client() or lsp.clients()[1]
  if not client then
    return
  end
  lsp.request(client, 'inductor/listArtifacts', vim.empty_dict(), function(err, result)
    if err or type(result) ~= 'table' or #result == 0 then
      vim.notify('inductor-ls: no artifacts' .. (err and (': ' .. (err.message or '')) or ''), vim.log.levels.INFO)
      return
    end
    vim.ui.select(result, {
      prompt = 'Inductor artifacts',
      format_item = function(a)
        return string.format('%s  [%s %s rank %s] %s', a.title or '', a.compileId or '?', a.graphKind or '', tostring(a.rank or 0), a.kind or '')
      end,
    }, function(choice)
      if not choice then
        return
      end
      local bufnr = vim.uri_to_bufnr(choice.uri)
      vim.api.nvim_set_current_buf(bufnr)
    end)
  end)
end
