-- Headless test runner: loads the plugin from editors/neovim, runs every
-- tests/*_spec.lua (each returns a list of {name, fn}) in one Neovim, in file order,
-- prints one line per case, and exits non-zero (:cquit 1) when any case failed.
-- Usage: nvim --headless --clean -u NONE -c 'set rtp+=editors/neovim' -c 'luafile editors/neovim/tests/run.lua'
local tests_dir = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
package.path = tests_dir .. '/?.lua;' .. package.path

local function out(line)
  io.stdout:write(line .. '\n')
  io.stdout:flush()
end

local ok_setup, setup_err = pcall(function()
  vim.cmd('filetype on')
  vim.cmd('runtime! plugin/inductor_ls.lua')
  local H = require('helpers')
  local repo = H.repo
  local bin = vim.env.INDUCTOR_LS or (repo .. '/build/inductor-ls')
  require('inductor_ls').setup({ cmd = { bin } })
end)
if not ok_setup then
  out('FAIL setup: ' .. tostring(setup_err))
  vim.cmd('cquit 1')
end

-- Every message the plugin shows must fit on one line of the command line: a line break, or a text as
-- wide as `v:echospace`, stops Neovim with "Press ENTER" (which headless Neovim never shows). Such a
-- message fails the case during which it was shown.
local blocking = {}
local notify = vim.notify
vim.notify = function(msg, level, opts)
  if type(msg) ~= 'string' or msg:find('\n', 1, true) or vim.fn.strdisplaywidth(msg) >= vim.v.echospace then
    table.insert(blocking, msg)
  end
  return notify(msg, level, opts)
end

local only = vim.env.INDUCTOR_TEST_FILTER
local failures, passed = {}, 0
local started = vim.loop.hrtime()
for _, file in ipairs(vim.fn.sort(vim.fn.glob(tests_dir .. '/*_spec.lua', false, true))) do
  local spec_name = vim.fn.fnamemodify(file, ':t:r')
  local ok_load, cases = pcall(dofile, file)
  if not ok_load then
    table.insert(failures, spec_name .. ': ' .. tostring(cases))
    out('FAIL ' .. spec_name .. ' (load): ' .. tostring(cases))
    cases = {}
  end
  for _, case in ipairs(cases) do
    local name = spec_name .. ': ' .. case[1]
    if not only or name:find(only, 1, true) then
      local t0 = vim.loop.hrtime()
      local ok, err = xpcall(case[2], function(e)
        return vim.env.INDUCTOR_TEST_TRACEBACK and debug.traceback(tostring(e), 2) or tostring(e)
      end)
      vim.wait(10) -- messages the case scheduled (|inductor_ls.message| shows them in the next tick)
      if ok and #blocking > 0 then
        ok, err = false, 'a message that asks "Press ENTER" (v:echospace ' .. vim.v.echospace .. '): '
          .. vim.inspect(blocking)
      end
      blocking = {}
      local ms = math.floor((vim.loop.hrtime() - t0) / 1e6)
      if ok then
        passed = passed + 1
        out(string.format('ok   %s (%d ms)', name, ms))
      else
        table.insert(failures, name .. ': ' .. tostring(err))
        out(string.format('FAIL %s (%d ms)\n     %s', name, ms, tostring(err):gsub('\n', '\n     ')))
      end
      -- Leave no state behind that the next case could mistake for its own result.
      pcall(vim.cmd, 'silent! cclose')
      require('helpers').close_floats()
    end
  end
end

out(string.format('%d passed, %d failed in %.1f s', passed, #failures,
  (vim.loop.hrtime() - started) / 1e9))
for _, client in ipairs(require('inductor_ls.lsp').clients()) do
  vim.lsp.stop_client(client.id)
end
if #failures > 0 then
  vim.cmd('cquit 1')
end
vim.cmd('qall!')
