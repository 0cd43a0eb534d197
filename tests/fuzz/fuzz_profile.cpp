// libFuzzer target: the profiler Chrome-trace reader (index/runtime/Profile.h) with its token bounds, and the
// recompile-reasons splitter (index/health/CompileHealth.h), both fed hostile outside bytes. Properties:
// nothing kept is longer than its bound; shortening whitespace runs never changes what is read (whitespace
// between tokens means nothing); the splitter keeps at most its bounds.
#include "FuzzInput.h"
#include "index/health/CompileHealth.h"
#include "index/runtime/Profile.h"

using namespace inductor;
using namespace inductor::index;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Input in(data, size);
  ProfileReadOptions small;
  small.maxTokenBytes = 1 + in.number(63);
  small.maxWhitespaceRun = 1 + in.number(15);
  small.maxDepth = 1 + in.number(15);
  small.maxEvents = 1 + in.number(1000);
  std::string_view text = in.rest();

  ChromeTrace bounded = parseChromeTrace(text, "", small);
  for (const std::string &name : bounded.names)
    fuzz::require(name.size() <= small.maxTokenBytes, "no kept name over the token bound");
  fuzz::require(bounded.cpu.size() + bounded.device.size() <= small.maxEvents, "events bounded");

  // Whitespace runs cut to one byte read as the whole text does.
  ChromeTrace whole = parseChromeTrace(text);
  ProfileReadOptions blanks;
  blanks.maxWhitespaceRun = 1;
  ChromeTrace tight = parseChromeTrace(text, "", blanks);
  fuzz::require(whole.cpu.size() == tight.cpu.size() && whole.device.size() == tight.device.size() &&
                    whole.names == tight.names && whole.skippedEvents == tight.skippedEvents,
                "whitespace runs are cut without loss");
  fuzz::require(whole.cutStrings == 0 || text.size() > ProfileReadOptions{}.maxTokenBytes,
                "nothing cut under the default bound");

  size_t cut = 0;
  std::vector<std::string> reasons = splitRecompileReasons(text, &cut);
  fuzz::require(reasons.size() <= kMaxRecompileReasons, "reasons bounded in number");
  for (const std::string &r : reasons)
    fuzz::require(r.size() <= kMaxRecompileReasonBytes + 64, "reasons bounded in size");
  return 0;
}
