// tests/e2e/E2E.h: helpers shared by the end-to-end tests: sessions on a fixture case, LSP value builders,
// and the expected answers derived from the fixtures by TraceOracle.h.
//
// Expected locations follow the server's documented shape (server/text/Convert.cpp): an origin in a file that
// exists here spans its line from the first non-blank character to the last one; an origin whose file is
// absent (paths recorded on another machine) is the empty range at the start of the line. Columns are
// computed here in the negotiated encoding (UTF-16 unless the test asked for UTF-8).
#pragma once

#include "e2e/LSPClient.h"
#include "e2e/TraceOracle.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace inductor::e2e {

/// A location reduced to what the tests compare: uri, line and the character range on it.
struct Loc {
  std::string uri;
  uint32_t line = 0, startChar = 0, endLine = 0, endChar = 0;
  friend auto operator<=>(const Loc &, const Loc &) = default;
};
std::string show(const Loc &l);
Loc toLoc(const json &location);
std::vector<Loc> toLocs(const json &locations); ///< In the order received.
std::set<Loc> toLocSet(const json &locations);
/// Printable list, for CHECK messages.
std::string show(const std::set<Loc> &locs);

/// A user line's lens title without what a folder of several runs adds against the baseline run (the
/// changes `(+2)`, `(−35 µs vs baseline)`, `(new)`, `(changed)`; CompareTests checks those).
std::string withoutComparison(const std::string &title);

json position(uint32_t line, uint32_t character);
json textDocumentPosition(const std::string &uri, uint32_t line, uint32_t character);

/// Length of `bytes` in UTF-16 code units (or in bytes when `utf8`).
uint32_t units(std::string_view bytes, bool utf8 = false);

/// The expected Location of a user-source origin (see the file comment). With `caseRoot`, its file is
/// looked for in that case folder (localPathIn), else in the fixtures (localPath).
Loc originLoc(const Frame &f, bool utf8 = false, const std::string &caseRoot = "");
std::set<Loc> originLocs(const std::set<Frame> &frames, bool utf8 = false, const std::string &caseRoot = "");

/// The expected Location of a launch site in a document.
Loc launchLoc(const std::string &uri, const std::string &text, const LaunchSite &s, bool utf8 = false);

/// One output code of a fixture, as the tests see it: where it is on disk (or the virtual URI), its text,
/// its launches and their expected origins.
struct ExpectedOutputCode {
  OutputCodeRecord record;
  std::string path; ///< Local file (empty when the output code exists only in the log).
  std::string uri;  ///< file:// URI of `path`, or the server's inductor-trace: URI.
  std::string text;
  std::vector<LaunchSite> launches;
  std::string label() const;
  /// "forward", "backward", "inference" (from the `# AOT ID: ['0_forward']` header), "AOT" for AOTInductor.
  std::string graphKind() const;
  /// Expected origins of a launch (empty set when the trace records none).
  std::set<Frame> originsOf(const LaunchSite &s) const;
};

/// Every output code of every log of a fixture case's trace/ directory, in log order (rank 0 first).
/// Output code that exists only in the log is looked up through `client` (inductor/listArtifacts): pass
/// a client to resolve those, or nullptr to keep only on-disk output code.
///
/// Where answers point (ExpectedOutputCode::path) is the copy the server prefers among the files holding
/// that text: a TORCH_COMPILE_DEBUG `output_code.py`/`.cpp` named after its graph, then one in a cache
/// `c<hash>.debug/` directory, then the hash-named cache file the log records. Copies are looked for under
/// `searchRoots` (what the server discovers), by default the case folder of each log (the parent of its
/// `trace/` folder); pass {} when the server indexes only the logs.
std::vector<ExpectedOutputCode> expectedOutputCodes(const std::vector<std::string> &traceFiles,
                                                    LSPClient *client = nullptr,
                                                    std::optional<std::vector<std::string>> searchRoots = {});

/// Whether two output codes are one compile's on two ranks of a host, the same code up to the device: the
/// device each names (`cuda:1`, `index=1`, `get_raw_stream(1)`, `_DeviceGuard(1)`, `set_device(1)`,
/// `stream1`) and its kernels' cache files (each rank's kernels name its device, so hash differently)
/// blanked, the texts are equal. The server lists the launches of such copies once, at the first rank's.
bool sameUpToDevice(const ExpectedOutputCode &a, const ExpectedOutputCode &b);

/// A launch site with the output code it is in.
struct LaunchRef {
  const ExpectedOutputCode *code = nullptr;
  const LaunchSite *site = nullptr;
  Loc loc(bool utf8 = false) const { return launchLoc(code->uri, code->text, *site, utf8); }
};

/// User line (recorded frame) -> every launch, over all output codes, whose expected origins include it.
std::map<Frame, std::vector<LaunchRef>> launchesByUserLine(const std::vector<ExpectedOutputCode> &codes);

/// "pointwise", "persistent reduction", "reduction", "extern", "C++": the kernel kind its name implies.
std::string kernelKindOf(const std::string &kernel);

/// The inductor-trace: URI of the log-only output code whose text equals `payload` (via listArtifacts and
/// artifactContent); empty if none. With `traceFile`, only artifacts of that log (its name is in the URI),
/// and with `recordLine` (0-based envelope line), only the one of that record (a recompile can log the same
/// text again).
std::string findVirtualOutputCode(LSPClient &client, const std::string &payload,
                                  const std::string &traceFile = "",
                                  std::optional<uint32_t> recordLine = std::nullopt);

/// A fresh directory under /tmp (outside the repository), removed with everything in it on destruction.
class TempDir {
public:
  explicit TempDir(const std::string &tag = "tmp");
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }
  /// Writes `content` to `path()/relative` (creating directories); returns the absolute path.
  std::string write(const std::string &relative, const std::string &content) const;

private:
  std::string path_;
};

/// A copy of kernel_ir (trace, debug directory, Inductor cache with its Triton cache, model.py) in `dir`, its
/// files writable, in which one kernel line lowers to `copies` more PTX lines: the first instruction under
/// the first `.loc` of the kernel's own file, in the PTX of a kernel compiled once (not autotuned), repeated.
struct LongLowering {
  std::string kernelFile;         ///< The kernel's file in the copy's Inductor cache (`c<hash>.py`).
  uint32_t line = 0;              ///< The kernel line (0-based) that lowers to those lines.
  std::string ptx;                ///< The PTX file.
  std::vector<uint32_t> ptxLines; ///< Its lines (0-based) under that kernel line, by the test's own parse.
};
LongLowering copyKernelIrWithLongLowering(const std::string &dir, size_t copies);

/// A server started on a workspace folder and initialized. `root` is the workspace folder.
struct Session {
  explicit Session(const std::string &root, json initializationOptions = nullptr,
                   json capabilities = LSPClient::defaultCapabilities(), ServerConfig config = {});
  LSPClient client;
  json initializeResult;
};

/// Per-fixture numbers for the closing note, printed once at the end of the run.
struct FixtureStats {
  size_t launches = 0, launchesWithUserLine = 0, userLinesWithLenses = 0;
};
void recordStats(const std::string &fixture, const FixtureStats &stats);
/// Adds to one field (for stats gathered by several tests).
void recordUserLinesWithLenses(const std::string &fixture, size_t count);
void recordLaunches(const std::string &fixture, size_t launches, size_t withUserLine);

} // namespace inductor::e2e
