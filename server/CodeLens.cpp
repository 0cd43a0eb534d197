// server/CodeLens.cpp: textDocument/codeLens. Lenses come resolved (no codeLens/resolve), and each carries
// its target locations in the command's arguments, so nothing is kept between requests.
//  - Generated code: above each kernel launch and definition, its origin (`model.py:16  h = ...`, `+N more`).
//  - User source: on each line that produced kernels, `N kernels · a forward · b backward`; on each compiled
//    function's def line, its compiles (`[8/0–8/4] 5 compiles · 1 failed · 4 graph breaks · 2.3 s`), whose
//    command `inductor.showCompiles` [uri, position, {function, line, compileIds}] opens them in the editor's
//    compiles view.
// The command is `inductor.showLocations` with arguments [uri, position, locations], the argument shape of VS
// Code's `editor.action.showReferences`; the editor integrations implement it.
#include "server/Convert.h"
#include "server/Health.h"
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

/// The compile lenses of a user file (server/Health.h formats them).
void appendCompileLenses(const index::Index &index, TextCache &texts, const std::string &uri,
                         const std::string &path, json &out) {
  const index::CompileHealth &h = index.compileHealth();
  for (const index::CompiledFunction &fn : index.compiledFunctions(path)) {
    protocol::CodeLens lens;
    lens.range = texts.lineRange(uri, fn.line - 1);
    json ids = json::array();
    for (uint32_t c : fn.compiles)
      ids.push_back(h.compiles[c].id.str());
    protocol::Command cmd;
    cmd.title = functionSummary(h, fn);
    cmd.command = "inductor.showCompiles";
    cmd.arguments =
        json::array({uri, lens.range.start,
                     json{{"function", fn.function}, {"line", fn.line}, {"compileIds", std::move(ids)}}});
    lens.command = std::move(cmd);
    out.push_back(json(lens));
  }
}

/// `model.py:16  h = F.gelu(self.fc1(h))  +1 more`, from the origins found in their files now.
std::string originTitle(const std::vector<PlacedOrigin> &origins) {
  std::string title = shortPlace(origins.front());
  const std::string &code = origins.front().code;
  if (!code.empty()) title += "  " + (code.size() > 80 ? code.substr(0, 77) + "..." : code);
  if (origins.size() > 1) title += "  +" + std::to_string(origins.size() - 1) + " more";
  return title;
}

} // namespace

void Server::onCodeLens(const protocol::CodeLensParams &params, Reply reply) {
  withIndex(std::move(reply), [this, params](const index::Index &index, const Reply &reply) {
    const std::string &uri = params.textDocument.uri;
    TextCache texts(*this, index);
    Target target = resolveTarget(index, uri, texts);
    if (target.kind == Target::Kind::Artifact) texts.prefer(target.artifact, params.textDocument.uri);
    json out = json::array();
    if (target.kind == Target::Kind::UserFile) {
      // On the lines where the recorded lines are now: the document follows the user's edits.
      for (const auto &[line, launches] : userLinesNow(texts, index, uri, target.path)) {
        std::map<std::string, int> byKind;
        std::set<std::pair<uint32_t, uint32_t>> unique;
        json locations = json::array();
        for (index::LaunchRef r : launches) {
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
        out.push_back(makeLens(uri, texts.lineRange(uri, line - 1), title, std::move(locations)));
      }
      appendCompileLenses(index, texts, uri, target.path, out);
      return reply(std::move(out));
    }
    if (target.kind != Target::Kind::Artifact) return reply(std::move(out));
    const index::Artifact &a = index.artifact(target.artifact);
    // Only origins found in their files now: a recorded line that is gone gets no lens (hover says why).
    auto lensFor = [&](uint32_t line, uint32_t column, uint32_t endColumn,
                       const std::vector<index::Origin> &origins) {
      std::vector<PlacedOrigin> placed;
      json locations = json::array();
      for (const index::Origin &o : origins) {
        PlacedOrigin p = placeOrigin(texts, index, o);
        if (!p.found()) continue;
        json loc = *p.location;
        if (std::find(locations.begin(), locations.end(), loc) != locations.end()) continue;
        locations.push_back(std::move(loc));
        placed.push_back(std::move(p));
      }
      if (placed.empty()) return;
      protocol::Range range{texts.position(uri, line, column), texts.position(uri, line, endColumn)};
      out.push_back(makeLens(uri, range, originTitle(placed), std::move(locations)));
    };
    // Positions in the document as it is now (it may be an edited copy of the indexed text).
    for (uint32_t i = 0; i < a.code.kernels.size(); ++i) {
      const index::KernelDefinition &d = a.code.kernels[i];
      auto at = definitionNow(texts, index, target.artifact, i, uri);
      if (!at) continue;
      index::SymbolAt s;
      s.kind = index::SymbolAt::Kind::KernelDefinition;
      s.artifact = target.artifact;
      s.index = i;
      lensFor(at->first, at->second, at->second + static_cast<uint32_t>(d.name.size()), index.originsOf(s));
    }
    for (uint32_t i = 0; i < a.launches.size(); ++i)
      if (auto site = launchSiteNow(texts, index, {target.artifact, i}, uri))
        lensFor(site->line, site->column, site->endColumn, a.launches[i].origins);
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
