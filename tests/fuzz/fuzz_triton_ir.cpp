// libFuzzer target: the line tables of Triton's IR (index/analysis/TritonIR.h: PTX `.loc`/`.file`, MLIR
// `loc(...)` of TTIR/TTGIR/`.source`, LLVM `!DILocation`), under limits the input picks (IrLimits), so that
// the refusals past each limit are reached too. Properties: code lines are in order, inside the text and
// located in a file of the table; functions lie inside the text; nothing kept passes a limit; a refused
// file says so; lookups agree with the table.
#include "FuzzInput.h"
#include "index/analysis/TritonIR.h"

using namespace inductor;
using namespace inductor::index;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Input in(data, size);
  auto stage = static_cast<TritonStage>(in.number(kTritonStages - 1));
  IrLimits limits;
  limits.maxCodeLines = in.number(1000) + 1;
  limits.maxFiles = in.number(64) + 1;
  limits.maxNameBytes = in.number(1000) + 1;
  limits.maxAliases = in.number(1000) + 1;
  limits.maxFunctions = in.number(64) + 1;
  std::string_view text = in.rest();
  IrLineMap m = parseTritonIr(stage, text, limits);
  fuzz::require(m.code.size() <= limits.maxCodeLines, "code lines within the limit");
  fuzz::require(m.files.size() <= limits.maxFiles, "files within the limit");
  fuzz::require(m.functions.size() <= limits.maxFunctions, "functions within the limit");
  for (const std::string &f : m.files)
    fuzz::require(f.size() <= limits.maxNameBytes, "file names within the limit");
  for (size_t i = 0; i < m.code.size(); ++i) {
    const IrCodeLine &c = m.code[i];
    fuzz::require(i == 0 || m.code[i - 1].line < c.line, "code lines in order, each once");
    fuzz::require(c.line < m.lineCount || !m.error.empty(), "code lines inside the text");
    fuzz::require(c.location.valid() && c.location.file < m.files.size(), "code located in a known file");
    auto at = m.locationAt(c.line);
    fuzz::require(at && *at == c.location, "locationAt agrees with the table");
  }
  for (const IrFunction &f : m.functions) {
    fuzz::require(f.endLine >= f.line, "a function ends after it starts");
    fuzz::require(f.name.size() <= limits.maxNameBytes, "function names within the limit");
  }
  if (!m.code.empty() && m.error.empty()) {
    const IrCodeLine &c = m.code.front();
    std::vector<uint32_t> lines = m.linesOf(c.location.file, c.location.line);
    fuzz::require(!lines.empty() && lines.front() == c.line, "linesOf finds the first code line");
  }
  fuzz::require(m.keptBytes() >= m.code.size() * sizeof(IrCodeLine), "keptBytes counts the table");
  return 0;
}
