-- Kernel internals (issue 30) in Neovim: kernel_ir keeps the Triton cache. From a line of a Triton
-- kernel in output code, :InductorLowered lists its IR lines per stage; `gd` on a PTX line leads back to
-- the kernel line (in the kernel's body), and from there to the model.
local H = require('helpers')

local root = H.fixtures .. '/traces/kernel_ir'

return {
  { ':InductorLowered from a tl.load line lists its TTIR, TTGIR, LLIR and PTX lines; gd on PTX goes back', function()
    local files = vim.fn.glob(root .. '/torch_compile_debug/*/torchinductor/model__0_backward_*/output_code.py', false, true)
    H.ok(#files == 1, 'kernel_ir backward output_code.py not found')
    local _, client = H.open(files[1])
    local kernel_line = H.cursor_to('tmp0 = tl.load(in_ptr0 + (x0), xmask)')
    local qf = H.quickfix_of('InductorLowered', 'Lowered')
    local stages = {}
    local ptx
    for _, item in ipairs(qf.items) do
      local stage = item.text:match('^(%S+)')
      stages[stage] = true
      if stage == 'ptx' and not ptx then
        ptx = item
      end
    end
    H.eq({ llir = true, ptx = true, ttgir = true, ttir = true }, stages, 'stages')
    -- :Inductor lowered [stage] is the same command: one stage, those of its entries.
    vim.cmd('cclose')
    local only = H.quickfix_of('Inductor lowered ptx', 'Lowered (ptx)')
    local ptx_count = 0
    for _, item in ipairs(qf.items) do
      ptx_count = ptx_count + (item.text:match('^ptx ') and 1 or 0)
    end
    for _, item in ipairs(only.items) do
      H.ok(item.text:match('^ptx '), 'not a PTX entry: ' .. item.text)
    end
    H.eq(ptx_count, #only.items, 'PTX entries')
    vim.cmd('cclose')
    H.eq(#qf.items, #H.quickfix_of('Inductor lowered', 'Lowered').items, ':Inductor lowered entries')
    vim.cmd('cclose')
    H.ok(vim.fn.bufname(ptx.bufnr):match('%.ptx$'), 'ptx entry file: ' .. vim.fn.bufname(ptx.bufnr))
    vim.cmd('cclose')
    -- The PTX line leads back to the same statement in the kernel's file in the cache.
    vim.cmd('buffer ' .. ptx.bufnr)
    local bufnr = vim.api.nvim_get_current_buf()
    H.wait('the client on the PTX file', function()
      return require('inductor_ls.lsp').client_for_buffer(bufnr)
    end)
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      position = { line = ptx.lnum - 1, character = ptx.col > 0 and ptx.col - 1 or 0 },
    }
    local defs = H.locations(H.request(client, 'textDocument/definition', params, bufnr))
    H.ok(#defs >= 1, 'no definition from the PTX line')
    local target = vim.fn.readfile(vim.uri_to_fname(defs[1].uri or defs[1].targetUri))
    local range = defs[1].targetSelectionRange or defs[1].range
    H.contains(target[range.start.line + 1], 'tl.load(in_ptr0 + (x0), xmask)', 'the kernel line of the PTX line')
    H.ok(kernel_line > 0, 'kernel line')
    -- And that kernel line (in the kernel's body) leads to the model.
    local kernel_file = vim.uri_to_fname(defs[1].uri or defs[1].targetUri)
    vim.cmd('edit ' .. vim.fn.fnameescape(kernel_file))
    local kbuf = vim.api.nvim_get_current_buf()
    H.wait('the client on the kernel file', function()
      return require('inductor_ls.lsp').client_for_buffer(kbuf)
    end)
    local model = H.locations(H.request(client, 'textDocument/definition', {
      textDocument = { uri = vim.uri_from_bufnr(kbuf) },
      position = { line = range.start.line, character = 4 },
    }, kbuf))
    H.ok(#model >= 1, 'no definition from the kernel line')
    for _, loc in ipairs(model) do
      local fname = vim.uri_to_fname(loc.uri or loc.targetUri)
      H.ok(fname:match('/kernel_ir/model%.py$'), 'not a model line: ' .. fname)
    end
  end },
}
