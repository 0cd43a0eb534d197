-- inductor-ls: user commands, <Plug> mappings and the reader for `inductor-trace:` buffers.
-- Cheap at startup: modules load on first use. Global keymaps are not set: the <Plug>
-- mappings are yours to map (|inductor_ls-mappings|); attached buffers get buffer-local
-- K and gd (|inductor_ls-keymaps|). Attaching buffers starts with setup().
if vim.g.loaded_inductor_ls then
  return
end
vim.g.loaded_inductor_ls = true

-- The IR files Triton writes beside a kernel in its cache (`<kernel>.ttir`, `.ttgir`, `.llir`, `.ptx`):
-- filetypes Neovim does not know by these extensions, so that the client attaches to them (`gd` on an IR
-- line goes back to the kernel line). A filetype already set is kept.
vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
  pattern = { '*.ptx', '*.ttir', '*.ttgir', '*.llir' },
  callback = function(args)
    if vim.bo[args.buf].filetype == '' then
      local ext = vim.fn.fnamemodify(args.file, ':e')
      vim.bo[args.buf].filetype = ({ ptx = 'ptx', ttir = 'mlir', ttgir = 'mlir', llir = 'llvm' })[ext]
    end
  end,
})

vim.api.nvim_create_user_command('Inductor', function(cmd)
  require('inductor_ls.commands').run(cmd.args)
end, {
  nargs = '+',
  desc = 'inductor-ls: kernels | origin | artifacts | compiles | hotlines | compare | ranks | lowered [stage]'
    .. ' | runs [run] | baseline [run] | reindex | status',
  complete = function(arg_lead, cmd_line)
    return require('inductor_ls.commands').complete(arg_lead, cmd_line)
  end,
})
vim.api.nvim_create_user_command('InductorKernels', function()
  require('inductor_ls.commands.kernels')()
end, { desc = 'inductor-ls: launch sites of the kernels from the cursor line (quickfix)' })
vim.api.nvim_create_user_command('InductorCompiles', function(cmd)
  require('inductor_ls.commands.compiles').run(cmd.bang)
end, {
  bang = true,
  desc = 'inductor-ls: compiled frames, graph breaks, recompiles and failures (quickfix; ! = this file, loclist)',
})
vim.api.nvim_create_user_command('InductorOrigin', function()
  require('inductor_ls.commands.origin')()
end, { desc = 'inductor-ls: jump from a kernel to the user source it came from' })

vim.api.nvim_create_user_command('InductorHotLines', function()
  require('inductor_ls.commands.hot_lines')()
end, { desc = 'inductor-ls: user lines by GPU time, from the profiler traces (quickfix)' })

vim.api.nvim_create_user_command('InductorCompare', function()
  require('inductor_ls.commands.compare')()
end, { desc = 'inductor-ls: what changed since the baseline run: events and lines (quickfix)' })

vim.api.nvim_create_user_command('InductorRanks', function()
  require('inductor_ls.commands.ranks')()
end, { desc = 'inductor-ls: where the ranks of a distributed run diverge (quickfix)' })

vim.api.nvim_create_user_command('InductorLowered', function(cmd)
  require('inductor_ls.commands.lowered')(cmd.fargs[1])
end, {
  nargs = '?',
  complete = function()
    return { 'ttir', 'ttgir', 'llir', 'ptx' }
  end,
  desc = "inductor-ls: this Triton kernel line's IR lines (quickfix; [stage]: ttir | ttgir | llir | ptx)",
})

vim.keymap.set('n', '<Plug>(InductorKernels)', function()
  require('inductor_ls.commands.kernels')()
end, { desc = 'inductor-ls: kernels from this line' })
vim.keymap.set('n', '<Plug>(InductorOrigin)', function()
  require('inductor_ls.commands.origin')()
end, { desc = 'inductor-ls: origin of this kernel' })
vim.keymap.set('n', '<Plug>(InductorCompiles)', function()
  require('inductor_ls.commands.compiles').run(false)
end, { desc = 'inductor-ls: compiled frames and their compile health' })
vim.keymap.set('n', '<Plug>(InductorHotLines)', function()
  require('inductor_ls.commands.hot_lines')()
end, { desc = 'inductor-ls: hottest lines (GPU time)' })
vim.keymap.set('n', '<Plug>(InductorArtifacts)', function()
  require('inductor_ls.commands.artifacts')()
end, { desc = 'inductor-ls: open a generated artifact' })

-- One pattern (it holds a '/', so it is matched against the full name too): it covers
-- `inductor-trace:///x` and the `<cwd>/inductor-trace:/x` that Neovim makes of `inductor-trace:/x`.
vim.api.nvim_create_autocmd('BufReadCmd', {
  group = vim.api.nvim_create_augroup('inductor_ls_trace_uri', { clear = true }),
  pattern = '*inductor-trace:/*',
  callback = function(args)
    require('inductor_ls.artifact').read(args)
  end,
  desc = 'inductor-ls: read log-only artifacts through inductor/artifactContent',
})
