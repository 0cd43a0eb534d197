// index/model/TritonQueries.h: a kernel of the index seen through its Triton cache entry (TritonCache.h):
// which entry a launch or definition ran, its resources, and its IR line tables (TritonIR.h), read and
// parsed on request through Index::readPolicy(). Pure functions of an index and the files they read.
//
// Lines: kernel lines are 1-based lines of the kernel's own Python file (`c<hash>.py`, what the IR's
// locations count); artifact lines are 0-based. Inductor writes that file from the same text it embeds in
// the output code (`async_compile.triton('NAME', '''<text>''')`), whose first line is the rest of the `'''`
// line: kernel line N is output-code line `sourceFirstLine + N - 2`.
#pragma once

#include "index/analysis/TritonIR.h"
#include "index/files/TritonCache.h"
#include "index/model/Index.h"

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

/// The cubin's resources of an entry (read now, through readPolicy; both nullopt without a cubin).
CubinResources cubinResources(const Index &index, const TritonCacheEntry &entry);
/// The line table of one stage of an entry, read and parsed now; an error when the file is absent or
/// unreadable.
Expected<IrLineMap> readTritonIr(const Index &index, const TritonCacheEntry &entry, TritonStage stage);

/// The entry and stage of a file of the Triton cache (`path` local and normalized), nullopt for others.
std::optional<std::pair<uint32_t, TritonStage>> tritonFileAt(const Index &index, std::string_view path);

} // namespace inductor::index
