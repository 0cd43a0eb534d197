// libFuzzer target: tree-sitter over documents the user opens (index/analysis/PythonSyntax.h). Properties:
// ranges and definitions lie inside the text; nesting does not exhaust the stack.
#include "FuzzInput.h"
#include "index/analysis/PythonSyntax.h"
#include "index/support/TextLines.h"

using namespace inductor;
using namespace inductor::index;

namespace {

void walk(const std::vector<PythonSyntax::Definition> &defs, size_t lines) {
  for (const PythonSyntax::Definition &d : defs) {
    fuzz::require(d.startLine <= d.endLine, "definitions start before they end");
    fuzz::require(d.line <= lines, "definition line inside the text");
    walk(d.children, lines);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Input in(data, size);
  uint32_t line = in.number(300), column = in.number(300);
  std::string_view text = in.rest();
  auto syntax = PythonSyntax::parse(text);
  if (!syntax) return 0;
  size_t lines = splitLines(text).size() + 1;
  walk(syntax->definitions(), lines);
  if (auto range = syntax->statementRange(line))
    fuzz::require(range->firstLine <= range->lastLine, "statement range");
  (void)syntax->identifierAt(line, column);
  return 0;
}
