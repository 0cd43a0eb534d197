// server/Compiles.cpp: the custom request `inductor/compiles`, the compiled frames overview that editors show
// as a tree (VS Code) or a list (Neovim).
//
//   inductor/compiles {uri?} -> {frames: [Frame], functions: [Function], summary: Counts}
//   Frame    = {function (co_name as logged), name (the user's name: co_name, else the name its frame id has
//               in another compile), resumes: {function, line}|null (a
//               `torch_dynamo_resume_in_<fn>_at_<line>` frame: what runs after a graph break), frameId,
//               compiledAutogradId, rank, location: Location|null (the def line), resumeOf: index into
//               frames|null, status, summary, compiles: [Compile]}
//   Function = {file (base name)|null, path|null, function, location: Location|null, status, summary,
//               frames: [index into frames]}: the frames grouped as the user wrote them, by file (in order of
//               first appearance) and function; a resumed frame is listed under the function it resumes, the
//               ranks' frames of one function together. Views show these (labels short: the function's
//               name; the counts in `summary`).
//   Compile  = {compileId, label, status ("ok", "graph break", "recompiled", "failed", "not compiled"),
//               summary, attempts: [{attempt, restartReason}], seconds?, backwardSeconds?, runtimeSeconds?,
//               guardCount?, shapeEnvGuardCount?, graphOpCount?, cache: {fxGraph, aotAutograd}
//               ("hit"/"miss"/"bypass"/null), failType?, failReason?, recompileReasons: [string], rank,
//               events: [{kind ("graphBreak", "recompile", "failure", "specialization"), severity (LSP),
//               message, location: Location|null}], artifacts: [{uri, title}] (output code and graphs),
//               trace: {uri, line} (the first record)}
//   Counts   = server/Counts.h countsJson: the whole index's counts, as inductor/status and explain give
//   them. A Function's and a Frame's `summary` count their compiles as every view does
//   (index/model/Counts.h):
//   "[8/0–8/4] 5 compiles · 1 failed · 4 graph breaks · 2.3 s".
// With `uri`, only frames with a def line or an event in that file. Frames are in the order torch.compile
// compiled them, per log.
#include "server/Convert.h"
#include "server/Counts.h"
#include "server/Health.h"
#include "server/Server.h"

#include "protocol/URI.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

namespace inductor::server {

namespace {

std::string kindName(index::HealthEventKind k) {
  switch (k) {
  case index::HealthEventKind::GraphBreak:
    return "graphBreak";
  case index::HealthEventKind::Recompile:
    return "recompile";
  case index::HealthEventKind::Failure:
    return "failure";
  case index::HealthEventKind::Specialization:
    break;
  }
  return "specialization";
}

std::string baseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

json optionalNumber(const std::optional<double> &v) {
  return v ? json(*v) : json(nullptr);
}

json optionalInt(const std::optional<int64_t> &v) {
  return v ? json(*v) : json(nullptr);
}

json cacheName(index::CacheOutcome c) {
  return c == index::CacheOutcome::Unknown ? json(nullptr) : json(std::string(index::cacheOutcomeName(c)));
}

} // namespace

void Server::onCompiles(const json &params, Reply reply) {
  std::string uri;
  if (params.is_object() && params.contains("uri")) {
    if (!params["uri"].is_string())
      return reply.error(protocol::ErrorCode::InvalidParams, "inductor/compiles: `uri` must be a string");
    uri = params["uri"].get<std::string>();
  }
  withIndex(std::move(reply), [this, uri](const index::Index &index, const Reply &reply) {
    const index::CompileHealth &h = index.compileHealth();
    TextCache texts(documents(), index);
    std::string filterPath;
    if (!uri.empty()) {
      Target t = resolveTarget(index, uri, texts);
      if (t.kind != Target::Kind::UserFile)
        return reply(json{{"frames", json::array()}, {"summary", json::object()}});
      filterPath = t.path;
    }
    auto inFile = [&](std::optional<uint32_t> place) {
      return place && index::normalizePath(h.places[*place].path) == filterPath;
    };
    auto location = [&](std::optional<uint32_t> place) -> json {
      if (!place) return nullptr;
      auto l = placeLocation(texts, index, h.places[*place]);
      return l ? json(*l) : json(nullptr);
    };

    index::FunctionGroups groups = index::groupFunctions(h);
    json frames = json::array();
    std::vector<int64_t> frameIndex(h.frames.size(), -1);
    for (uint32_t fi = 0; fi < h.frames.size(); ++fi) {
      const index::CompiledFrame &f = h.frames[fi];
      if (!filterPath.empty()) {
        bool keep = inFile(f.def);
        for (uint32_t c : f.compiles)
          for (uint32_t e : h.compiles[c].events)
            keep |= inFile(h.events[e].at);
        if (!keep) continue;
      }
      json compiles = json::array();
      index::CompileStatus worst = index::CompileStatus::Ok;
      for (uint32_t ci : f.compiles) {
        const index::FrameCompile &c = h.compiles[ci];
        worst = std::min(worst, c.status);
        json attempts = json::array();
        for (const index::CompileAttempt &a : c.attempts)
          attempts.push_back({{"attempt", a.attempt}, {"restartReason", a.restartReason}});
        json events = json::array();
        for (uint32_t e : c.events) {
          const index::HealthEvent &ev = h.events[e];
          events.push_back({{"kind", kindName(ev.kind)},
                            {"severity", static_cast<int>(ev.severity)},
                            {"message", ev.title},
                            {"code", ev.id},
                            {"location", location(ev.at)}});
        }
        json artifacts = json::array();
        for (uint32_t out : c.outputs) {
          const index::Compile &compiled = index.compiles()[out];
          if (compiled.outputCode.valid())
            artifacts.push_back({{"uri", artifactURI(index, compiled.outputCode)},
                                 {"title", index.artifact(compiled.outputCode).title}});
          for (index::ArtifactId g : compiled.graphs)
            artifacts.push_back({{"uri", artifactURI(index, g)}, {"title", index.artifact(g).title}});
        }
        json trace = nullptr;
        if (c.traceFile < index.traceFiles().size())
          trace = {{"uri", protocol::fileURI(index.traceFiles()[c.traceFile])}, {"line", c.firstLine}};
        compiles.push_back(
            {{"compileId", c.id.str()},
             {"label", c.label()},
             {"rank", c.rank ? json(*c.rank) : json(nullptr)},
             {"status", std::string(index::compileStatusName(c.status))},
             {"summary", compileSummary(h, ci)},
             {"attempts", std::move(attempts)},
             {"seconds", optionalNumber(c.compileSeconds)},
             {"backwardSeconds", optionalNumber(c.backwardSeconds)},
             {"runtimeSeconds", optionalNumber(c.runtimeSeconds)},
             {"guardCount", optionalInt(c.guardCount)},
             {"shapeEnvGuardCount", optionalInt(c.shapeEnvGuardCount)},
             {"graphOpCount", optionalInt(c.graphOpCount)},
             {"cache",
              {{"fxGraph", cacheName(c.fxGraphCache)}, {"aotAutograd", cacheName(c.aotAutogradCache)}}},
             {"failType", c.failType.empty() ? json(nullptr) : json(c.failType)},
             {"failReason", c.failReason.empty() ? json(nullptr) : json(c.failReason)},
             {"recompileReasons", c.recompileReasons},
             {"events", std::move(events)},
             {"artifacts", std::move(artifacts)},
             {"trace", std::move(trace)}});
      }
      frameIndex[fi] = static_cast<int64_t>(frames.size());
      json resumes = nullptr;
      if (auto r = index::parseResumeName(groups.name[fi]))
        resumes = {{"function", r->first}, {"line", r->second}};
      frames.push_back(
          {{"function", f.function},
           {"name", groups.name[fi]},
           {"resumes", std::move(resumes)},
           {"frameId", f.frameId ? json(*f.frameId) : json(nullptr)},
           {"compiledAutogradId", f.compiledAutogradId ? json(*f.compiledAutogradId) : json(nullptr)},
           {"rank", f.rank ? json(*f.rank) : json(nullptr)},
           {"location", location(f.def)},
           {"resumeOf", f.resumeOf ? json(*f.resumeOf) : json(nullptr)},
           {"status", std::string(index::compileStatusName(worst))},
           {"summary", compilesTitle(h, f.compiles)},
           {"compiles", std::move(compiles)}});
    }
    // resumeOf: frame numbers -> positions in the answer (null when that frame was filtered out).
    for (json &f : frames)
      if (f["resumeOf"].is_number()) {
        int64_t pos = frameIndex[f["resumeOf"].get<size_t>()];
        f["resumeOf"] = pos >= 0 ? json(pos) : json(nullptr);
      }
    // Frames by file and function, with the user's names (index::groupFunctions): a resumed frame under the
    // function it resumes, the ranks' frames of a function together; files in order of first appearance.
    std::vector<std::vector<uint32_t>> kept(groups.functions.size());
    for (uint32_t fi = 0; fi < h.frames.size(); ++fi)
      if (frameIndex[fi] >= 0) kept[groups.function[fi]].push_back(fi);
    std::vector<std::string> files;
    std::map<std::string, std::vector<size_t>> byFile;
    for (size_t g = 0; g < groups.functions.size(); ++g) {
      if (kept[g].empty()) continue;
      std::optional<uint32_t> def = groups.functions[g].def;
      std::string file = def ? h.places[*def].path : std::string();
      if (!byFile.count(file)) files.push_back(file);
      byFile[file].push_back(g);
    }
    json functions = json::array();
    for (const std::string &file : files)
      for (size_t g : byFile[file]) {
        std::vector<uint32_t> compiles;
        json positions = json::array();
        index::CompileStatus worst = index::CompileStatus::Ok;
        for (uint32_t fi : kept[g]) {
          positions.push_back(frameIndex[fi]);
          for (uint32_t ci : h.frames[fi].compiles) {
            compiles.push_back(ci);
            worst = std::min(worst, h.compiles[ci].status);
          }
        }
        functions.push_back({{"file", file.empty() ? json(nullptr) : json(baseName(file))},
                             {"path", file.empty() ? json(nullptr) : json(file)},
                             {"function", groups.functions[g].name},
                             {"location", location(groups.functions[g].def)},
                             {"status", std::string(index::compileStatusName(worst))},
                             {"summary", compilesTitle(h, compiles)},
                             {"frames", std::move(positions)}});
      }
    // The whole index's counts, as the status and explain give them (index/model/Counts.h).
    reply(json{{"frames", std::move(frames)},
               {"functions", std::move(functions)},
               {"summary", countsJson(*index::countsOf(index))}});
  });
}

} // namespace inductor::server
