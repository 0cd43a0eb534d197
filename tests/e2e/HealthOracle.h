// tests/e2e/HealthOracle.h: the tests' own reading of compile health from a TORCH_TRACE log (the server's
// index/ code is deliberately not used), from which the expected diagnostics are derived.
//
// Rules, as the issue states them and independently of the server:
//  - graph break (`dynamo_graph_break_reason` artifact): at "Graph break in user code at F:L" when F is model
//    code, else at the innermost model frame of its "User code traceback"; title = the line before
//    "  Explanation:" (or the "Graph Break Reason:" text itself), code = the graph-break site id of its link;
//  - recompile (`recompile_reasons` artifact, one per failed cached compile): at the innermost model frame of
//    its "User stack trace", else its guard comment's `file:line`, else the failed TENSOR_MATCH guard of the
//    tensor it names in the cached compile's guard tree, else the function's def line;
//  - any of them, when none of these is model code (a function in a library): the innermost model frame of
//    the compile's `dynamo_start` stack, the user's call into the library;
//  - graph break code and link: the first graph break's of the text (not those of the graph breaks that
//    occurred while handling it, after "*** While handling this graph break ...");
//  - the recompile limit (fail_reason names recompile_limit/cache_size_limit, fail_type not FailOn*): a
//    Warning "recompile limit (N) reached" (N: "currently set to N", else dynamo_config's recompile_limit),
//    code `recompile-limit` with the reason's link, on the def line of the frame id (an earlier compile's
//    co_filename:co_firstlineno: the limit's own metrics name no function);
//  - a frame Dynamo skipped ("falling back to eager", "Skipping frame", "frame skipped:" in fail_reason or
//    the compile's graph-break record): no failure; its graph break record is the one entry, or without one
//    the failure becomes a graph break (Warning, its first link's id);
//  - compile failure (`compilation_metrics` fail_type): at fail_user_frame, else the innermost model frame
//    of the "User stack:" in fail_reason, of the "from user code:" section of fail_reason, then of the
//    dynamo_error tracebacks, then of their "User stack:", else the def line;
//  - recompiles: one per distinct reason text of a compile, without its "N/M: " prefix;
//  - specialisation (`symbolic_shape_specialization`): its user stack's innermost model frame.
// Model code = not isLibraryFrame (TraceOracle.h) and not a synthetic `<...>` file.
#pragma once

#include "e2e/TraceOracle.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace inductor::e2e {

struct ExpectedHealthEvent {
  std::string kind;    ///< "graph break", "recompile", "failure", "specialization".
  std::string compile; ///< "8/1".
  std::optional<int> rank;
  std::optional<Frame> at; ///< Recorded path and 1-based line; none when no model frame is known.
  std::string title;       ///< What the message must say.
  std::string code;        ///< Graph-break site id, fail_type, "recompile", "specialization".
  std::string href;
  int severity = 0;         ///< LSP DiagnosticSeverity.
  std::set<Frame> related;  ///< Graph breaks: the traceback's model frames other than `at`.
  std::vector<Frame> stack; ///< Graph breaks: the traceback's model frames, outermost first.
  std::string hintConfig;   ///< A `torch._dynamo.config.X = Y` statement a hint asks for.
  bool removeGraphBreak = false;
  std::optional<Frame> caller; ///< Recompiles: the call of the compiled function (for mark_dynamic).
  std::optional<int> sizeIndex;
  std::string tensor; ///< "x" of "tensor 'x' size mismatch".
};

/// A compile as the log records it.
struct RecordedHealthCompile {
  std::string id; ///< "8/1".
  std::optional<int> rank;
  std::string function, file;
  uint32_t firstLine = 0; ///< co_firstlineno.
  std::string failType;
  bool graphBreak = false, outputCode = false, recompile = false;
  bool ranEagerly =
      false; ///< fail_type set, but the frame ran eagerly (the recompile limit, a skipped frame).
  std::vector<Frame> startStack; ///< Its `dynamo_start` stack (every frame, recorded paths), outermost first.
};

struct HealthExpectation {
  std::vector<ExpectedHealthEvent> events;
  std::vector<RecordedHealthCompile> compiles;
};

bool isModelFrame(const std::string &path);

/// Compile health of one log.
HealthExpectation expectedHealth(const std::string &logPath);

} // namespace inductor::e2e
