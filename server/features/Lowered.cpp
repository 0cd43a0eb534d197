// server/features/Lowered.cpp: kernel internals as LSP answers (index/model/TritonQueries.h).
//   inductor/lowered {textDocument, position} -> [{stage, locations}] (protocol::LoweredParams): from a line
//   of a Triton kernel's source (output code, the kernel's file, a log-only `inductor-trace:` document), the
//   lines of the TTIR, TTGIR, LLIR and PTX of its joined cache entry that the IR attributes to it.
//   definition on an IR file's line -> the kernel source line; documentSymbol of an IR file -> its kernel.
// IR is parsed on the first request for a file and kept (index/model/TritonQueries.h readTritonIr): hints,
// hovers and symbols ask for the same files again and again. An answer lists at most kMaxLoweredLines lines
// of a stage, and says how many more there are.
#include "index/support/PathNames.h"
#include "protocol/URI.h"
#include "server/features/Features.h"
#include "server/format/KernelFormat.h"
#include "server/text/Markdown.h"

#include <map>

namespace inductor::server {

namespace {

using index::baseName;

/// Lines of one stage listed by `inductor/lowered`, at most (LoweredStage::more counts the rest).
constexpr size_t kMaxLoweredLines = 4000;

/// The cache entry and stage of an IR file's URI.
std::optional<std::pair<uint32_t, index::TritonStage>> irFileOf(const index::Index &index,
                                                                const std::string &uri) {
  auto path = protocol::filePath(uri); // tritonFileAt reads the cache only for a name it may hold.
  if (!path) return std::nullopt;
  return index::tritonFileAt(index, index::normalizePath(*path));
}

} // namespace

bool isTritonIrFile(const index::Index &index, const std::string &uri) {
  return irFileOf(index, uri).has_value();
}

std::vector<protocol::LoweredStage> lowered(const FeatureContext &ctx,
                                            const protocol::LoweredParams &params) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const protocol::Position &position = params.position;
  const Target &target = ctx.target; // Resolved once, by makeFeatureContext.
  std::vector<protocol::LoweredStage> out;
  if (index.tritonCache().entries.empty()) return out;
  if (target.kind != Target::Kind::Artifact) return out;
  for (index::ArtifactId id : target.all) {
    auto at = index::tritonKernelLineAt(index, id, position.line);
    if (!at) continue;
    index::TritonJoin join = index::joinTritonKernel(index, at->first);
    if (join.status != index::TritonJoin::Status::Joined) continue;
    const index::TritonCacheEntry &e = index.tritonCache().entries[join.entries.front()];
    for (index::TritonStage stage : {index::TritonStage::Ttir, index::TritonStage::Ttgir,
                                     index::TritonStage::Llir, index::TritonStage::Ptx}) {
      auto map = index::readTritonIr(index, e, stage);
      if (!map) {
        // A stage the entry has but that was not read (too large, past a limit of its table) says why.
        if (!e.files[static_cast<size_t>(stage)].empty())
          out.push_back({std::string(index::tritonStageName(stage)), {}, 0, map.error().message});
        continue;
      }
      const index::IrLineMap &m = **map;
      auto file = m.fileNamed(e.recordedKernelFile.empty() ? at->first.kernelFile : e.recordedKernelFile);
      if (!file) continue;
      protocol::LoweredStage s;
      s.stage = std::string(index::tritonStageName(stage));
      std::string irUri = protocol::fileURI(e.files[static_cast<size_t>(stage)]);
      std::vector<uint32_t> lines = m.linesOf(*file, at->second);
      // The first kMaxLoweredLines, and how many more: a kernel line's IR is 1,072 lines at most in the
      // fixtures (a template's tl.dot in LLIR), and each location costs a line of the file's text and ~300
      // bytes of answer.
      for (size_t i = 0; i < lines.size() && i < kMaxLoweredLines; ++i)
        s.locations.push_back({irUri, texts.lineRange(irUri, lines[i])});
      s.more = lines.size() - s.locations.size();
      out.push_back(std::move(s));
    }
    break;
  }
  return out;
}

std::optional<protocol::Location> irDefinition(const index::Index &index, TextCache &texts,
                                               const std::string &uri, const protocol::Position &position) {
  auto file = irFileOf(index, uri);
  if (!file) return std::nullopt;
  const index::TritonCacheEntry &e = index.tritonCache().entries[file->first];
  auto map = index::readTritonIr(index, e, file->second);
  if (!map) return std::nullopt;
  std::optional<index::IrLocation> loc = (*map)->locationAt(position.line);
  if (!loc || !loc->valid()) return std::nullopt;
  const std::string &recorded = (*map)->files[loc->file];
  // The kernel's own file, where it is here (remapped like every recorded path).
  index::ResolvedPath local = index.resolvePath(recorded);
  if (local.exists && index.readPolicy().allows(local.path)) {
    std::string target = protocol::fileURI(local.path);
    return protocol::Location{target, texts.lineRange(target, loc->line - 1)};
  }
  // Else the kernel's source inside an output code that names that file.
  for (size_t i = 0; i < index.artifacts().size(); ++i) {
    index::ArtifactId id{static_cast<uint32_t>(i)};
    const index::Artifact &a = index.artifact(id);
    for (size_t d = 0; d < a.code.kernels.size(); ++d) {
      const index::KernelDefinition &k = a.code.kernels[d];
      if (k.name != e.metadata.name || baseName(k.kernelPath) != baseName(recorded)) continue;
      index::TritonKernelRef ref{k.name, k.kernelPath, std::nullopt, id, static_cast<int>(d)};
      if (auto line = index::artifactLineOfKernelLine(index, ref, loc->line)) {
        const std::string &target = texts.uriOf(index, id);
        return protocol::Location{target, texts.lineRange(target, *line)};
      }
    }
  }
  return std::nullopt;
}

std::optional<std::vector<protocol::DocumentSymbol>>
irDocumentSymbols(const index::Index &index, TextCache &texts, const std::string &uri) {
  auto file = irFileOf(index, uri);
  if (!file || file->second == index::TritonStage::Cubin) return std::nullopt;
  auto map = index::readTritonIr(index, index.tritonCache().entries[file->first], file->second);
  std::vector<protocol::DocumentSymbol> out;
  if (!map) return out;
  for (const index::IrFunction &f : (*map)->functions) {
    protocol::DocumentSymbol s;
    s.name = f.name;
    s.kind = protocol::SymbolKind::Function;
    s.detail = std::string(index::tritonStageName(file->second)) + " kernel";
    s.selectionRange = {texts.position(uri, f.line, f.column),
                        texts.position(uri, f.line, f.column + f.name.size())};
    s.range = {texts.position(uri, f.line, 0), texts.lineRange(uri, f.endLine).end};
    out.push_back(std::move(s));
  }
  return out;
}

void appendPtxCountHints(const index::Index &index, TextCache &texts, const std::string &uri,
                         const Target &target, const protocol::Range &range,
                         std::vector<protocol::InlayHint> &out) {
  if (target.kind != Target::Kind::Artifact) return;
  const index::Artifact &a = index.artifact(target.artifact);
  // The kernels whose source overlaps the range: (their ref, first artifact line of their source).
  std::vector<index::TritonKernelRef> kernels;
  if (a.kind == index::ArtifactKind::KernelSource) {
    if (auto at = index::tritonKernelLineAt(index, target.artifact, range.start.line))
      kernels.push_back(at->first);
  } else {
    for (size_t d = 0; d < a.code.kernels.size(); ++d) {
      const index::KernelDefinition &k = a.code.kernels[d];
      if (k.sourceFirstLine == 0 || k.sourceLastLine < range.start.line || k.sourceFirstLine > range.end.line)
        continue;
      if (auto at = index::tritonKernelLineAt(index, target.artifact, k.sourceFirstLine))
        kernels.push_back(at->first);
    }
  }
  // The cache is read on first use (Index::tritonCache()): only where the range holds a Triton kernel.
  if (kernels.empty() || index.tritonCache().entries.empty()) return;
  for (const index::TritonKernelRef &kernel : kernels) {
    index::TritonJoin join = index::joinTritonKernel(index, kernel);
    if (join.status != index::TritonJoin::Status::Joined) continue;
    const index::TritonCacheEntry &e = index.tritonCache().entries[join.entries.front()];
    auto map = index::readTritonIr(index, e, index::TritonStage::Ptx);
    if (!map) continue;
    auto file = (*map)->fileNamed(e.recordedKernelFile);
    if (!file) continue;
    std::map<uint32_t, uint32_t> counts; // Kernel line -> PTX instructions.
    for (const index::IrCodeLine &c : (*map)->code)
      if (c.location.file == *file) ++counts[c.location.line];
    for (const auto &[kernelLine, n] : counts) {
      auto line = index::artifactLineOfKernelLine(index, kernel, kernelLine);
      if (!line || *line < range.start.line || *line > range.end.line) continue;
      protocol::InlayHint h;
      h.position = texts.position(uri, *line, texts.lineText(uri, *line).size());
      h.label = std::to_string(n) + " PTX";
      h.paddingLeft = true;
      h.tooltip =
          protocol::MarkupContent{protocol::MarkupKind::Markdown,
                                  std::to_string(n) + " PTX instructions of " + codeSpan(e.metadata.name) +
                                      " come from this line (`inductor/lowered` lists them)."};
      out.push_back(h);
    }
  }
}

} // namespace inductor::server
