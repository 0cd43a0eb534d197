// server/Compiles.cpp: the custom request `inductor/compiles`, the compiled frames overview that editors show
// as a tree (VS Code) or a list (Neovim).
//
//   inductor/compiles {uri?} -> {frames: [Frame], summary: {compiles, frames, graphBreaks, recompiles,
//   failures}} Frame   = {function, frameId, compiledAutogradId, rank, location: Location|null (the def
//   line),
//              resumeOf: index into frames|null, status, summary, compiles: [Compile]}
//   Compile = {compileId, label, status ("ok", "graph break", "recompiled", "failed", "not compiled"),
//   summary,
//              attempts: [{attempt, restartReason}], seconds?, backwardSeconds?, runtimeSeconds?,
//              guardCount?, shapeEnvGuardCount?, graphOpCount?, cache: {fxGraph, aotAutograd}
//              ("hit"/"miss"/"bypass"/null), failType?, failReason?, recompileReasons: [string], rank,
//              events: [{kind ("graphBreak", "recompile", "failure", "specialization"), severity (LSP),
//              message,
//                        location: Location|null}],
//              artifacts: [{uri, title}] (output code and graphs), trace: {uri, line} (the first record)}
// With `uri`, only frames with a def line or an event in that file. Frames are in the order torch.compile
// compiled them, per log.
#include "server/Convert.h"
#include "server/Health.h"
#include "server/Server.h"

#include "protocol/URI.h"

#include <algorithm>

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
    TextCache texts(*this, index);
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
      index::CompiledFunction fn;
      fn.function = f.function;
      fn.compiles = f.compiles;
      frameIndex[fi] = static_cast<int64_t>(frames.size());
      frames.push_back(
          {{"function", f.function},
           {"frameId", f.frameId ? json(*f.frameId) : json(nullptr)},
           {"compiledAutogradId", f.compiledAutogradId ? json(*f.compiledAutogradId) : json(nullptr)},
           {"rank", f.rank ? json(*f.rank) : json(nullptr)},
           {"location", location(f.def)},
           {"resumeOf", f.resumeOf ? json(*f.resumeOf) : json(nullptr)},
           {"status", std::string(index::compileStatusName(worst))},
           {"summary", functionSummary(h, fn)},
           {"compiles", std::move(compiles)}});
    }
    // resumeOf: frame numbers -> positions in the answer (null when that frame was filtered out).
    for (json &f : frames)
      if (f["resumeOf"].is_number()) {
        int64_t pos = frameIndex[f["resumeOf"].get<size_t>()];
        f["resumeOf"] = pos >= 0 ? json(pos) : json(nullptr);
      }
    index::IndexStats s = index.stats();
    reply(json{{"frames", std::move(frames)},
               {"summary",
                {{"compiles", s.frameCompiles},
                 {"frames", s.compiledFrames},
                 {"graphBreaks", s.graphBreaks},
                 {"recompiles", s.recompiles},
                 {"failures", s.compileFailures}}}});
  });
}

} // namespace inductor::server
