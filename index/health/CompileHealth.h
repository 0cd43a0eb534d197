// index/health/CompileHealth.h: compile health, what torch.compile did with each frame of the user's code:
// where it broke the graph and why, why it recompiled, what failed, which guards it installed and what
// compiling cost. The same records tlparse reads (its compile directory and failures table) and that
// TORCH_LOGS= graph_breaks,recompiles,guards,dynamic print.
//
// Records (TORCH_TRACE, see TraceLog.h; fields from torch/_dynamo/convert_frame.py, guards.py, utils.py,
// symbolic_convert.py and torch/fx/experimental/symbolic_shapes.py):
//  - `dynamo_start` {"stack": [{"line", "name", "filename": <str id>, "loc"}]}: a frame starts compiling; the
//    stack ends at the compiled function.
//  - `compilation_metrics` {co_name, co_filename, co_firstlineno, fail_type, fail_reason,
//    fail_user_frame_filename/_lineno, restart_reasons, recompile_reason, guard_count, shape_env_guard_count,
//    graph_op_count, entire_frame_compile_time_s or duration_us, ...}; `bwd_compilation_metrics` and older
//    `aot_autograd_backward_compilation_metrics` for the backward graph; `compilation_metrics_runtime`
//    (autotuning and CUDA graph recording at the first run).
//  - artifacts: `dynamo_graph_break_reason` (string: "Graph break in user code at F:L", the reason with its
//    explanation, hints and graph-break-site link, "User code traceback:"), `recompile_reasons` (json: one
//    string, or a list, "<cached compile id>: <failed guard>[  # code  # file:line in fn]" plus an optional
//    "User stack trace:"), `dynamo_error` (string: the traceback of a failed compile), cache outcomes
//    `fx_graph_cache_{hit,miss,bypass}` and `aotautograd_cache_{hit,miss,bypass}`.
//  - `dynamo_cpp_guards_str` (payload: the guard tree; each guard ends with `# user code  # file:line in fn`,
//    the file shortened by torch.utils._traceback.shorten_filename, e.g. "mp/work/model.py").
//  - dynamic shapes: `create_symbol`, `create_unbacked_symbol`, `symbolic_shape_specialization`,
//    `guard_added_fast`, `guard_added`, each with a `user_stack` (same frame shape as dynamo_start).
// Older PyTorch spells some of these differently (no graph-break artifact, only restart_reasons; "Reason:"
// instead of "Graph Break Reason:"; "tensor 'L['x']' ..." in guard failures): the parsers accept both.
//
// This file has the model (frames -> compiles -> attempts, and the events placed on user lines) and the
// pure parsers of the record texts; BuildHealth.cpp builds the model from the logs, HealthQueries.cpp answers
// queries (see Index.h). Lines are 1-based as Python prints them (StackFrame, Origin); nothing here knows
// LSP. All functions are pure, thread-safe and never throw.
#pragma once

#include "index/analysis/Provenance.h"
#include "index/support/SharedVector.h"
#include "index/trace/CompileId.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace inductor::index {

struct Origin;

// ---------------------------------------------------------------------------------------------------------------
// Parsed record texts.

/// A graph break explained: a `dynamo_graph_break_reason` payload, a `restart_reasons` entry or a
/// `fail_reason` of Unsupported (torch/_dynamo/exc.py format_graph_break_message / unimplemented).
struct GraphBreakReason {
  std::string title;       ///< "Failed to trace builtin operator" (the graph-break type).
  std::string context;     ///< "Encountered graph break when attempting to trace CALL: ..." when given.
  std::string explanation; ///< The "Explanation:" text.
  std::vector<std::string> hints;
  std::string developerContext; ///< "Developer debug context:".
  std::string id;               ///< Graph-break site id, "gb0059", from the link.
  std::string url;              ///< "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html".
  std::optional<StackFrame> at; ///< "Graph break in user code at F:L".
  std::vector<StackFrame> userStack; ///< "User code traceback:", outermost first.
  /// The reason as PyTorch wrote it (from the reason line to before the traceback), for hovers.
  std::string text;
  /// Graph breaks that occurred while Dynamo handled this one ("*** While handling this graph break, another
  /// graph break occurred: ***", torch/_dynamo/exc.py): each parsed as a reason of its own, in order. The
  /// fields above are the first graph break's only (its title, explanation, hints and link), `text` all.
  std::vector<GraphBreakReason> followUps;
  /// Whether the text says that Dynamo gave up on the whole frame, which then runs eagerly: "Skipping the
  /// function and falling back to eager" (the graph-break artifact's reason line), "Skipping the frame and
  /// falling back to eager" (gb7000, a graph break in a loop), "Skipping frame because ..." (older PyTorch),
  /// "frame skipped: fn (file line N)" (its developer context). "Compiling up to the previous resumable
  /// state, then skipping the rest of the function" is not: that frame compiled.
  bool skipsFrame = false;
};
/// Parses any of the texts above; fields the text lacks stay empty. Never fails.
GraphBreakReason parseGraphBreakReason(std::string_view text);

/// The recompile limit a `fail_reason` says was hit (torch/_dynamo/convert_frame.py; PyTorch 2.11: "Dynamo
/// recompile limit exceeded ... (currently set to 3) ... Developer debug context: Limit type:
/// recompile_limit"; older: "cache_size_limit reached", "torch._dynamo hit config.recompile_limit (8)").
struct RecompileLimit {
  /// The config name: "recompile_limit", "accumulated_recompile_limit", "cache_size_limit", ...; empty when
  /// the text names no limit (then it is not a limit failure).
  std::string name;
  std::optional<int64_t> value; ///< "currently set to N", "config.X (N)"; none when the text does not say.
};
/// Reads the limit of a limit failure; `name` stays empty for any other text. Never fails.
RecompileLimit parseRecompileLimit(std::string_view failReason);

/// The frames of the "from user code:" section that torch/_dynamo/exc.py (augment_exc_message) appends to
/// an exception raised while Dynamo traced user code, outermost first: the user line being traced, and the
/// calls that led to it inside the compiled function. Empty when the text has no such section.
std::vector<StackFrame> userCodeFrames(std::string_view text);

/// At most this many recompile reasons are kept per compile (guards.py writes one per cached compile whose
/// guards failed: at most the recompile limit, 8 by default); the rest are counted, not kept.
constexpr size_t kMaxRecompileReasons = 256;
/// A recompile reason longer than this (bytes) is shortened, marked " … [cut: over 64 KiB]", and counted.
constexpr size_t kMaxRecompileReasonBytes = 64u << 10;
/// A metadata value (compilation_metrics, symbolic-shape records) longer than this (bytes of JSON text) is
/// not parsed: it is read as absent and counted (RecordedCompile::valuesCut). Real values are a few KB.
constexpr size_t kMaxMetadataValueBytes = 1u << 20;

/// A `recompile_reasons` payload: a JSON string or list of strings (guards.py writes one reason as a bare
/// string, several as a list), or plain text. One entry per cached compile whose guards failed. Scanned,
/// never parsed whole: memory follows the reasons kept (at most kMaxRecompileReasons, each at most
/// kMaxRecompileReasonBytes); the reasons not kept whole are added to `*cut` when given.
std::vector<std::string> splitRecompileReasons(std::string_view payload, size_t *cut = nullptr);

/// One failed guard of a recompile (guards.py get_guard_fail_reason_helper).
struct GuardFailure {
  std::string cachedCompile; ///< The compile whose guards failed, as printed ("8/0"); may be empty.
  std::string reason;        ///< "tensor 'x' size mismatch at index 0. expected 8, actual 16", "k == 2".
  std::string userCode;      ///< The user code the guard comment quotes, when it does.
  /// Where the guard came from per its comment: `file` as printed (often shortened, see the file comment).
  std::optional<StackFrame> at;
  std::vector<StackFrame> userStack; ///< "User stack trace:", outermost first.
  /// The guarded value the reason names, in guard-source syntax: "L['x']" for "tensor 'x' ...",
  /// "G['SCALE']" for "G['SCALE'] == 2.0", "L['k']" for "k == 2"; empty when unknown.
  std::string source;
  std::optional<int> sizeIndex; ///< N of "size mismatch at index N".
};
GuardFailure parseGuardFailure(std::string_view text);

/// Where a guard's comment says its user code is: `PATH:LINE in FUNCTION`, the path as printed (often
/// shortened). Views of the GuardTree that holds the guard.
struct GuardSite {
  std::string_view file;
  uint32_t line = 0;
  std::string_view function;
};

/// One leaf guard of a `dynamo_cpp_guards_str` tree (torch/_dynamo/guards.py prints the tree). Its texts are
/// views of the GuardTree that holds it: valid while a copy of that tree is alive.
struct GuardEntry {
  std::string_view kind;       ///< "TENSOR_MATCH", "TYPE_MATCH", "LAMBDA_GUARD", "GLOBAL_STATE", ...
  std::string_view source;     ///< The enclosing manager's `source=` ("L['x']"), empty at the root.
  std::string_view expression; ///< The guard without its comment, e.g. "check_tensor(L['x'], ...)".
  std::string_view userCode;   ///< The user code the comment quotes.
  std::optional<GuardSite> at; ///< From the comment.
};

/// The leaf guards of one tree, in print order, and the one text their views share (each manager source,
/// kind, file and function once). Copies share it; immutable once parsed. A tree of a few thousand guards
/// holds about its payload's size (the strings of a guard each on its own were twice that).
class GuardTree {
public:
  GuardTree() = default;
  size_t size() const { return data_ ? data_->entries.size() : 0; }
  bool empty() const { return size() == 0; }
  const GuardEntry &operator[](size_t i) const { return data_->entries[i]; }
  const GuardEntry *begin() const { return data_ ? data_->entries.data() : nullptr; }
  const GuardEntry *end() const { return data_ ? data_->entries.data() + data_->entries.size() : nullptr; }
  /// Whether both hold the same parsed tree (not only equal guards).
  bool sharedWith(const GuardTree &other) const { return data_ && data_ == other.data_; }
  /// The same for every copy of one parse; null for an empty tree.
  const void *identity() const { return data_.get(); }

private:
  friend GuardTree parseGuardTree(const std::vector<std::string_view> &lines);
  struct Data {
    std::string text;
    std::vector<GuardEntry> entries;
  };
  std::shared_ptr<const Data> data_;
};
/// Parses the lines of a `dynamo_cpp_guards_str` payload: a guard is a `+- KIND: EXPR  # code  # site` line,
/// its source the nearest enclosing `GuardManager: source=...`. Lines of no guard are skipped.
GuardTree parseGuardTree(const std::vector<std::string_view> &lines);

/// Splits a guard's text at its comment: "EXPR  # code  # file:line in fn (extra)". Returns the expression;
/// fills `userCode` and `at` when the comment has them.
std::string splitGuardComment(std::string_view text, std::string &userCode, std::optional<StackFrame> &at);

/// A record about dynamic shapes (torch/fx/experimental/symbolic_shapes.py).
struct ShapeRecord {
  enum class Kind : uint8_t { CreateSymbol, UnbackedSymbol, Specialization, GuardAdded };
  Kind kind = Kind::CreateSymbol;
  std::string symbol;                ///< "s77".
  std::string source;                ///< "L['x'].size()[0]" (sources joined by ", ").
  std::string value;                 ///< create_symbol `val`, specialization `value`.
  std::string range;                 ///< create_symbol `vr`, "[2, int_oo]".
  std::string reason;                ///< specialization `reason`, "range_refined_to_singleton".
  std::string expression;            ///< guard `expr`, "Eq(s77, 8)".
  std::vector<StackFrame> userStack; ///< `user_stack` (else `stack`), outermost first.
  std::vector<StackFrame> stack;     ///< `stack`: the whole Python stack, Dynamo's own frames included.
};

/// Frames of a record's `stack`/`user_stack` JSON array: objects {"line", "name", "filename" (str-table id or
/// string), "loc"} or arrays [filename, line, name]; `filename(id)` looks up interned names (empty: unknown).
/// Anything else in the array is skipped; text that is not exactly one well-formed array gives no frames.
/// Of repeated keys in a frame, the first counts (as json_scan reads record metadata).
std::vector<StackFrame> stackFromJsonText(std::string_view json,
                                          const std::function<std::string(int)> &filename);

// ---------------------------------------------------------------------------------------------------------------
// The model. Built by IndexBuilder (BuildHealth.cpp); owned by the Index; indices are stable for its
// lifetime.

enum class CacheOutcome : uint8_t { Unknown, Hit, Miss, Bypass };
std::string_view cacheOutcomeName(CacheOutcome c); ///< "hit", "miss", "bypass", "" for Unknown.

/// The outcome of one compile, most severe first.
enum class CompileStatus : uint8_t {
  Failed,      ///< fail_type set (an exception, a failing backend, fullgraph=True breaking...).
  NotCompiled, ///< A recompile that never compiled (the recompile limit), or a frame Dynamo skipped.
  GraphBreak,  ///< Compiled, with one or more graph breaks.
  Recompiled,  ///< Compiled because the guards of every cached compile failed.
  Ok,
};
std::string_view compileStatusName(CompileStatus s); ///< "failed", "not compiled", "graph break", ...

enum class HealthEventKind : uint8_t { GraphBreak, Recompile, Failure, Specialization };

/// A kind as prose ("graph break", "recompile", "failure", "specialization": explain's text) and as a
/// heading ("Graph break", "Recompile", "Compile failure", "Dynamic shape specialized": hovers). The wire
/// names of inductor/compiles are protocol/'s.
std::string_view healthEventWord(HealthEventKind kind);
std::string_view healthEventHeading(HealthEventKind kind);

/// How an event is shown: the LSP severities, decided here because they are facts about compiling.
enum class HealthSeverity : uint8_t { Error = 1, Warning = 2, Information = 3, Hint = 4 };

/// One attempt of a compile (a RestartAnalysis starts a new one: graph breaks are found in attempt 0, and
/// attempt 1 compiles up to them).
struct CompileAttempt {
  int attempt = 0;
  std::string restartReason; ///< Why a later attempt followed (the graph break's title); empty for the last.
};

/// Something that happened while compiling, placed on a user line when the trace says where.
struct HealthEvent {
  HealthEventKind kind = HealthEventKind::GraphBreak;
  uint32_t compile = 0;       ///< Index into CompileHealth::compiles.
  std::optional<uint32_t> at; ///< Index into CompileHealth::places; none: no model frame is known.
  /// Where the event is shown (diagnostics, hovers, the by-line lookups): `at`, or, when at's file is not on
  /// this machine, the innermost frame of `stack` whose file is: the user's call into a library that is only
  /// in the environment the trace was made in (a cluster's), as clangd shows a header's errors on its
  /// #include line. Set by the build.
  std::optional<uint32_t> shownAt;
  HealthSeverity severity = HealthSeverity::Warning;
  std::string title;              ///< One line: the reason's title, the failed guard, "fail_type: ...".
  std::string explanation;        ///< Graph breaks and failures: the "Explanation:" text.
  std::vector<std::string> hints; ///< PyTorch's hints, verbatim.
  std::string text;               ///< Everything PyTorch said about it (for hovers).
  std::string id, url;            ///< Graph-break site id ("gb0059") and its page.
  std::vector<uint32_t> stack;    ///< Places of the user traceback, outermost first (model frames only).
  /// Places related to the event beyond its stack: the raise site of a failing backend, the guard a
  /// recompile failed on.
  std::vector<uint32_t> related;
  // Recompiles.
  std::string cachedCompile;    ///< Whose guards failed ("8/0").
  std::string guardSource;      ///< GuardFailure::source.
  std::optional<int> sizeIndex; ///< GuardFailure::sizeIndex.
  bool limitReached = false;    ///< The recompile limit was hit for this frame.
  /// Every cached compile whose guards failed with this reason: one event for an identical reason failing
  /// against several cached compiles ("4/2", "4/1", "4/0"), `cachedCompile` is the first.
  std::vector<std::string> cachedCompiles;
  /// Dynamo gave up on the frame here and it runs without compiling: the recompile limit (a Recompile event
  /// of its own, on the function's def line) or a graph break Dynamo could not handle, which made it skip the
  /// frame (a GraphBreak event: GraphBreakReason::skipsFrame). Never a hard failure: the call ran, eagerly.
  bool ranEagerly = false;
  // Failures.
  std::string failType; ///< "BackendCompilerFailed", ...
  // Specialisations.
  std::string symbolSource; ///< "L['x'].size()[0]".
};

/// A dynamic-shape record of a compile, placed on its user line.
struct DynamicShape {
  /// Without its stacks (`stack` and `userStack` are empty): they were placed, in `at` and the events.
  ShapeRecord record;
  std::optional<uint32_t> at;
};

/// One compile of a frame: `frame_id/frame_compile_id` (CompileId::str), all its attempts.
struct FrameCompile {
  CompileId id; ///< Attempt = the last attempt seen.
  std::optional<int> rank;
  uint32_t frame = 0;     ///< Index into CompileHealth::frames.
  uint32_t traceFile = 0; ///< Index into Index::traceFiles().
  uint32_t firstLine = 0; ///< 0-based line in the log of the compile's first record.
  CompileStatus status = CompileStatus::Ok;
  std::vector<CompileAttempt> attempts;
  bool recompile = false; ///< frame_compile_id > 0, or recompile reasons were logged.
  std::string failType, failReason;
  std::optional<double> compileSeconds;  ///< entire_frame_compile_time_s (else duration_us).
  std::optional<double> backwardSeconds; ///< The backward graph's compile (bwd_compilation_metrics).
  std::optional<double> runtimeSeconds;  ///< Autotuning/CUDA graphs at the first run (..._runtime).
  std::optional<int64_t> guardCount, shapeEnvGuardCount, graphOpCount;
  CacheOutcome fxGraphCache = CacheOutcome::Unknown, aotAutogradCache = CacheOutcome::Unknown;
  std::vector<std::string> recompileReasons; ///< As logged, "8/0: tensor 'x' size mismatch ...".
  std::vector<std::string> restartReasons;   ///< compilation_metrics restart_reasons.
  std::vector<uint32_t> events;              ///< Indices into CompileHealth::events.
  /// The guards Dynamo installed for it (dynamo_cpp_guards_str), as parsed: shared with the ranks and
  /// recompiles that installed the same tree (GuardTrees), not copied.
  GuardTree guards;
  /// Per guard, where the user code asked for it: an index into CompileHealth::places. Shared with the
  /// compiles whose tree and recorded files place it alike.
  SharedVector<std::optional<uint32_t>> guardPlaces;
  std::vector<DynamicShape> shapes;
  /// dynamo_start's stack as places (model frames only, outermost first, a place repeated when two frames are
  /// on one line).
  std::vector<uint32_t> stack;
  /// The line that called the compiled function, when the trace shows it and it is model code: the frame
  /// entering Dynamo (torch/_dynamo/eval_frame.py) in a dynamic-shape record's stack, else the frame above
  /// the function in a graph break's user traceback. (dynamo_start's stack lacks the immediate caller.)
  std::optional<uint32_t> caller;
  /// The graph compilations (output code) of this compile: forward, backward, inference (Index::compiles).
  std::vector<uint32_t> outputs;
  std::string label() const; ///< "[8/1]", "[8/1] rank 1".
};

/// A code object Dynamo compiled (torch's frame_id), in one process: every compile of it.
struct CompiledFrame {
  std::optional<int> frameId, compiledAutogradId, rank;
  uint32_t traceFile = 0;
  std::string function;        ///< co_name.
  std::optional<uint32_t> def; ///< Index into CompileHealth::places: co_filename:co_firstlineno.
  std::string recordedFile;    ///< co_filename as recorded.
  /// For `torch_dynamo_resume_in_<fn>_at_<line>` frames (what runs after a graph break): the frame of <fn>.
  std::optional<uint32_t> resumeOf;
  std::vector<uint32_t> compiles; ///< Indices into CompileHealth::compiles, in compile order.
};

/// Everything about compile health in an Index. Places are user-source locations (Origin: resolved local
/// path, recorded path, 1-based line); every event, guard and frame points into `places`.
struct CompileHealth {
  std::vector<CompiledFrame> frames;
  std::vector<FrameCompile> compiles;
  std::vector<HealthEvent> events;
  std::vector<Origin> places;

  /// Lookup tables, filled by the build: normalized local path -> 1-based line -> indices.
  struct LineIndex {
    std::map<uint32_t, std::vector<uint32_t>> events;                      ///< Into `events`.
    std::map<uint32_t, std::vector<uint32_t>> defs;                        ///< Into `frames` (def lines).
    std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> guards; ///< (compile, guard).
    std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> shapes; ///< (compile, shape).
  };
  std::unordered_map<std::string, LineIndex> byPath;
};

// ---------------------------------------------------------------------------------------------------------------
// Queries' results (Index::healthDiagnostics, compiledFunctions, healthAt).

/// The events of one kind on one user line, merged over compiles and ranks: what a diagnostic shows.
struct HealthDiagnostic {
  HealthEventKind kind = HealthEventKind::GraphBreak;
  HealthSeverity severity = HealthSeverity::Warning;
  uint32_t line = 0;              ///< 1-based.
  std::string message;            ///< Title, explanation and hints; the compiles and ranks it happened in.
  std::string code;               ///< Graph-break site id, "recompile", fail_type, "specialization".
  std::string href;               ///< The graph-break site's page, when known.
  std::vector<uint32_t> events;   ///< Indices into CompileHealth::events, in compile order.
  std::vector<uint32_t> compiles; ///< Distinct compiles (CompileHealth::compiles).
  size_t ranks = 0;               ///< Distinct ranks (0 for single-process runs).
  /// The user traceback and related places of the first event, with what each is ("in main", ...).
  std::vector<std::pair<uint32_t, std::string>> related;
};

/// A compiled function's def line, for code lenses and hovers: its frame and the frames resumed after its
/// graph breaks.
struct CompiledFunction {
  uint32_t line = 0; ///< 1-based def line.
  std::string function;
  std::vector<uint32_t> frames;   ///< The function's own frames (one per rank/process), then resumes.
  std::vector<uint32_t> compiles; ///< Every compile of those frames, in log order.
};

/// What compile health knows about one user line.
struct HealthAtLine {
  std::vector<uint32_t> events;
  std::vector<CompiledFunction> functions;           ///< Defined on this line.
  std::vector<std::pair<uint32_t, uint32_t>> guards; ///< (compile, guard index) installed for this line.
  std::vector<std::pair<uint32_t, uint32_t>> shapes; ///< (compile, shape index) recorded at this line.
  bool empty() const { return events.empty() && functions.empty() && guards.empty() && shapes.empty(); }
};

// ---------------------------------------------------------------------------------------------------------------
// One log's compile health as recorded (paths as written, nothing resolved or placed): the first step of the
// build, which BuildHealth.cpp turns into the model above.

class TraceLog;

/// Everything one log says about one compile (frame_id/frame_compile_id, all attempts).
struct RecordedCompile {
  CompileId id; ///< Attempt = the highest seen.
  std::optional<int> rank;
  uint32_t firstLine = 0;             ///< 0-based line of the compile's first record.
  bool started = false;               ///< A dynamo_start was seen.
  bool hasMetrics = false;            ///< A compilation_metrics was seen.
  std::vector<StackFrame> startStack; ///< dynamo_start's stack, outermost first (ends at the function).
  std::string function, file;         ///< co_name, co_filename.
  uint32_t firstLineNo = 0;           ///< co_firstlineno.
  std::string failType, failReason;
  std::optional<StackFrame> failUserFrame; ///< fail_user_frame_filename/_lineno.
  std::vector<std::string> restartReasons;
  std::string recompileReasonMetric; ///< compilation_metrics recompile_reason.
  std::optional<double> compileSeconds, backwardSeconds, runtimeSeconds;
  std::optional<int64_t> guardCount, shapeEnvGuardCount, graphOpCount;
  /// The limits of compilation_metrics' `dynamo_config` (a JSON text): recompile_limit (older:
  /// cache_size_limit) and accumulated_recompile_limit (accumulated_cache_size_limit); none when not logged.
  std::optional<int64_t> recompileLimit, accumulatedRecompileLimit;
  std::string backwardFailType, backwardFailReason;
  struct Break {
    int attempt = 0;
    GraphBreakReason reason;
  };
  std::vector<Break> graphBreaks;            ///< dynamo_graph_break_reason artifacts.
  std::vector<std::string> recompileReasons; ///< recompile_reasons artifact entries.
  size_t recompileReasonsCut = 0;  ///< Reasons dropped or shortened (kMaxRecompileReasons, ...Bytes).
  size_t valuesCut = 0;            ///< Metadata values over kMaxMetadataValueBytes, read as absent.
  std::vector<std::string> errors; ///< dynamo_error tracebacks.
  GuardTree guards;                ///< The last dynamo_cpp_guards_str tree (see GuardTrees).
  std::vector<ShapeRecord> shapes;
  CacheOutcome fxGraphCache = CacheOutcome::Unknown, aotAutogradCache = CacheOutcome::Unknown;
  std::vector<int> attempts; ///< Attempt numbers seen, sorted.
};

struct TraceRecord;

/// The guard trees of the logs of one build, each parsed once: every rank of a data-parallel job installs the
/// same guards (thousands per compile). A `dynamo_cpp_guards_str` payload is looked up by its has_payload
/// digest and length and confirmed by comparing its bytes, so different text is never shared even when a
/// digest is wrong. Thread-safe; the logs it was given must outlive it (it keeps views of their payloads).
class GuardTrees {
public:
  /// The parsed tree of `record`'s payload (a record of `log`).
  GuardTree parse(const TraceLog &log, const TraceRecord &record);

private:
  struct Parsed {
    std::string_view payload;
    GuardTree tree;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, std::vector<Parsed>> byDigest_;
};

/// Reads compile health from a log: one RecordedCompile per (compiled autograd id, frame id, frame compile
/// id), in order of first appearance. Records without a frame id (AOTInductor exports) are ignored; a record
/// whose metadata or payload does not parse contributes what it can. Guard trees are parsed through `trees`
/// when given (shared with the other logs' equal trees), else each on its own. The log's pages are returned
/// (TraceLog::releasePages) as it goes and at the end: nothing of it stays resident.
std::vector<RecordedCompile> readCompileHealth(const TraceLog &log, GuardTrees *trees = nullptr);

} // namespace inductor::index
