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
//
// Cost (IR files come from outside: a cache entry's `.ptx` can be any size): the text is walked line by line,
// never split into a table of lines, and only the located code lines are kept (16 bytes each), so a file of
// blank lines or comments keeps nothing. Every count the input controls is bounded by IrLimits, and looked
// up in maps (file names, `.loc` comment names, aliases, metadata nodes), never scanned: parsing is linear in
// the text. A file past a limit is refused, never cut: the map's `error` says which limit, and nothing of
// the map may be served then (readTritonIr turns it into an error).
#pragma once

#include "index/files/TritonCache.h"

#include <cstddef>
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

/// A code line of an IR file (a PTX instruction, an MLIR op or LLVM instruction) and the source location it
/// came from.
struct IrCodeLine {
  uint32_t line = 0; ///< 0-based IR line.
  IrLocation location;
};

/// A function (kernel) defined in an IR file.
struct IrFunction {
  std::string name;
  uint32_t line = 0, column = 0; ///< Of its name (0-based line, byte column).
  uint32_t endLine = 0;          ///< Its last line (inclusive).
};

/// What one IR file may make the parser keep; each far above what Triton writes (the kernel_ir fixture's
/// largest PTX has 150 code lines and 2 files; the largest PTX seen, ~1 MB, about 30,000 code lines).
struct IrLimits {
  /// Located code lines kept (16 bytes each: 64 MiB), as many as a 64 MiB file of instructions holds.
  size_t maxCodeLines = size_t{1} << 22;
  size_t maxFiles = 4096;              ///< Distinct source files, and PTX `.file` directives.
  size_t maxNameBytes = 4096;          ///< One source file's path, one function's name.
  size_t maxAliases = size_t{1} << 18; ///< MLIR `#loc` aliases, LLVM `!N = ...` metadata nodes.
  size_t maxFunctions = 4096;
};

struct IrLineMap {
  TritonStage stage = TritonStage::Ptx;
  std::vector<std::string> files; ///< Source files as recorded (absolute paths, or file names).
  /// The code lines that have a location, in line order.
  std::vector<IrCodeLine> code;
  /// The lines of location directives (PTX `.loc`), each with the location it names, in line order: not code
  /// (no instruction is counted for them), but where definition on such a line goes.
  std::vector<IrCodeLine> directives;
  std::vector<IrFunction> functions;
  uint32_t lineCount = 0; ///< Lines of the text.
  /// Why the file was refused ("more than 4,096 source files"), empty when it was not: the rest of the map is
  /// then partial and must not be served.
  std::string error;

  /// The location of IR line `line` (0-based) when it is a located code line or a location directive.
  std::optional<IrLocation> locationAt(uint32_t line) const;
  /// The index in `files` of the file whose name (last path component) is `fileName`'s, nullopt if none.
  std::optional<uint32_t> fileNamed(std::string_view fileName) const;
  /// Code lines (0-based) of `line` (1-based) of the file `file`, in order.
  std::vector<uint32_t> linesOf(uint32_t file, uint32_t line) const;
  /// Bytes this map holds (its tables and strings), for the cache that keeps maps between requests.
  size_t keptBytes() const;
};

constexpr size_t kMaxLocDepth = 64;

IrLineMap parsePtx(std::string_view text, const IrLimits &limits = {});
IrLineMap parseMlir(std::string_view text, TritonStage stage = TritonStage::Ttir,
                    const IrLimits &limits = {});
IrLineMap parseLlir(std::string_view text, const IrLimits &limits = {});
/// The parser of `stage`; an empty map for Cubin.
IrLineMap parseTritonIr(TritonStage stage, std::string_view text, const IrLimits &limits = {});

} // namespace inductor::index
