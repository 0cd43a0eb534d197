// protocol/InductorProtocol.h: inductor-ls's own protocol, the `inductor/*` requests and the
// `initializationOptions`, as types: one struct per params and result, with its from_json/to_json next to it
// (like rust-analyzer's lsp_ext.rs beside lsp-types, and protocol/Protocol.h for the standard LSP types).
//
// These are the wire shapes the editors read (editors/vscode/src/protocol.ts, editors/neovim) and that
// `inductor-ls explain --json` writes for compile health (`compileHealth`: a CompilesResult) and runtime
// (`runtime`: a HotLinesResult and what only explain adds): change a field here and every client sees it.
// Conventions, as in Protocol.h:
//  - Names are the wire's. A member marked "null when ..." is always written, as `null` when unset (the
//    clients test for null); members marked "omitted when ..." are left out when unset.
//  - Params are read by from_json, which throws nlohmann::json::exception (with the JSON path) for a
//    member of the wrong type; the server's binder (server/lsp/Dispatch.cpp) catches it, in one place, and
//    answers InvalidParams. Params of the editors' settings are tolerant (InitializationOptions).
//  - Lines are 0-based in Location (LSP) and 1-based where a member is called `line` beside a `path`
//    (user source lines as PyTorch records them). Times are nanoseconds of device time (`ns`), or seconds
//    where the member says so.
// protocol/ knows no index: the server (server/*.cpp) fills these from index/ queries.
#pragma once

#include "protocol/Json.h"
#include "protocol/Protocol.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::protocol {

// NOLINTBEGIN(readability-identifier-naming): the wire's names.

/// Params of a request that takes none (`inductor/listArtifacts`, `inductor/status`, `shutdown`): any value,
/// null or absent, is accepted and ignored.
struct NoParams {};
void from_json(const json &j, NoParams &p);

// ---------------------------------------------------------------------------------------------------------
// initializationOptions (and `workspace/didChangeConfiguration` settings, bare or under `inductorLs`).

/// `pathMappings` entry: a path prefix recorded on another machine, and where it is here.
struct PathMapping {
  std::string from;
  std::string to;
  friend bool operator==(const PathMapping &, const PathMapping &) = default;
};

/// The editors' settings (README "Settings"). Deviation: tolerant, unlike other params: a malformed entry is
/// skipped and said in `warnings` (a bad setting must not stop the server), so from_json never throws.
/// A member is set when its key is present, even when nothing usable came of it (the key then clears the
/// setting). Paths are kept as sent: `file://` URIs are turned into paths by the server.
struct InitializationOptions {
  /// Trace inputs (folders or files); a string is one input. Entries that are not strings are skipped.
  std::optional<std::vector<std::string>> traceDirs;
  std::optional<std::vector<PathMapping>> pathMappings;
  /// Globs of library code; a string is one glob.
  std::optional<std::vector<std::string>> libraryPaths;
  /// The interpreter to ask for import roots; empty when the key is null or not a string.
  std::optional<std::string> pythonPath;
  /// torch.profiler traces and printer run logs (files or folders); a string is one.
  std::optional<std::vector<std::string>> profiles;
  std::optional<std::vector<std::string>> runLogs;
  /// false: no interpreter is run (VS Code's restricted mode). A value that is not a boolean reads as false.
  /// Only `initialize` reads it.
  std::optional<bool> trusted;
  /// The current run and the baseline run (index/files/Runs.h): "latest" (run's default), "previous"
  /// (baseline's default), "none" (baseline only), a run id ("2026-11-27 02:31:04") or a path of one of the
  /// run's logs or directories, or (baseline) of a folder holding its logs, inside the trace folders or not
  /// (index::resolveRunName). A value that is not a string is skipped with a warning.
  std::optional<std::string> run, baseline;
  /// Triton cache folders (TRITON_CACHE_DIR, an Inductor cache's `triton/`) to read kernels' IR and resources
  /// from, besides those found with the traces (IndexOptions::tritonCacheDirs); read roots. A string is one.
  std::optional<std::vector<std::string>> tritonCacheDirs;
  /// What was skipped or taken otherwise, one sentence each, for the server's log.
  std::vector<std::string> warnings;

  /// Whether any setting of the index is present (what a configuration change reindexes for).
  bool hasIndexSettings() const {
    return traceDirs || pathMappings || libraryPaths || pythonPath || profiles || runLogs || run ||
           baseline || tritonCacheDirs;
  }
};
/// Reads a JSON object (anything else reads as no settings).
void from_json(const json &j, InitializationOptions &o);
void to_json(json &j, const InitializationOptions &o); ///< For clients and tests; `warnings` not written.

// ---------------------------------------------------------------------------------------------------------
// workspace/executeCommand: the server's own commands.

/// The commands the server executes (ServerCapabilities.executeCommandProvider): `inductor.reindex`.
/// Deviation from ExecuteCommandParams: from_json refuses a command the server does not have, so that the
/// binder answers it InvalidParams as it does any other params it cannot read.
struct InductorCommandParams {
  /// SelectRun, SelectBaseline: `arguments[0]` is a run id ("latest", "previous", a path; "none" for the
  /// baseline), as the `run` and `baseline` settings.
  enum class Command { Reindex, SelectRun, SelectBaseline } command = Command::Reindex;
  /// SelectRun, SelectBaseline: `arguments[0]` when it is a string; unset otherwise ("latest" then).
  std::optional<std::string> run;
};
void from_json(const json &j, InductorCommandParams &p);
/// The command's name on the wire: "inductor.reindex".
const char *commandName(InductorCommandParams::Command c);
/// Every command the server executes, in the order ServerCapabilities lists them.
std::vector<std::string> serverCommandNames();

// ---------------------------------------------------------------------------------------------------------
// Client commands: the commands of the server's code lenses and code actions, which the editor integrations
// implement (editors/vscode/src/commands.ts, compiles.ts, printerEnv.ts;
// editors/neovim/lua/inductor_ls/lsp.lua). Each command's arguments are one struct, `kName` its identifier;
// they go out as the positional array `Command.arguments` that `commands` in inductor-protocol.json
// describes.

/// `inductor.showLocations` [uri, position, locations]: the argument shape of VS Code's
/// `editor.action.showReferences` (one location: go there; several: a peek or list).
struct ShowLocationsArguments {
  static constexpr const char *kName = "inductor.showLocations";
  std::string uri;
  Position position;
  /// The JSON text of the array of Location, not owned: launches with the same origins share one text,
  /// written once per request (a large output code's lenses), which must outlive the write.
  std::string_view locations = "[]";
};
/// `inductor.showLaunchSites` [uri, position]: a model line's lens; the client asks inductor/launchSites at
/// that position when it is clicked (a line of a many-compile trace has thousands of launch sites).
struct ShowLaunchSitesArguments {
  static constexpr const char *kName = "inductor.showLaunchSites";
  std::string uri;
  Position position;
};
/// What `inductor.showCompiles` opens: one compiled function's compiles (`function` as logged, its def line,
/// 1-based; 0 when unknown).
struct CompilesSelection {
  std::string function;
  uint32_t line = 0;
  std::vector<std::string> compileIds; ///< "0/0", "!0/1/0", ...
};
void from_json(const json &j, CompilesSelection &s);
void to_json(json &j, const CompilesSelection &s);
/// `inductor.showCompiles` [uri, position, CompilesSelection]: a def line's lens opens the compiles view.
struct ShowCompilesArguments {
  static constexpr const char *kName = "inductor.showCompiles";
  std::string uri;
  Position position;
  CompilesSelection compiles;
};
/// The environment that makes Inductor's intermediate value debug printer print only some kernels
/// (torch/_inductor/codegen/debug_utils.py reads these variables). Nothing is run: the client shows it.
struct PrinterEnv {
  std::string title;
  std::map<std::string, std::string> env; ///< Variable name -> value.
  std::string shell;                      ///< `NAME=value ...`, quoted for any POSIX shell.
  std::string explanation;
};
void from_json(const json &j, PrinterEnv &e);
void to_json(json &j, const PrinterEnv &e);
/// `inductor.showPrinterEnv` [PrinterEnv]: the printer code actions.
struct ShowPrinterEnvArguments {
  static constexpr const char *kName = "inductor.showPrinterEnv";
  PrinterEnv env;
};

/// The positional argument array of each client command.
json arguments(const ShowLaunchSitesArguments &a);
json arguments(const ShowCompilesArguments &a);
json arguments(const ShowPrinterEnvArguments &a);
/// A Command running `Arguments::kName` with `args`.
template <class Arguments> Command clientCommand(std::string title, const Arguments &args) {
  Command c;
  c.title = std::move(title);
  c.command = Arguments::kName;
  c.arguments = arguments(args);
  return c;
}

// ---------------------------------------------------------------------------------------------------------
// inductor/artifactContent {uri} -> {text, languageId}

struct ArtifactContentParams {
  /// An `inductor-trace:` URI, a `file:` URI of an indexed artifact, or
  /// `inductor-trace:/recorded-source/<recorded path>` (a user file that is not on this machine). Required.
  std::string uri;
};
void from_json(const json &j, ArtifactContentParams &p);
void to_json(json &j, const ArtifactContentParams &p);

struct ArtifactContentResult {
  std::string text;
  std::string languageId; ///< "python" or "cpp".
};
void from_json(const json &j, ArtifactContentResult &r);
void to_json(json &j, const ArtifactContentResult &r);

// ---------------------------------------------------------------------------------------------------------
/// Wire enums: each a C++ enum with one spelling per value, read and written by one table (a value the table
/// lacks reads as the first). One concept has one spelling on every surface: a graph break is "graph break"
/// in compile events and statuses, comparisons and rank divergences.

/// A wire enum's spelling ("graph break"), for text that shows the wire's words (explain).
template <class Enum> std::string wireName(Enum e) {
  return json(e).template get<std::string>();
}

/// A compile-health event's kind (index::HealthEventKind).
enum class EventKind { GraphBreak, Recompile, Failure, Specialization };
NLOHMANN_JSON_SERIALIZE_ENUM(EventKind, {{EventKind::GraphBreak, "graph break"},
                                         {EventKind::Recompile, "recompile"},
                                         {EventKind::Failure, "failure"},
                                         {EventKind::Specialization, "specialization"}})

/// The outcome of a compile, and the worst of a frame's or function's (index::CompileStatus).
enum class CompileStatus { Ok, GraphBreak, Recompiled, Failed, NotCompiled };
NLOHMANN_JSON_SERIALIZE_ENUM(CompileStatus, {{CompileStatus::Ok, "ok"},
                                             {CompileStatus::GraphBreak, "graph break"},
                                             {CompileStatus::Recompiled, "recompiled"},
                                             {CompileStatus::Failed, "failed"},
                                             {CompileStatus::NotCompiled, "not compiled"}})

/// What a comparison found of an event or a line (index::Change).
enum class Change { New, Gone, Changed, Same };
NLOHMANN_JSON_SERIALIZE_ENUM(Change, {{Change::New, "new"},
                                      {Change::Gone, "gone"},
                                      {Change::Changed, "changed"},
                                      {Change::Same, "same"}})

/// How ranks diverge (index::RankDivergenceKind).
enum class RankDivergenceKind {
  Recompile,
  GraphBreak,
  Failure,
  DifferentCode,
  CollectiveSchedule,
  MissingCompile,
  Cache
};
NLOHMANN_JSON_SERIALIZE_ENUM(RankDivergenceKind,
                             {{RankDivergenceKind::Recompile, "recompile"},
                              {RankDivergenceKind::GraphBreak, "graph break"},
                              {RankDivergenceKind::Failure, "failure"},
                              {RankDivergenceKind::DifferentCode, "different code"},
                              {RankDivergenceKind::CollectiveSchedule, "collective schedule"},
                              {RankDivergenceKind::MissingCompile, "missing compile"},
                              {RankDivergenceKind::Cache, "cache"}})

/// An artifact's kind (index::ArtifactKind): output code, an AOTInductor C++ wrapper, a kernel's file, an FX
/// graph dump.
enum class ArtifactKind { OutputCode, WrapperCode, Kernel, Graph };
NLOHMANN_JSON_SERIALIZE_ENUM(ArtifactKind, {{ArtifactKind::OutputCode, "outputCode"},
                                            {ArtifactKind::WrapperCode, "wrapperCode"},
                                            {ArtifactKind::Kernel, "kernel"},
                                            {ArtifactKind::Graph, "graph"}})

/// A compile's graph (index::GraphKind; `aot` for an AOTInductor compile).
enum class GraphKind { Unknown, Forward, Backward, Inference, Aot };
NLOHMANN_JSON_SERIALIZE_ENUM(GraphKind, {{GraphKind::Unknown, "unknown"},
                                         {GraphKind::Forward, "forward"},
                                         {GraphKind::Backward, "backward"},
                                         {GraphKind::Inference, "inference"},
                                         {GraphKind::Aot, "aot"}})

/// What a notice is about (server/workspace/Notices.h).
enum class NoticeKind { NoTrace, MissingSources, NoProvenance, CorruptedRecords };
NLOHMANN_JSON_SERIALIZE_ENUM(NoticeKind, {{NoticeKind::NoTrace, "noTrace"},
                                          {NoticeKind::MissingSources, "missingSources"},
                                          {NoticeKind::NoProvenance, "noProvenance"},
                                          {NoticeKind::CorruptedRecords, "corruptedRecords"}})

/// A compile's FX graph or AOTAutograd cache outcome (index::CacheOutcome; null on the wire when not logged).
enum class CacheOutcome { Hit, Miss, Bypass };
NLOHMANN_JSON_SERIALIZE_ENUM(CacheOutcome, {{CacheOutcome::Hit, "hit"},
                                            {CacheOutcome::Miss, "miss"},
                                            {CacheOutcome::Bypass, "bypass"}})

/// What bounds a kernel on the roofline (index::Bound; null on the wire when unknown).
enum class Bound { Memory, Compute, Latency };
NLOHMANN_JSON_SERIALIZE_ENUM(Bound, {{Bound::Memory, "memory"},
                                     {Bound::Compute, "compute"},
                                     {Bound::Latency, "latency"}})

/// What GPU times are per (index::RuntimeTimes): per marked ProfilerStep, totals over the profiled region,
/// or none (no profile joined).
enum class TimeBasis { None, PerStep, Total };
NLOHMANN_JSON_SERIALIZE_ENUM(TimeBasis, {{TimeBasis::None, "none"},
                                         {TimeBasis::PerStep, "perStep"},
                                         {TimeBasis::Total, "total"}})

// ---------------------------------------------------------------------------------------------------------
// inductor/listArtifacts {} -> [ArtifactEntry]: every artifact, in index order (compiles in order, each
// compile's output code before its graphs; kernel files last). Several entries can share a URI (ranks
// writing the same cache file): pickers show one per URI.

struct ArtifactEntry {
  std::string uri;
  std::string title;
  /// What pickers show: `[0/0] backward · output_code.py`.
  std::string label;
  ArtifactKind kind = ArtifactKind::OutputCode;
  std::string languageId;               ///< "python" or "cpp".
  std::optional<std::string> compileId; ///< `frame/frame_compile_id`; null when unknown or shared.
  std::optional<std::string> compile;   ///< The compile's label (`[0/0] backward`); null for kernel files.
  std::optional<uint32_t> compileIndex; ///< Tells compiles apart; null for kernel files shared by compiles.
  std::optional<int64_t> rank;          ///< null when not recorded.
  std::optional<GraphKind> graphKind;   ///< null without a compile.
  std::optional<std::string> graphName; ///< null when none.
  std::optional<std::string> trace;     ///< The log the compile came from; null for compiles found in files.
};
void from_json(const json &j, ArtifactEntry &e);
void to_json(json &j, const ArtifactEntry &e);

// ---------------------------------------------------------------------------------------------------------
// Counts (index/model/Counts.h, the one definition of what the views count): inductor/status `counts`,
// inductor/compiles `summary`, explain --json `counts`.

struct Counts {
  uint64_t traces = 0, compiles = 0, graphs = 0, frames = 0, kernels = 0, launches = 0;
  uint64_t launchesWithOrigin = 0, problems = 0, graphBreaks = 0, recompiles = 0, failures = 0, ranks = 0;
  friend bool operator==(const Counts &, const Counts &) = default;
};
void from_json(const json &j, Counts &c);
void to_json(json &j, const Counts &c);

// ---------------------------------------------------------------------------------------------------------
// inductor/status {} -> StatusResult, also sent as the `inductor/status` notification while indexing and
// when an index is served.

struct PythonEnvironmentStatus {
  std::string prefix;
  std::string source; ///< How it was found ("workspace .venv", "VIRTUAL_ENV", ...).
  std::vector<std::string> importRoots;
};

struct PythonStatus {
  std::string interpreter; ///< Empty when none was found (or none may run).
  std::string source;
  std::vector<PythonEnvironmentStatus> environments;
  bool trusted = true;
  std::vector<std::string> importRoots;
  std::string error; ///< Why the import roots are unknown; empty otherwise.
  bool kept = false; ///< The roots are an earlier session's answer, not asked again yet.
};

struct BuildProgress {
  uint32_t percentage = 0;
  std::string message;
};

/// One notice of the current index (server/workspace/Notices.h).
struct NoticeStatus {
  NoticeKind kind = NoticeKind::NoTrace;
  int type = 3; ///< MessageType.
  std::string message;
};

/// The served index's numbers in StatusResult (a struct of its own: clang cannot default-construct a nested
/// struct with member initializers inside std::optional before the outer struct is complete).
struct StatusServed {
  uint64_t launchesWithOrigin = 0, corruptedRecords = 0;
  uint64_t traceBytes = 0, traceBytesRead = 0, compilesAnalysed = 0; ///< The last build's work.
  uint64_t frameCompiles = 0, graphBreaks = 0, recompiles = 0, compileFailures = 0;
  uint64_t launchesWithMissingSource = 0;
  std::optional<std::string> firstMissingSource; ///< null when none is missing.
  uint64_t profiles = 0, runLogs = 0;
  /// The compile-health diagnostics published (graph breaks, recompiles, failures merged per line, kind and
  /// file, as the Problems panel lists them): the lines that `counts.problems` are on.
  uint64_t problemLines = 0;
  /// Where the ranks of the run disagree (inductor/ranks' divergences, the cache outcomes' left out); 0 for a
  /// single process.
  uint64_t rankDivergences = 0;
  Counts counts;
};

struct StatusResult {
  bool indexing = false;
  /// An index of the run is served. (An index of part of the run, its first rank alone while the other ranks
  /// are read or the open documents' compiles alone while the others are analysed, answers navigation in its
  /// documents but is not `ready`: its figures are not the run's.)
  bool ready = false;
  /// Indexes served so far: tells a new index from a status update of the same one.
  uint64_t builds = 0;
  uint64_t waitingRequests = 0; ///< Queued until an index that can answer them is served.
  /// Trace inputs changed (the watcher's events, or the client's) and no build has started for them yet:
  /// the index served may be behind the files; a rebuild is due. Once a write has returned, the next status
  /// says so, until the build it causes starts (`indexing`).
  bool changesPending = false;
  std::optional<BuildProgress> progress; ///< null unless indexing.
  PythonStatus python;
  std::vector<NoticeStatus> notices;
  // The served index's counts, as `counts` (StatusServed::counts, index/model/Counts.h) gives them: trace
  // logs, compiles, kernels, launches; indexing errors and user lines with kernels (index::IndexStats). 0
  // before the first index.
  uint64_t traces = 0, compiles = 0, kernels = 0, launches = 0, errors = 0, userLines = 0;
  /// The rest is omitted before the first index is served.
  std::optional<StatusServed> served;
  /// The run served (index/files/Runs.h; null before an index, or when the traces hold no log), how many
  /// other runs the traces hold, and the baseline run (null when none, or not built yet).
  std::optional<std::string> run;
  uint64_t otherRuns = 0;
  std::optional<std::string> baseline;
};
void from_json(const json &j, StatusResult &s);
void to_json(json &j, const StatusResult &s);

// ---------------------------------------------------------------------------------------------------------
// inductor/compiles {uri?} -> CompilesResult: the compiled frames overview (a tree in VS Code, a list in
// Neovim), and explain --json's `compileHealth`.

struct CompilesParams {
  /// Only frames with a def line or an event in this user file. A member that is not a string is refused.
  std::optional<std::string> uri;
};
void from_json(const json &j, CompilesParams &p);
void to_json(json &j, const CompilesParams &p);

/// One compile-health event (index/health/CompileHealth.h HealthEvent).
struct CompileEvent {
  EventKind kind = EventKind::GraphBreak;
  int severity = 2;    ///< DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint.
  std::string message; ///< One line: the reason's title, the failed guard, "fail_type: ...".
  std::string code;    ///< PyTorch's id of the graph break (`GB0000`), `recompile-limit`, or empty.
  std::optional<Location> location; ///< The user line as it is now; null when not placed or gone.
  friend bool operator==(const CompileEvent &, const CompileEvent &) = default;
};

struct CompileAttemptEntry {
  int attempt = 0;
  std::string restartReason;
  friend bool operator==(const CompileAttemptEntry &, const CompileAttemptEntry &) = default;
};

struct ArtifactRef {
  std::string uri;
  std::string title;
  friend bool operator==(const ArtifactRef &, const ArtifactRef &) = default;
};

/// A line of a trace log (0-based): the compile's first record.
struct TraceRef {
  std::string uri;
  uint32_t line = 0;
  friend bool operator==(const TraceRef &, const TraceRef &) = default;
};

struct CompileEntry {
  std::string compileId; ///< `frame/frame_compile_id`.
  std::string label;
  std::optional<int64_t> rank; ///< null when not recorded.
  CompileStatus status = CompileStatus::Ok;
  std::string summary; ///< "graph break · 2 attempts · 3.70 s · 10 guards · FX graph cache miss".
  std::vector<CompileAttemptEntry> attempts;
  std::optional<double> seconds, backwardSeconds, runtimeSeconds;      ///< null when not recorded.
  std::optional<int64_t> guardCount, shapeEnvGuardCount, graphOpCount; ///< null when not recorded.
  /// `cache`: {fxGraph, aotAutograd}, each null when the log says nothing of it.
  std::optional<CacheOutcome> fxGraphCache, aotAutogradCache;
  std::optional<std::string> failType, failReason; ///< null unless it failed.
  std::vector<std::string> recompileReasons;
  std::vector<CompileEvent> events;
  std::vector<ArtifactRef> artifacts; ///< Output code and graphs.
  std::optional<TraceRef> trace;      ///< null when the log is unknown.
  friend bool operator==(const CompileEntry &, const CompileEntry &) = default;
};

/// `torch_dynamo_resume_in_<fn>_at_<line>`: what runs after a graph break.
struct ResumeOf {
  std::string function;
  uint32_t line = 0;
  friend bool operator==(const ResumeOf &, const ResumeOf &) = default;
};

struct FrameEntry {
  std::string function; ///< co_name as logged.
  std::string name;     ///< The user's name: co_name, else the name its frame id has in another compile.
  std::optional<ResumeOf> resumes;                          ///< null unless a resume frame.
  std::optional<int64_t> frameId, compiledAutogradId, rank; ///< null when not recorded.
  std::optional<Location> location;                         ///< The def line; null when unknown.
  std::optional<int64_t> resumeOf;          ///< Index into `frames`; null when none (or filtered out).
  CompileStatus status = CompileStatus::Ok; ///< The worst of its compiles'.
  std::string summary;
  std::vector<CompileEntry> compiles;
  friend bool operator==(const FrameEntry &, const FrameEntry &) = default;
};

/// The frames grouped as the user wrote them, by file (in order of first appearance) and function.
struct FunctionEntry {
  std::optional<std::string> file; ///< Base name; null when unknown.
  std::optional<std::string> path; ///< null when unknown.
  std::string function;
  std::optional<Location> location; ///< null when unknown.
  CompileStatus status = CompileStatus::Ok;
  std::string summary;
  std::vector<int64_t> frames; ///< Indexes into `frames`.
  friend bool operator==(const FunctionEntry &, const FunctionEntry &) = default;
};

struct CompilesResult {
  std::vector<FrameEntry> frames; ///< In the order torch.compile compiled them, per log.
  /// Omitted (with `summary` an empty object) when `uri` names no user file.
  std::optional<std::vector<FunctionEntry>> functions;
  std::optional<Counts> summary; ///< The whole index's counts; `{}` when `uri` names no user file.
};
void from_json(const json &j, CompilesResult &r);
void to_json(json &j, const CompilesResult &r);

// ---------------------------------------------------------------------------------------------------------
// inductor/hotLines {limit?, uri?} -> HotLinesResult: the per-line time table (VS Code's hottest-lines
// picker, Neovim's quickfix list), and the core of explain --json's `runtime`.

struct HotLinesParams {
  /// At most this many lines and kernels (default 200, at most 100,000). Deviation: a value that is not an
  /// unsigned number is ignored rather than refused (as clients have always sent it).
  uint64_t limit = 200;
  /// Only the lines of this user file (and no kernels). Ignored when not a string.
  std::optional<std::string> uri;
};
void from_json(const json &j, HotLinesParams &p);
void to_json(json &j, const HotLinesParams &p);

struct HotLine {
  std::optional<Location> location; ///< Where the line is now; null when gone from the file.
  std::string path;
  uint32_t line = 0; ///< 1-based: the line now, else the recorded one.
  std::string code;
  uint64_t ns = 0;              ///< Total over the profiles.
  uint64_t perStepNs = 0;       ///< ns per step when steps are marked, else ns.
  std::vector<uint64_t> stepNs; ///< Per marked step; empty when none.
  double percent = 0;           ///< Of all device time, 0..100.
  std::string label;            ///< What the lens shows: "133 µs/step", "400 µs total".
  uint32_t launches = 0;
  std::map<std::string, uint64_t> byKind; ///< "forward", "backward", ... -> ns.
  friend bool operator==(const HotLine &, const HotLine &) = default;
};

struct HotKernel {
  Location location;   ///< The launch site in the output code.
  std::string kernel;  ///< `name` or `name:debugHandle`.
  std::string compile; ///< The compile's label.
  uint64_t ns = 0, perStepNs = 0;
  std::vector<uint64_t> stepNs;
  double percent = 0;
  std::string label;
  // How close it ran to the machine (index/runtime/Roofline.h): Inductor's estimates of one launch
  // (kernel_num_gb, decimal GB; kernel_flop, FLOPs), the rates over its mean time per launch, the bound
  // ("memory", "compute", or "latency": a launch that would take under index::kLaunchFloorNs at the peaks),
  // the share of that bound's peak (0..100; for latency, the floor's share of the time per launch), and the
  // time (total over the profiles, ns) it took beyond the roofline's least time. Null where unknown: without
  // TORCHINDUCTOR_BENCHMARK_KERNEL=1, for extern kernels, without known peaks (share, bound, time left);
  // achievedTflopPerS also when Inductor counted no FLOPs.
  std::optional<double> numGb, flop, achievedGbPerS, achievedTflopPerS, peakPercent;
  std::optional<Bound> bound;
  std::optional<uint64_t> timeLeftNs;
  std::string roofline; ///< The hover's text after "Roofline:", or why not.
  friend bool operator==(const HotKernel &, const HotKernel &) = default;
};

struct HotLinesResult {
  TimeBasis basis = TimeBasis::None;
  std::string basisText; ///< For people: "per step, mean of 3 steps", "no profiler trace found".
  std::vector<std::string> steps;
  std::vector<uint64_t> stepNs;
  uint64_t totalNs = 0, eagerNs = 0, unjoinedNs = 0;
  std::vector<std::string> caveats;
  std::vector<std::string> profiles; ///< Paths.
  std::vector<HotLine> lines;        ///< Largest first.
  std::vector<HotKernel> kernels;    ///< Largest first; empty with `uri`.
  /// The peaks the roofline figures use: "H100 SXM: 3.35 TB/s HBM, 990 TFLOP/s dense BF16/FP16 tensor
  /// (vendor datasheet)", or "no peaks: " and why (no profile, an unknown GPU).
  std::string peak;
  /// The kernels with a time left on the table, most first (where tuning pays most); empty with `uri`,
  /// without Inductor's estimates or known peaks.
  std::vector<HotKernel> kernelsByTimeLeft;
};
void from_json(const json &j, HotLinesResult &r);
void to_json(json &j, const HotLinesResult &r);

// ---------------------------------------------------------------------------------------------------------
// inductor/launchSites: TextDocumentPositionParams (a user line) -> [Location]: the launch sites of the
// kernels computed for that line, one per site in each compile (the ranks' copies left out), for the lens
// command `inductor.showLaunchSites`. Written as JSON text (protocol/JsonWriter.h): thousands of sites.
using LaunchSitesParams = TextDocumentPositionParams;

// ---------------------------------------------------------------------------------------------------------
// inductor/compare {baseline?, current?} -> CompareResult: what changed since a baseline run
// (server/lsp/Compare.cpp, index/compare/Compare.h); explain --baseline writes the same struct as
// `comparison`.

struct CompareParams {
  /// Run ids (index/files/Runs.h), "latest", "previous" or paths; the served run and the server's baseline
  /// when omitted. Ignored when not strings.
  std::optional<std::string> baseline, current;
};
void from_json(const json &j, CompareParams &p);
void to_json(json &j, const CompareParams &p);

struct CompareRun {
  std::string id;                ///< The run id; may be empty (a run given by its logs).
  std::vector<std::string> logs; ///< Its TORCH_TRACE logs (local paths).
  friend bool operator==(const CompareRun &, const CompareRun &) = default;
};

struct CompareEvent {
  Change change = Change::New;            ///< New or Gone.
  EventKind kind = EventKind::GraphBreak; ///< GraphBreak, Recompile or Failure.
  std::string file;    ///< Local absolute path of the user file; empty when no user line is known.
  uint32_t line = 0;   ///< 1-based in the current file (a gone event's line no longer there: the baseline's).
  std::string code;    ///< The recorded source text of the line.
  std::string message; ///< The reason.
  friend bool operator==(const CompareEvent &, const CompareEvent &) = default;
};

struct CompareLine {
  std::string file;  ///< Local absolute path.
  uint32_t line = 0; ///< 1-based in the current file (a line no longer there: the baseline's).
  std::string text;  ///< The line's text, trimmed.
  Change change = Change::Same;
  std::vector<std::string> kernelsBefore, kernelsAfter; ///< Kernel names as the output code names them.
  std::vector<std::string> kernelsChanged;              ///< In both, their generated code differs.
  /// The line's kernels as its code lens counts them (a kernel once per graph of each compile: index/model/
  /// Counts.h), and the compiles they are of, before and after: the figures of the lens's `(+2)`.
  uint64_t kernelCountBefore = 0, kernelCountAfter = 0, compilesBefore = 0, compilesAfter = 0;
  /// GPU time in µs, per step when the run's profiles mark steps (else the total); null without one.
  std::optional<double> gpuTimeBeforeUs, gpuTimeAfterUs;
  friend bool operator==(const CompareLine &, const CompareLine &) = default;
};

struct CompareResult {
  std::optional<CompareRun> baseline; ///< Null when there is no baseline (then events and lines are []).
  CompareRun current;
  /// Why there is no comparison ("no earlier run"), empty when there is one.
  std::string reason;
  /// What each run's GPU times are.
  TimeBasis basisBefore = TimeBasis::None, basisAfter = TimeBasis::None;
  std::vector<CompareEvent> events; ///< New ones, then gone ones.
  std::vector<CompareLine> lines;   ///< By file, then line.
};
void from_json(const json &j, CompareResult &r);
void to_json(json &j, const CompareResult &r);

// inductor/ranks {run?} -> RanksResult: where the ranks of a run diverge (index/model/Ranks.h), each
// divergence once, on the user line that caused it; explain --json's `ranks`.

struct RanksParams {
  /// The run to compare (a run's name, as the runs of the served index are named); absent: the served one.
  /// A member that is not a string is refused.
  std::optional<std::string> run;
};
void from_json(const json &j, RanksParams &p);
void to_json(json &j, const RanksParams &p);

/// One divergence between ranks.
struct RankDivergenceEntry {
  RankDivergenceKind kind = RankDivergenceKind::Recompile;
  std::vector<int64_t> ranks;      ///< The ranks that differ from the others, sorted.
  uint64_t of = 0;                 ///< Ranks in the run.
  std::string compileId;           ///< "0/1".
  std::optional<std::string> file; ///< The causing user line's file: a local absolute path; null if unknown.
  std::optional<uint32_t> line;    ///< 1-based; null when unknown.
  std::string message;             ///< "recompiled on rank 2 only (1 of 4): temp == 1.0".
  std::string detail;              ///< For hovers: the first lines that differ, the collectives; may be "".
  friend bool operator==(const RankDivergenceEntry &, const RankDivergenceEntry &) = default;
};

struct RanksResult {
  uint64_t count = 0; ///< Ranks in the run (0 or 1: not a distributed run, nothing compared).
  std::vector<RankDivergenceEntry> divergences;
  friend bool operator==(const RanksResult &, const RanksResult &) = default;
};
void from_json(const json &j, RanksResult &r);
void to_json(json &j, const RanksResult &r);

// inductor/lowered: TextDocumentPositionParams (a line of a Triton kernel's source: in output code, in the
// kernel's file, in a log-only document) -> [LoweredStage]: the lines of each IR stage of the Triton cache
// entry that ran the kernel, which the IR's locations attribute to that source line. [] elsewhere, and when
// no cache entry is joined to the kernel.
using LoweredParams = TextDocumentPositionParams;

struct LoweredStage {
  std::string stage;               ///< "ttir", "ttgir", "llir" or "ptx", in that order.
  std::vector<Location> locations; ///< Whole lines of the stage's file, in file order; the first 4,000.
  uint64_t more = 0;               ///< Lines past those listed (`more`, absent when 0).
  /// Why the stage's file was not read (too large, past a limit of its line table, outside the roots), its
  /// `locations` then empty (`note`, absent when it was read).
  std::string note;
  friend bool operator==(const LoweredStage &, const LoweredStage &) = default;
};
void from_json(const json &j, LoweredStage &s);
void to_json(json &j, const LoweredStage &s);

// ---------------------------------------------------------------------------------------------------------
// A Triton kernel's resources as its cache entry and cubin say, and its roofline figures where a profile and
// Inductor's estimates allow (null otherwise).
struct KernelResources {
  std::optional<uint64_t> numWarps, numStages, sharedBytes, registers, spills;
  std::map<std::string, std::string> ir; ///< Stage ("ttir", "ptx", "cubin"...) -> local path.
  std::optional<double> numGb, flop, achievedGbPerS, achievedTflopPerS;
  friend bool operator==(const KernelResources &, const KernelResources &) = default;
};
void from_json(const json &j, KernelResources &r);
void to_json(json &j, const KernelResources &r);

/// explain --json's `kernels`: one entry per Triton kernel source launched by a graph's output code, named by
/// its identity (a kernel name repeats across graphs, recompiles and ranks, each time maybe another source),
/// with the resources of the cache entry joined to that source.
struct KernelEntry : KernelResources {
  std::string name;        ///< `triton_poi_fused_add_0`.
  std::optional<int> rank; ///< The rank whose compile launched it; null for a single process.
  std::string compileId;   ///< The compile's trace id, `0/1` or `0/1_1` (with its attempt); "" when none.
  std::string graph;       ///< "forward", "backward", "inference", "AOT" or "other" (Compile::kindWord).
  std::string outputCode;  ///< The output code that launches it: a local path, else its inductor-trace: name.
  /// The kernel's source file as the output code's `# kernel path:` records it, mapped to a local path when
  /// one exists; null when the output code names none.
  std::optional<std::string> kernelPath;
  /// The Triton cache entry directory joined to this source; null when none is (`join` says why).
  std::optional<std::string> cacheEntry;
  /// How the entry was chosen ("kernel file", "kernel file, autotuned", "name"), or why none was.
  std::string join;
  friend bool operator==(const KernelEntry &, const KernelEntry &) = default;
};
void from_json(const json &j, KernelEntry &e);
void to_json(json &j, const KernelEntry &e);

// NOLINTEND(readability-identifier-naming)

// ---------------------------------------------------------------------------------------------------------
// inductor/runs {} -> RunsResult: the runs the traces hold (index/files/Runs.h), oldest first
// (server/workspace/Runs.cpp).

struct RunEntry {
  std::string id;                       ///< "2026-11-27 02:31:04" (UTC start), ".2" on a collision.
  std::optional<std::string> startTime; ///< ISO 8601 UTC with microseconds; null when unknown.
  std::optional<std::string> endTime;   ///< Time of its last record, same form; null when unknown.
  std::vector<int> ranks;               ///< Empty: a single-process run.
  std::vector<std::string> logs;        ///< Absolute paths of its TORCH_TRACE logs.
  bool current = false;                 ///< The run every answer comes from.
  bool baseline = false;                ///< The run compared against (null baseline: none is).
};
struct RunsResult {
  std::vector<RunEntry> runs;
};
void from_json(const json &j, RunsResult &r);
void to_json(json &j, const RunsResult &r);

} // namespace inductor::protocol
