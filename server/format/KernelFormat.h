// server/format/KernelFormat.h: a Triton kernel's resources (index/files/TritonCache.h: its cache entry's
// metadata and cubin) as hover text and as the typed struct explain --json writes
// (protocol::KernelResources).
#pragma once

#include "index/model/TritonQueries.h"
#include "index/runtime/Roofline.h"
#include "protocol/InductorProtocol.h"

#include <map>
#include <string>
#include <vector>

namespace inductor::server {

/// The resources of the Triton kernel a launch or definition names, for its hover:
///   **Triton:** num_warps 4 · num_stages 1 · 1.0 KiB shared · 32 registers · 0 spills
///   **Autotuned:** XBLOCK 1024 · num_warps 4 · num_stages 1
///   **IR:** ttir · ttgir · llir · ptx (links)
/// Values from the entry's metadata JSON; registers and spills from its cubin, "unknown" without one. When no
/// entry is joined, one line says why (several entries, none); "" when the index has no Triton cache or the
/// symbol is no Triton kernel.
std::string kernelResourcesMarkdown(const index::Index &index, const index::SymbolAt &symbol);

/// The same values as data (reads the cubin). `ir`: every stage file the entry holds.
protocol::KernelResources kernelResources(const index::Index &index, const index::TritonCacheEntry &entry);

/// explain --json's `kernels`: one entry per Triton kernel source that a compile's output code launches (per
/// rank, compile id with attempt, graph and definition: a name that repeats across them is several entries),
/// each with its identity, the resources of the cache entry joined to that source (all null when none is, and
/// `join` says why), and Inductor's estimates and the achieved rates of its definition's launches
/// (addKernelPerf; null where unknown). In compile order, then launch order.
std::vector<protocol::KernelEntry> kernelEntries(const index::Index &index);

/// "1.0 KiB", "512 B", "2.5 MiB".
std::string formatBytes(uint64_t bytes);

// ---------------------------------------------------------------------------------------------------------
// How close a kernel ran to the machine (index/runtime/Roofline.h; server/format/KernelPerfFormat.cpp).

/// For a Triton kernel's launch, definition or kernel file, "" for other symbols:
///   **Roofline:** 312 GB/s · 9% of HBM peak (3.35 TB/s, H100 SXM) · memory-bound · 41.2 µs per launch over
///   3 launches, 110 µs left on the table in all
/// or why not (no kernel_num_gb: how to get it; no profile; no peaks for the GPU). A launch: its own time; a
/// definition: its launches in that output code; a kernel file: the launches of every definition using it.
std::string kernelPerfMarkdown(const index::Index &index, const index::SymbolAt &symbol);
/// The text after "**Roofline:**" for some figures against the index's peaks (hovers, hot kernels, explain).
std::string kernelPerfText(const index::KernelPerf &perf, const index::PeakChoice &choice);
/// "H100 SXM: 3.35 TB/s HBM, 990 TFLOP/s dense BF16/FP16 tensor (vendor datasheet)", or "no peaks: why".
std::string peakText(const index::PeakChoice &choice);
/// "312 GB/s", "3.35 TB/s".
std::string gbPerSText(double gbPerS);
/// Fills numGb, flop, achievedGbPerS and achievedTflopPerS of `r` for the symbol's kernel (as the hover
/// computes them); leaves them null for other symbols and where unknown (achievedTflopPerS: also when
/// Inductor counted no FLOPs).
void addKernelPerf(const index::Index &index, const index::SymbolAt &symbol, protocol::KernelResources &r);
/// Fills the roofline members of a hot kernel (protocol::HotKernel) for one launch, against `choice`.
void addLaunchPerf(const index::Index &index, index::LaunchRef ref, const index::PeakChoice &choice,
                   protocol::HotKernel &k);

} // namespace inductor::server

// Kernel internals as LSP answers (server/features/Lowered.cpp).
#include "server/text/Convert.h"

namespace inductor::server {

/// Whether `uri` is an IR file (or cubin) of the Triton cache's entries (reads the cache only for a file
/// name it may hold).
bool isTritonIrFile(const index::Index &index, const std::string &uri);
/// `definition` on a line of an IR file of the Triton cache: the kernel source line it came from (the
/// kernel's file, else its source in the output code); nullopt for other documents and lines without a
/// location.
std::optional<protocol::Location> irDefinition(const index::Index &index, TextCache &texts,
                                               const std::string &uri, const protocol::Position &position);
/// Inlay hints on the lines of Triton kernel sources in `range` of an artifact (output code, a kernel file):
/// the number of PTX instructions the kernel's PTX attributes to each line, `12 PTX`, appended to `out`.
void appendPtxCountHints(const index::Index &index, TextCache &texts, const std::string &uri,
                         const Target &target, const protocol::Range &range,
                         std::vector<protocol::InlayHint> &out);
/// `documentSymbol` of an IR file of the Triton cache: its functions (the kernel); nullopt for other
/// documents.
std::optional<std::vector<protocol::DocumentSymbol>>
irDocumentSymbols(const index::Index &index, TextCache &texts, const std::string &uri);

} // namespace inductor::server
