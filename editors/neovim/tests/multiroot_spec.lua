-- One client per root: other trace cases get their own client; C++ (AOTInductor) wrappers attach too.
local H = require('helpers')
local lsp = require('inductor_ls.lsp')

local function wait_lens_titled(bufnr, what, pattern)
  return H.wait(what, function()
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.command and lens.command.title:match(pattern) then
        return lens
      end
    end
  end)
end

return {
  { 'an AOTInductor C++ wrapper attaches (filetype cpp) with origin lenses', function()
    local case = H.fixtures .. '/traces/aoti_conv'
    local wrapper = vim.fn.glob(case .. '/inductor_cache/**/*.wrapper.cpp', false, true)[1]
    H.ok(wrapper, 'no *.wrapper.cpp under ' .. case)
    local bufnr, client = H.open(wrapper)
    H.eq('cpp', vim.bo.filetype, 'filetype')
    H.eq(case, client.config.root_dir, 'root_dir')
    wait_lens_titled(bufnr, 'a `model.py:LINE` lens in the wrapper', '^model%.py:%d+')
  end },
  { 'a second trace case gets its own client; the first is reused', function()
    local case = H.fixtures .. '/traces/cpu_inductor'
    local bufnr, client = H.open(case .. '/model.py')
    H.eq(case, client.config.root_dir, 'root_dir')
    wait_lens_titled(bufnr, 'a kernel-count lens on cpu_inductor/model.py', '^%d+ kernels?')
    local before = #lsp.clients()
    local _, first = H.open(H.mlp .. '/model.py')
    H.eq(H.mlp, first.config.root_dir, 'root_dir of mlp_train')
    H.eq(before, #lsp.clients(), 'clients after reopening mlp_train')
    local roots = {}
    for _, c in ipairs(lsp.clients()) do
      H.ok(not roots[c.config.root_dir], 'two clients for ' .. c.config.root_dir)
      roots[c.config.root_dir] = true
    end
  end },
}
