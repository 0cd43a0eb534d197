---@brief
--- The client side of `inductor.showPrinterEnv`, the command of the server's code actions on a
--- kernel launch or a user line (run `vim.lsp.buf.code_action()` there): the environment that
--- makes Inductor's intermediate value debug printer print only those kernels, or find the kernel
--- that crashes. Nothing is run: the `NAME=value ...` prefix is shown in a floating window and put in
--- the unnamed register (and `+` when a clipboard is available) to paste before the command line of
--- the run.

local message = require('inductor_ls.message')
local protocol = require('inductor_ls.protocol')

---@param command table The LSP Command; arguments[1] = {title, env, shell, explanation}.
return function(command)
  local arg = protocol.arguments('inductor.showPrinterEnv', command)[1]
  if type(arg) ~= 'table' or type(arg.shell) ~= 'string' then
    message.notify('inductor-ls: malformed inductor.showPrinterEnv arguments', vim.log.levels.ERROR)
    return
  end
  vim.fn.setreg('"', arg.shell)
  if vim.fn.has('clipboard') == 1 then
    pcall(vim.fn.setreg, '+', arg.shell)
  end
  -- Several lines (the title, the prefix, what it does): a floating window, not an echo that would
  -- ask "Press ENTER".
  local lines = { arg.title or 'inductor-ls', '', '  ' .. arg.shell, '' }
  for _, l in ipairs(vim.split(arg.explanation or '', '\n', { plain = true })) do
    if l ~= '' then
      table.insert(lines, l)
    end
  end
  table.insert(lines, '(copied to the unnamed register)')
  message.show(lines, 'inductor_ls_printer_env')
end
