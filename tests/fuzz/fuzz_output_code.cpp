// libFuzzer target: output-code and AOTI-wrapper analysis (index/analysis/OutputCode.h) and kernel sources,
// over the same text split into lines as the index does. Properties: every launch and definition lies inside
// the text.
#include "FuzzInput.h"
#include "index/analysis/OutputCode.h"
#include "index/support/TextLines.h"

using namespace inductor;
using namespace inductor::index;

namespace {

void checkInside(const OutputCodeAnalysis &a, const TextLines &lines) {
  for (const KernelLaunch &l : a.launches) {
    fuzz::require(l.line < lines.size(), "launch line inside the text");
    fuzz::require(l.column <= lines[l.line].size(), "launch column inside its line");
    (void)l.key();
  }
  for (const KernelDefinition &d : a.kernels) {
    fuzz::require(d.nameLine < lines.size(), "definition line inside the text");
    fuzz::require(a.findKernel(d.name) != nullptr, "a definition is found by its name");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  TextLines lines = splitLines(text);
  checkInside(analyzePythonWrapper(lines), lines);
  checkInside(analyzeCppWrapper(lines), lines);
  (void)analyzeKernelSource(lines);
  (void)analyzeCppKernelSource(lines);
  (void)looksLikeWrapperCode(lines);
  (void)kindFromName(text.substr(0, 200));
  return 0;
}
