// index/analysis/TritonIR.h: the line tables of a Triton kernel's IR, mapping each IR line to the kernel
// source line it was generated from, and back. Parsed on request, never at index time.
//
// Formats (written by Triton's compiler, triton/compiler/compiler.py, through MLIR and LLVM):
//   - TTIR, TTGIR and the `.source` MLIR: each op line ends in `loc(...)`: `loc("file":line:col)`, an alias
//     `loc(#locN)` defined by a `#locN = loc(...)` line, a name `loc("x"(#locM))`, a call site
//     `loc(callsite(#callee at #caller))` (a helper inlined into the kernel) or `loc(fused[...])`.
//   - LLIR: instructions carry `!dbg !N`; `!N = !DILocation(line: L, column: C, scope: !S, inlinedAt: !I)`,
//     the scope a `!DISubprogram`/`!DILexicalBlock` with `file: !F`, `!F = !DIFile(filename:, directory:)`.
//   - PTX: `.loc FILE LINE COL` lines set the location of the instructions after them; `.file FILE "path"`
//     (often after the function) names the files; LLVM's comment after a `.loc` spells an inlined chain
//     `// helpers.py:116:15 @[ helpers.py:129:29 @[ c<hash>.py:38:37 ] ]` (file names only).
// Each IR line maps to the outermost frame of its location: where the kernel itself wrote the code (an
// inlined helper's line maps to the kernel line that called it).
//
// Units: IR lines 0-based; source lines 1-based (as the IR writes them), columns as written. Hostile input:
// alias chains are followed at most kMaxLocDepth deep; nothing recurses on the input's nesting beyond it.
#pragma once

#include "index/files/TritonCache.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

/// A location in a kernel's source, as the IR records it.
struct IrLocation {
  uint32_t file = UINT32_MAX; ///< Index into IrLineMap::files.
  uint32_t line = 0;          ///< 1-based.
  uint32_t column = 0;
  bool valid() const { return file != UINT32_MAX && line > 0; }
  friend bool operator==(const IrLocation &, const IrLocation &) = default;
};

/// A function (kernel) defined in an IR file.
struct IrFunction {
  std::string name;
  uint32_t line = 0, column = 0; ///< Of its name (0-based line, byte column).
  uint32_t endLine = 0;          ///< Its last line (inclusive).
};

struct IrLineMap {
  TritonStage stage = TritonStage::Ptx;
  std::vector<std::string> files; ///< Source files as recorded (absolute paths, or file names).
  /// Per IR line: the source location it came from (invalid for lines without one).
  std::vector<IrLocation> locations;
  /// Per IR line: whether it is code (a PTX instruction; an MLIR op or LLVM instruction with a location).
  std::vector<uint8_t> code;
  std::vector<IrFunction> functions;

  /// The index in `files` of the file whose name (last path component) is `fileName`'s, nullopt if none.
  std::optional<uint32_t> fileNamed(std::string_view fileName) const;
  /// Code lines (0-based) of `line` (1-based) of the file `file`, in order.
  std::vector<uint32_t> linesOf(uint32_t file, uint32_t line) const;
};

constexpr size_t kMaxLocDepth = 64;

IrLineMap parsePtx(std::string_view text);
IrLineMap parseMlir(std::string_view text, TritonStage stage = TritonStage::Ttir);
IrLineMap parseLlir(std::string_view text);
/// The parser of `stage`; an empty map for Cubin.
IrLineMap parseTritonIr(TritonStage stage, std::string_view text);

} // namespace inductor::index
