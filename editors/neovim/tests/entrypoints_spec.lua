-- The user's entry points (issue 41) in Neovim: decode_lib's model.py only calls transformers' generate(),
-- which compiles the library's own forward; the call line gets a lens and a hover naming the compiled frame,
-- as in VS Code (editors/vscode/test/suite/index.js, "entry points").
local H = require('helpers')

-- decode_lib is a test trace (tests/traces), unpacked by the build next to the binaries.
local traces = vim.env.INDUCTOR_TRACES or (H.repo .. '/build/traces')
local model = traces .. '/decode_lib/model.py'

local function entry_lenses(bufnr)
  local found = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    if lens.command and lens.command.title:find('^calls compiled ') then
      table.insert(found, lens)
    end
  end
  return found
end

return {
  { 'the generate() call of a library-compiled model has one entry-point lens and a hover', function()
    if vim.fn.filereadable(model) == 0 then
      H.fail('decode_lib not unpacked at ' .. model .. ' (build the tests, or set INDUCTOR_TRACES)')
    end
    local bufnr, client = H.open(model)
    local line = H.cursor_to('return model.generate(')
    local lens = H.wait('the entry-point lens on model.py:' .. line, function()
      for _, l in ipairs(entry_lenses(bufnr)) do
        if l.range.start.line == line - 1 then
          return l
        end
      end
    end)
    local title = lens.command.title
    H.ok(title:match('^calls compiled wrapper %(generic%.py:%d+%) · 1 compile · %d+ kernels, %d+ launches'),
      'entry-point lens title: ' .. title)
    H.eq('inductor.showCompiles', lens.command.command, 'lens command')
    -- The lines that only lead to it (main, <module>) have none.
    H.eq(1, #entry_lenses(bufnr), 'entry-point lenses in model.py')
    local hover = H.request(client, 'textDocument/hover', { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
      position = { line = line - 1, character = 8 } }, bufnr)
    H.ok(hover and hover.contents, 'no hover on the generate() call')
    H.contains(hover.contents.value, 'Calls compiled code of an installed package', 'hover')
    H.contains(hover.contents.value, 'site-packages/transformers/utils/generic.py', 'hover link')
  end },
}
