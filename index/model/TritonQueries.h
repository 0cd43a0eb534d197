// index/model/TritonQueries.h: a kernel of the index seen through its Triton cache entry (TritonCache.h):
// which entry a launch or definition ran, its resources, and its IR line tables (TritonIR.h), read and
// parsed on first request through Index::readPolicy() and kept in the index while their files do not change.
// Pure functions of an index and the files they read; thread-safe.
//
// Lines: kernel lines are 1-based lines of the kernel's own Python file (`c<hash>.py`, what the IR's
// locations count); artifact lines are 0-based. Inductor writes that file from the same text it embeds in
// the output code (`async_compile.triton('NAME', '''<text>''')`), whose first line is the rest of the `'''`
// line: kernel line N is output-code line `sourceFirstLine + N - 2`.
#pragma once

#include "index/analysis/TritonIR.h"
#include "index/files/TritonCache.h"
#include "index/model/Index.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace inductor::index {

/// A Triton kernel as the output code or its kernel file knows it.
struct TritonKernelRef {
  std::string name;
  std::string kernelFile; ///< Recorded `# kernel path:`, or the kernel file's local path; may be empty.
  std::optional<int> rank;
  ArtifactId artifact; ///< The output code or kernel file it was found in.
  int definition = -1; ///< Its KernelDefinition in an output code; -1 in a kernel file.
};

/// The Triton kernel of a launch, a kernel definition or a kernel file; nullopt for others (extern kernels,
/// C++ kernels, graph nodes).
std::optional<TritonKernelRef> tritonKernelOf(const Index &index, const SymbolAt &symbol);
/// The kernel whose source holds line `line` (0-based) of an artifact, and that line in the kernel's file
/// (1-based); nullopt outside every Triton kernel's source.
std::optional<std::pair<TritonKernelRef, uint32_t>> tritonKernelLineAt(const Index &index, ArtifactId id,
                                                                       uint32_t line);
/// The artifact line (0-based) of kernel line `kernelLine` of `kernel` (the inverse of tritonKernelLineAt).
std::optional<uint32_t> artifactLineOfKernelLine(const Index &index, const TritonKernelRef &kernel,
                                                 uint32_t kernelLine);
/// joinTritonKernel over the index's cache.
TritonJoin joinTritonKernel(const Index &index, const TritonKernelRef &kernel);

/// Largest IR file (`.source`, `.ttir`, `.ttgir`, `.llir`, `.ptx`) and cubin read: 64 times the largest PTX
/// seen (~1 MB). Larger ones are refused (their size is checked before reading).
constexpr size_t kTritonFileBytes = size_t{64} << 20;
/// Bytes of parsed IR tables kept between requests (IrLineMap::keptBytes), in all; the least recently used
/// go first. One table holds at most 64 MiB of code lines (IrLimits).
constexpr size_t kTritonTableCacheBytes = size_t{128} << 20;

/// The cubin's resources of an entry, through readPolicy (both nullopt without a cubin, or when it cannot be
/// read): read once per version of the file (its stamp: device, inode, size, modification time) and kept.
CubinResources cubinResources(const Index &index, const TritonCacheEntry &entry);
/// The line table of one stage of an entry. Parsed once per version of the file and kept (at most
/// kTritonTableCacheBytes of tables in all): one file is read and parsed at a time (requests asking at once
/// wait, and share the parse of one file), so a parse holds at most one file's text and table besides what
/// is kept, and a request asks only stat(2) of a file parsed before. Errors: the stage has no file, the file
/// cannot be read or is over kTritonFileBytes, or its table is past IrLimits (the limit named; kept too, so
/// that a hostile file is not parsed again per request).
Expected<std::shared_ptr<const IrLineMap>> readTritonIr(const Index &index, const TritonCacheEntry &entry,
                                                        TritonStage stage);

/// The entry and stage of a file of the Triton cache (`path` local and normalized), nullopt for others.
std::optional<std::pair<uint32_t, TritonStage>> tritonFileAt(const Index &index, std::string_view path);

} // namespace inductor::index
