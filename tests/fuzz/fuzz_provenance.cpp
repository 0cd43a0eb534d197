// libFuzzer target: provenance JSON (index/analysis/Provenance.h) in every format PyTorch writes, Python
// tracebacks, and the zero-copy JSON walk under them (index/trace/JsonScan.h). Properties: the walk accepts
// what nlohmann accepts (within the depth limit), and the parsers never throw or recurse without bound.
#include "FuzzInput.h"
#include "index/analysis/ModelFrames.h"
#include "index/analysis/Provenance.h"
#include "index/trace/JsonScan.h"

#include <nlohmann/json.hpp>

using namespace inductor;
using namespace inductor::index;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const ModelFrameRule rule({"*/site-packages/transformers/*"});
  std::string_view text(reinterpret_cast<const char *>(data), size);
  (void)parseNodeMappings(text);
  (void)parseKernelToPostGradNodes(text);
  (void)parsePostToPreGradNodes(text);
  (void)parseKernelInformation(text);
  auto traces = parseKernelStackTraces(text);
  if (traces)
    for (const auto &[key, list] : *traces) {
      KernelKey k = KernelKey::parse(key);
      fuzz::require(KernelKey::parse(k.str()) == k, "kernel keys round-trip");
      for (const auto &frames : list)
        (void)rule.originFrame(frames);
    }
  std::vector<StackFrame> frames = parseStackTrace(text);
  for (const StackFrame &f : frames)
    (void)rule.isModelFrame(f.file);
  // The walk is looser than a parser (numbers are checked loosely) but never stricter: what nlohmann parses
  // within the depth limit is one value to it too.
  bool valid = json_scan::isValue(text);
  int depth = 0, maxDepth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      maxDepth = std::max(maxDepth, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  // nlohmann's lexer reads a NUL byte as the end of the input (it accepts "9\0x"); the walk does not.
  bool hasNul = text.find('\0') != std::string_view::npos;
  if (!hasNul && maxDepth <= json_scan::kMaxDepth && nlohmann::json::accept(text))
    fuzz::require(valid, "walk accepts valid JSON");
  return 0;
}
