// index/trace/CompileId.h: which torch.compile compilation a trace record belongs to.
//
// PyTorch's names (torch/_guards.py): CompileId = (compiled_autograd_id, frame_id, frame_compile_id), printed
// `frame_id/frame_compile_id`, or `!ca_id/frame_id/frame_compile_id` under compiled autograd. TraceId adds
// the `attempt` (a restart of the same compilation), printed `0/1_2` when attempt != 0. TORCH_TRACE records
// carry the four parts as separate top-level keys `frame_id`, `frame_compile_id`, `attempt`,
// `compiled_autograd_id` (trace_structured in torch/_logging/_internal.py); any of them may be absent or
// null, e.g. in AOTInductor export traces, which have no Dynamo frame at all.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace inductor::index {

struct CompileId {
  std::optional<int> frameId;
  std::optional<int> frameCompileId;
  std::optional<int> attempt;
  std::optional<int> compiledAutogradId;

  /// True when no component is known (records outside any compilation, AOTI export traces).
  bool empty() const { return !frameId && !frameCompileId && !attempt && !compiledAutogradId; }

  /// As CompileId.__str__ prints it: "0/1", "!2/0/1", "!2" (compiled autograd without a frame). Missing
  /// frame components print as "-" ("-/-"); the attempt is not part of it (see traceStr()). Empty: "".
  std::string str() const;
  /// As TraceId.__str__ prints it: str() plus "_<attempt>" when the attempt is not 0, e.g. "0/1_1".
  std::string traceStr() const;
  /// tlparse's compile directory name `frame_compile_attempt`, e.g. "0_0_0"; missing components are "-",
  /// and compiled autograd adds a "!<ca_id>_" prefix ("!2_0_1_0"). Safe as a file name.
  std::string dirName() const;

  /// Parses what str(), traceStr() and tlparse print, tolerating surrounding brackets/blanks and extra
  /// components: "0/1", "[0/1]", "0/1_1" (attempt 1), "!0/1/2", "[!0/0/1]", "!3", "0/1/5" (extra ignored).
  /// nullopt when there is no frame id pair and no compiled autograd id (e.g. "None", "", "abc").
  static std::optional<CompileId> parse(std::string_view text);

  /// Ordered by frameId, frameCompileId, attempt, compiledAutogradId; a missing component sorts first.
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the synthesized comparison with 0.
  friend auto operator<=>(const CompileId &, const CompileId &) = default;
  friend bool operator==(const CompileId &, const CompileId &) = default;
};

} // namespace inductor::index

template <> struct std::hash<inductor::index::CompileId> {
  size_t operator()(const inductor::index::CompileId &id) const noexcept;
};
