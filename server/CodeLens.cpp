// server/CodeLens.cpp: textDocument/codeLens. Lenses come resolved (no codeLens/resolve), and each carries
// its target locations in the command's arguments, so nothing is kept between requests.
//  - Generated code: above each kernel launch and definition, its origin (`model.py:16  h = ...`, `+N more`).
//  - User source: on each line that produced kernels, `N kernels · a forward · b backward`.
// The command is `inductor.showLocations` with arguments [uri, position, locations], the argument shape of VS
// Code's `editor.action.showReferences`; the editor integrations implement it.
#include "server/Convert.h"
#include "server/RuntimeFormat.h"
#include "server/Server.h"

#include <algorithm>
#include <map>
#include <set>

namespace inductor::server {

namespace {

std::string kindWordOf(const index::Compile *c) {
  return c ? std::string(c->kindWord()) : "other";
}

protocol::CodeLens makeLens(const std::string &uri, protocol::Range range, std::string title,
                            json locations) {
  protocol::CodeLens lens;
  lens.range = range;
  protocol::Command cmd;
  cmd.title = std::move(title);
  cmd.command = "inductor.showLocations";
  cmd.arguments = json::array({uri, range.start, std::move(locations)});
  lens.command = std::move(cmd);
  return lens;
}

std::string originTitle(TextCache &texts, const std::vector<index::Origin> &origins) {
  std::string title = shortOrigin(origins.front());
  std::string code = originCode(texts, origins.front());
  if (!code.empty()) title += "  " + (code.size() > 80 ? code.substr(0, 77) + "..." : code);
  if (origins.size() > 1) title += "  +" + std::to_string(origins.size() - 1) + " more";
  return title;
}

} // namespace

void Server::onCodeLens(const protocol::CodeLensParams &params, Reply reply) {
  withIndex(std::move(reply), [this, params](const index::Index &index, const Reply &reply) {
    const std::string &uri = params.textDocument.uri;
    Target target = resolveTarget(index, uri);
    TextCache texts(*this);
    if (target.kind == Target::Kind::Artifact) texts.prefer(target.artifact, params.textDocument.uri);
    json out = json::array();
    if (target.kind == Target::Kind::UserFile) {
      for (const index::UserLine &ul : index.userLines(target.path)) {
        std::map<std::string, int> byKind;
        std::set<std::pair<uint32_t, uint32_t>> unique;
        json locations = json::array();
        for (index::LaunchRef r : ul.launches) {
          if (!unique.insert({r.artifact.value, r.index}).second) continue;
          ++byKind[kindWordOf(index.compileOf(r.artifact))];
          json loc = launchLocation(texts, index, r);
          if (std::find(locations.begin(), locations.end(), loc) == locations.end())
            locations.push_back(std::move(loc));
        }
        std::string title = std::to_string(unique.size()) + (unique.size() == 1 ? " kernel" : " kernels");
        for (const char *k : {"forward", "backward", "inference", "AOT", "other"})
          if (auto it = byKind.find(k); it != byKind.end())
            title += " · " + std::to_string(it->second) + " " + k;
        title += lensTimeSuffix(index, target.path, ul.line, ul.launches);
        out.push_back(makeLens(uri, texts.lineRange(uri, ul.line - 1), title, std::move(locations)));
      }
      return reply(std::move(out));
    }
    if (target.kind != Target::Kind::Artifact) return reply(std::move(out));
    const index::Artifact &a = index.artifact(target.artifact);
    auto lensFor = [&](uint32_t line, uint32_t column, uint32_t endColumn,
                       const std::vector<index::Origin> &origins) {
      if (origins.empty()) return;
      json locations = json::array();
      for (const index::Origin &o : origins)
        locations.push_back(originLocation(texts, o));
      protocol::Range range{texts.position(uri, line, column), texts.position(uri, line, endColumn)};
      out.push_back(makeLens(uri, range, originTitle(texts, origins), std::move(locations)));
    };
    for (uint32_t i = 0; i < a.code.kernels.size(); ++i) {
      const index::KernelDefinition &d = a.code.kernels[i];
      index::SymbolAt s;
      s.kind = index::SymbolAt::Kind::KernelDefinition;
      s.artifact = target.artifact;
      s.index = i;
      lensFor(d.nameLine, d.nameColumn, d.nameColumn + static_cast<uint32_t>(d.name.size()),
              index.originsOf(s));
    }
    for (const index::Launch &l : a.launches)
      lensFor(l.site.line, l.site.column, l.site.endColumn, l.origins);
    if (a.kernelSource) {
      index::SymbolAt s;
      s.kind = index::SymbolAt::Kind::KernelDefinition;
      s.artifact = target.artifact;
      lensFor(a.kernelSource->line, a.kernelSource->column,
              a.kernelSource->column + static_cast<uint32_t>(a.kernelSource->name.size()),
              index.originsOf(s));
    }
    reply(std::move(out));
  });
}

} // namespace inductor::server
