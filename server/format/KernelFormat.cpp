// server/format/KernelFormat.cpp: see KernelFormat.h.
#include "server/format/KernelFormat.h"

#include "protocol/URI.h"
#include "server/text/Markdown.h"

#include <cstdio>

namespace inductor::server {

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  char buf[32];
  if (bytes < (uint64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

protocol::KernelResources kernelResources(const index::Index &index, const index::TritonCacheEntry &entry) {
  protocol::KernelResources r;
  const index::TritonKernelMetadata &m = entry.metadata;
  if (m.numWarps) r.numWarps = *m.numWarps;
  if (m.numStages) r.numStages = *m.numStages;
  if (m.sharedBytes) r.sharedBytes = *m.sharedBytes;
  index::CubinResources cubin = index::cubinResources(index, entry);
  if (cubin.registers) r.registers = *cubin.registers;
  if (auto s = cubin.spills()) r.spills = *s;
  for (size_t s = 0; s < index::kTritonStages; ++s)
    if (!entry.files[s].empty())
      r.ir[std::string(index::tritonStageName(static_cast<index::TritonStage>(s)))] = entry.files[s];
  return r;
}

std::vector<protocol::KernelEntry> kernelEntries(const index::Index &index) {
  std::vector<protocol::KernelEntry> out;
  for (const index::Compile &c : index.compiles()) {
    if (!c.outputCode.valid()) continue;
    const index::Artifact &a = index.artifact(c.outputCode);
    // One entry per kernel source this output code launches: a definition launched twice is one entry.
    std::vector<bool> listed(a.code.kernels.size(), false);
    for (uint32_t l = 0; l < a.launches.size(); ++l) {
      index::SymbolAt s;
      s.kind = index::SymbolAt::Kind::Launch;
      s.artifact = c.outputCode;
      s.index = l;
      std::optional<index::TritonKernelRef> kernel = index::tritonKernelOf(index, s);
      if (!kernel || kernel->definition < 0) continue;
      auto d = static_cast<size_t>(kernel->definition);
      if (listed[d]) continue;
      listed[d] = true;
      kernel->rank = c.rank; // The compile's own rank (an artifact may be shared by equal copies).
      protocol::KernelEntry e;
      index::TritonJoin join = index::joinTritonKernel(index, *kernel);
      if (join.status == index::TritonJoin::Status::Joined) {
        const index::TritonCacheEntry &entry = index.tritonCache().entries[join.entries.front()];
        static_cast<protocol::KernelResources &>(e) = kernelResources(index, entry);
        e.cacheEntry = entry.dir;
      }
      e.join = join.how;
      e.name = kernel->name;
      e.rank = c.rank;
      e.compileId = c.id.traceStr();
      e.graph = std::string(c.kindWord());
      e.outputCode = a.paths.empty() ? a.virtualName : a.paths.front();
      if (!kernel->kernelFile.empty()) {
        index::ResolvedPath local = index.resolvePath(kernel->kernelFile);
        e.kernelPath = local.exists ? local.path : kernel->kernelFile;
      }
      // The figures of the definition's launches, as its def's hover gives them.
      s.kind = index::SymbolAt::Kind::KernelDefinition;
      s.index = static_cast<uint32_t>(d);
      addKernelPerf(index, s, e);
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::string kernelResourcesMarkdown(const index::Index &index, const index::SymbolAt &symbol) {
  std::optional<index::TritonKernelRef> kernel = index::tritonKernelOf(index, symbol);
  if (!kernel || index.tritonCache().entries.empty()) return {}; // Read on first use: a Triton kernel's.
  index::TritonJoin join = index::joinTritonKernel(index, *kernel);
  if (join.status != index::TritonJoin::Status::Joined) return "\n\n**Triton:** " + join.how;
  const index::TritonCacheEntry &e = index.tritonCache().entries[join.entries.front()];
  protocol::KernelResources r = kernelResources(index, e);
  auto value = [](const std::optional<uint64_t> &v, std::string_view what) {
    return (v ? std::to_string(*v) : std::string("unknown")) + " " + std::string(what);
  };
  std::string md = "\n\n**Triton:** num_warps " + (r.numWarps ? std::to_string(*r.numWarps) : "unknown") +
                   " · num_stages " + (r.numStages ? std::to_string(*r.numStages) : "unknown") + " · " +
                   (r.sharedBytes ? formatBytes(*r.sharedBytes) : std::string("unknown")) + " shared · " +
                   value(r.registers, "registers") + " · " + value(r.spills, "spills");
  if (!r.registers && e.files[static_cast<size_t>(index::TritonStage::Cubin)].empty())
    md += " (no cubin in the cache entry)";
  if (e.bestConfig && !e.bestConfig->values.empty()) {
    md += "\n\n**Autotuned:** ";
    for (size_t i = 0; i < e.bestConfig->values.size(); ++i)
      md += (i ? " · " : "") + e.bestConfig->values[i].first + " " +
            std::to_string(e.bestConfig->values[i].second);
  }
  md += "\n\n**IR:** ";
  bool first = true;
  for (size_t s = 0; s < index::kTritonStages; ++s) {
    if (e.files[s].empty() || static_cast<index::TritonStage>(s) == index::TritonStage::Cubin) continue;
    md += (first ? "" : " · ") + markdownLink(index::tritonStageName(static_cast<index::TritonStage>(s)),
                                              protocol::fileURI(e.files[s]));
    first = false;
  }
  return md;
}

} // namespace inductor::server
