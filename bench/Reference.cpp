#include "bench/Reference.h"

#include "index/model/Index.h"

#include <algorithm>
#include <set>

namespace inductor::bench {

namespace {

constexpr std::string_view kRecordedRoot = "/tmp/work/";

std::vector<RefOrigin> toRef(const std::vector<index::Origin> &origins) {
  std::vector<RefOrigin> out;
  for (const index::Origin &o : origins)
    out.push_back({o.path, o.line});
  return out;
}

/// The record line in a virtual name `<log>/<line>/<title>`; 0 if it has none.
uint32_t recordLineOf(const std::string &virtualName) {
  size_t a = virtualName.find('/');
  if (a == std::string::npos) return 0;
  size_t b = virtualName.find('/', a + 1);
  if (b == std::string::npos) return 0;
  return static_cast<uint32_t>(std::strtoul(virtualName.substr(a + 1, b - a - 1).c_str(), nullptr, 10));
}

} // namespace

std::string mapRecordedPath(const std::string &path, const std::string &prefix) {
  if (path.rfind(kRecordedRoot, 0) != 0) return path;
  return prefix + path.substr(kRecordedRoot.size());
}

RefLog buildReference(const std::string &logPath) {
  index::IndexOptions options;
  options.inputs = {logPath};
  options.jobs = 1;
  auto idx = index::Index::build(options);
  RefLog ref;
  std::set<std::string> userFiles, kernels;
  for (uint32_t i = 0; i < idx->artifacts().size(); ++i) {
    const index::Artifact &a = idx->artifacts()[i];
    if (a.kind != index::ArtifactKind::OutputCode && a.kind != index::ArtifactKind::WrapperCode) continue;
    uint32_t recordLine = recordLineOf(a.virtualName);
    if (!recordLine || !a.paths.empty()) continue;
    index::ArtifactId id{i};
    RefArtifact r;
    r.recordLine = recordLine;
    r.cpp = a.language == index::Language::Cpp;
    r.text = idx->text(id);
    auto addPosition = [&](uint32_t line, uint32_t column, const std::string &name) {
      uint32_t mid = column + static_cast<uint32_t>(name.size() / 2);
      index::SymbolAt s = idx->symbolAt(id, line, mid);
      if (s.kind == index::SymbolAt::Kind::None) return;
      r.positions.push_back({line, mid, name, toRef(idx->originsOf(s))});
    };
    for (const index::KernelDefinition &d : a.code.kernels) {
      addPosition(d.nameLine, d.nameColumn, d.name);
      kernels.insert(d.name);
    }
    for (const index::Launch &l : a.launches) {
      addPosition(l.site.line, l.site.column, l.site.kernel);
      for (const index::Origin &o : l.origins)
        userFiles.insert(o.path);
    }
    // Lenses as server/features/CodeLens.cpp makes them: one per kernel definition and per launch with an
    // origin.
    for (uint32_t k = 0; k < a.code.kernels.size(); ++k) {
      index::SymbolAt s;
      s.kind = index::SymbolAt::Kind::KernelDefinition;
      s.artifact = id;
      s.index = k;
      if (!idx->originsOf(s).empty()) ++r.lenses;
    }
    for (const index::Launch &l : a.launches)
      if (!l.origins.empty()) ++r.lenses;
    ref.outputs.emplace(recordLine, std::move(r));
  }
  for (const std::string &path : userFiles) {
    std::vector<index::UserLine> lines = idx->userLines(path);
    ref.lensesPerUserFile[path] = lines.size();
    for (const index::UserLine &ul : lines) {
      // References list the same code once (Index::firstEquivalent: a recompile that generated the same
      // code).
      std::vector<index::LaunchRef> launches = idx->launchesForLine(path, ul.line);
      size_t listed = std::count_if(launches.begin(), launches.end(), [&](index::LaunchRef r) {
        return idx->firstEquivalent(r.artifact) == r.artifact;
      });
      ref.userLines.push_back({path, ul.line, listed});
    }
    auto &text = ref.recordedText[path];
    for (const index::RecordedLine &r : idx->recordedLines(path))
      text.emplace_back(r.line, std::string(r.code));
  }
  ref.kernelNames.assign(kernels.begin(), kernels.end());
  return ref;
}

} // namespace inductor::bench
