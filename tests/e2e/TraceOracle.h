// tests/e2e/TraceOracle.h: the test's own, independent reading of the fixtures, from which the expected
// answers are derived (the server's index/ code is deliberately not used here).
//
// TORCH_TRACE log format (TorchLogsFormatter in torch/_logging/_internal.py): a record is an envelope line
// `<glog prefix>] {json}` (prefix like `V1122 10:29:20.476000 431 torch/_dynamo/utils.py:2126`), followed by
// payload lines that each start with a TAB. Output code (`inductor_output_code`, AOTI's `graph_dump`
// `inductor_aot_wrapper_code`) is followed, within the same compile, by the artifact
// `inductor_provenance_tracking_kernel_stack_traces`: a JSON object mapping `kernel:debug_handle` to a list
// of Python tracebacks. A kernel launch's expected origins are, per traceback, the innermost `File "...",
// line N` model frame: outside PyTorch itself, the Python stdlib and synthetic files (third-party packages
// are model code).
//
// Launch sites in output code are found by plain text: a `# [Provenance debug handles] NAME:N` comment
// (`//` in C++), and the first line after it that calls NAME (`NAME(`, `NAME.run(`, `call_NAME(`).
//
// Units: lines are 0-based, columns are 0-based UTF-8 byte offsets, except Frame::line (1-based, as Python
// prints it).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace inductor::e2e {

using json = nlohmann::json;

/// One record of a trace log.
struct TraceRecord {
  uint32_t line = 0; ///< 0-based line of the envelope in the log.
  json envelope;     ///< The parsed envelope (discarded if the JSON was malformed).
  std::string payload;
  bool malformed = false;
};

/// Reads every record of a log. Malformed envelopes are kept with `malformed` set.
std::vector<TraceRecord> readTraceLog(const std::string &path);

/// A user source frame, as recorded (1-based line).
struct Frame {
  Frame() = default;
  Frame(std::string path_, uint32_t line_, std::string code_ = "")
      : path(std::move(path_)), line(line_), code(std::move(code_)) {}
  std::string path;
  uint32_t line = 0;
  /// The source text the traceback printed for the line, trimmed ("" when not recorded). Not part of the
  /// identity: a frame is a place.
  std::string code;
  friend auto operator<=>(const Frame &a, const Frame &b) {
    return std::tie(a.path, a.line) <=> std::tie(b.path, b.line);
  }
  friend bool operator==(const Frame &a, const Frame &b) { return a.path == b.path && a.line == b.line; }
};

/// A file's lines, each trimmed; empty when it cannot be read.
std::vector<std::string> trimmedLines(const std::string &path);

/// Where `f`'s recorded text is in its file here now (`lines`: trimmedLines of it): its line when it still
/// holds the text (or no text was recorded, or the file could not be read), else the nearest line that holds
/// it (an edit moved it; an FX graph cache hit replays the stack traces of the compile that filled the cache,
/// with that run's line numbers), else nullopt (the text is gone: no location).
std::optional<Frame> relocatedFrame(const Frame &f, const std::vector<std::string> &lines);

/// True for frames that are never model code: PyTorch itself (installed, or from a checkout), the standard
/// library, synthetic `<...>` files. Third-party packages (transformers, torchvision) are model code.
bool isLibraryFrame(const std::string &path);

/// Per traceback, the innermost non-library frame; the set over all tracebacks of a stack-traces entry.
std::set<Frame> originsOfTracebacks(const json &tracebacks);

/// A launch site found by text search in output code.
struct LaunchSite {
  std::string kernel; ///< e.g. "triton_poi_fused_gelu_1", "extern_kernels.addmm".
  int handle = -1;    ///< Debug handle; -1 when the code has no provenance comments.
  uint32_t commentLine = 0;
  uint32_t line = 0;   ///< The launch line.
  uint32_t column = 0; ///< Byte column of the kernel name on the launch line.
  std::string key() const { return kernel + ":" + std::to_string(handle); }
};

/// Launch sites announced by `[Provenance debug handles]` comments, in text order.
std::vector<LaunchSite> findLaunches(const std::string &text);

/// A kernel definition in output code: `NAME = async_compile.triton('NAME', ...` / `cpp_pybinding` in Python
/// (and, for Triton, the `def NAME(` inside its source); `static inline void call_NAME(` in AOTI C++.
struct KernelDef {
  std::string name;
  uint32_t line = 0, column = 0;                    ///< The assignment's name.
  std::optional<std::pair<uint32_t, uint32_t>> def; ///< `def NAME(`: line and byte column of NAME.
};
std::vector<KernelDef> findKernelDefs(const std::string &text);

/// One output code (Python wrapper or AOTI C++ wrapper) of a log, with its provenance.
struct OutputCodeRecord {
  std::string traceFile;
  uint32_t line = 0;        ///< Envelope line in the log.
  std::string compileId;    ///< "0/0", "1/0_1" (attempt appended when non-zero); empty when absent.
  std::optional<int> rank;  ///< From the envelope.
  std::string recordedPath; ///< `filename` in the envelope (may be empty).
  std::string payload;
  bool aoti = false;
  /// `kernel:handle` -> expected origins, from the stack-traces artifact that follows in the same compile.
  std::map<std::string, std::set<Frame>> origins;
  bool hasStackTraces = false;
};

/// Every output code of a log, in log order.
std::vector<OutputCodeRecord> readOutputCodes(const std::string &tracePath);

/// The `# File: PATH:LINE in FN, code: ...` origin of each node of an FX graph dump (node name -> frame),
/// the text being either a graph artifact's payload or an fx_graph_*.py file.
std::map<std::string, Frame> graphNodeOrigins(const std::string &graphText);

/// Line (0-based) and byte column of each node's definition `NAME: "..." = ` / `NAME = ` in a graph dump.
std::map<std::string, std::pair<uint32_t, uint32_t>> graphNodePositions(const std::string &graphText);

// Small helpers.
std::string readFile(const std::string &path);
std::vector<std::string> splitLines(const std::string &text);
/// file:// URI with VS Code's percent-encoding (independent of protocol/URI.h).
std::string fileURI(const std::string &path);
/// The fixtures directory, canonical.
std::string fixturesDir();
/// `<fixtures>/traces/<name>`.
std::string caseDir(const std::string &name);
/// A record's compile id as PyTorch writes it (torch/_guards.py CompileId.__str__): `frame/compile`, or
/// `!ca/frame/compile` for a graph of compiled autograd (`compiled_autograd_id`); "" without a frame id.
std::string compileIdText(const json &envelope);
/// Maps a path recorded on the machine that made the fixtures (`/tmp/work/<case>/...`) to the local copy.
std::string localPath(const std::string &recordedPath);
/// Every case folder (a folder holding `trace/`): the fixtures' traces/ and the project's build/traces
/// (INDUCTOR_TRACES_DIR), sorted by path. Sweeps iterate these, so a new case is covered the day it arrives.
std::vector<std::string> caseFolders();
/// localPath() for a case folder anywhere (the fixtures' or build/traces): `/tmp/work/<case>/REST` is
/// `caseRoot/REST` and an installed package's `.../site-packages/REST` is `caseRoot/site-packages/REST` (the
/// case's copies, found by suffix under a workspace that is the case folder) when those exist; else
/// localPath(recordedPath).
std::string localPathIn(const std::string &recordedPath, const std::string &caseRoot);
/// The single file in a directory whose name starts with `prefix` (e.g. the trace log); empty if none.
std::vector<std::string> filesIn(const std::string &dir, const std::string &prefix = "",
                                 const std::string &suffix = "");

/// The first chromium_event "ts" of a log (epoch µs, as `"ts": N` on a payload line), 0 when none.
int64_t firstTimestampUs(const std::string &log);

/// The logs of the latest run among `logs` (one folder's), as the server must serve them by default: the
/// log with the latest first timestamp; when it names a rank (`_rank_N`), the latest log of every rank (a
/// job's ranks start together; a rerun into the same TORCH_TRACE folder starts later). A log without a rank
/// is a run of its own.
std::vector<std::string> latestRunLogs(const std::vector<std::string> &logs);

} // namespace inductor::e2e
