// server/features/Compiles.cpp: the custom request `inductor/compiles`, the compiled frames overview that
// editors show as a tree (VS Code) or a list (Neovim).
//
//   inductor/compiles {uri?} -> {frames: [Frame], functions: [Function], summary: Counts}
//   (protocol::CompilesParams -> protocol::CompilesResult; built by compilesResult(), which explain --json
//   writes as `compileHealth`)
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
//               events: [{kind ("graph break", "recompile", "failure", "specialization"), severity (LSP),
//               message, location: Location|null}], artifacts: [{uri, title}] (output code and graphs),
//               trace: {uri, line} (the first record)}
//   Counts   = server/format/Counts.h countsJson: the whole index's counts, as inductor/status and explain
//   give them. A Function's and a Frame's `summary` count their compiles as every view does
//   (index/model/Counts.h):
//   "[8/0–8/4] 5 compiles · 1 failed · 4 graph breaks · 2.3 s".
// With `uri`, only frames with a def line or an event in that file. Frames are in the order torch.compile
// compiled them, per log.
#include "index/support/PathNames.h"
#include "server/features/Features.h"
#include "server/features/InductorRequests.h"
#include "server/format/Counts.h"
#include "server/format/Health.h"
#include "server/format/WireEnums.h"
#include "server/text/Convert.h"

#include "protocol/URI.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

namespace inductor::server {

namespace {

template <class T> std::optional<int64_t> optionalInt(const std::optional<T> &v) {
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

std::optional<std::string> nonEmpty(const std::string &s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

} // namespace

protocol::CompilesResult compilesResult(const index::Index &index, TextCache &texts,
                                        const std::string &filterPath) {
  const index::CompileHealth &h = index.compileHealth();
  auto inFile = [&](std::optional<uint32_t> place) {
    return place && index::normalizePath(h.places[*place].path) == filterPath;
  };
  auto location = [&](std::optional<uint32_t> place) -> std::optional<protocol::Location> {
    if (!place) return std::nullopt;
    return placeLocation(texts, index, h.places[*place]);
  };

  protocol::CompilesResult result;
  index::FunctionGroups groups = index::groupFunctions(h);
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
    protocol::FrameEntry frame;
    index::CompileStatus worst = index::CompileStatus::Ok;
    for (uint32_t ci : f.compiles) {
      const index::FrameCompile &c = h.compiles[ci];
      worst = std::min(worst, c.status);
      protocol::CompileEntry &e = frame.compiles.emplace_back();
      e.compileId = c.id.str();
      e.label = c.label();
      e.rank = optionalInt(c.rank);
      e.status = wireEnum(c.status);
      e.summary = compileSummary(h, ci);
      for (const index::CompileAttempt &a : c.attempts)
        e.attempts.push_back({a.attempt, a.restartReason});
      e.seconds = c.compileSeconds;
      e.backwardSeconds = c.backwardSeconds;
      e.runtimeSeconds = c.runtimeSeconds;
      e.guardCount = c.guardCount;
      e.shapeEnvGuardCount = c.shapeEnvGuardCount;
      e.graphOpCount = c.graphOpCount;
      e.fxGraphCache = wireEnum(c.fxGraphCache);
      e.aotAutogradCache = wireEnum(c.aotAutogradCache);
      e.failType = nonEmpty(c.failType);
      e.failReason = nonEmpty(c.failReason);
      e.recompileReasons = c.recompileReasons;
      for (uint32_t ev : c.events) {
        const index::HealthEvent &event = h.events[ev];
        e.events.push_back({wireEnum(event.kind), static_cast<int>(event.severity), event.title, event.id,
                            location(event.at)});
      }
      for (uint32_t out : c.outputs) {
        const index::Compile &compiled = index.compiles()[out];
        if (compiled.outputCode.valid())
          e.artifacts.push_back(
              {artifactURI(index, compiled.outputCode), index.artifact(compiled.outputCode).title});
        for (index::ArtifactId g : compiled.graphs)
          e.artifacts.push_back({artifactURI(index, g), index.artifact(g).title});
      }
      if (c.traceFile < index.traceFiles().size())
        e.trace = protocol::TraceRef{protocol::fileURI(index.traceFiles()[c.traceFile]), c.firstLine};
    }
    frameIndex[fi] = static_cast<int64_t>(result.frames.size());
    if (auto r = index::parseResumeName(groups.name[fi]))
      frame.resumes = protocol::ResumeOf{r->first, r->second};
    frame.function = f.function;
    frame.name = groups.name[fi];
    frame.frameId = optionalInt(f.frameId);
    frame.compiledAutogradId = optionalInt(f.compiledAutogradId);
    frame.rank = optionalInt(f.rank);
    frame.location = location(f.def);
    frame.resumeOf = optionalInt(f.resumeOf);
    frame.status = wireEnum(worst);
    frame.summary = compilesTitle(h, f.compiles, index::countsOf(index)->health.ranks);
    result.frames.push_back(std::move(frame));
  }
  // resumeOf: frame numbers -> positions in the answer (null when that frame was filtered out).
  for (protocol::FrameEntry &f : result.frames)
    if (f.resumeOf) {
      int64_t pos = frameIndex[static_cast<size_t>(*f.resumeOf)];
      f.resumeOf = pos >= 0 ? std::optional<int64_t>(pos) : std::nullopt;
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
  std::vector<protocol::FunctionEntry> &functions = result.functions.emplace();
  for (const std::string &file : files)
    for (size_t g : byFile[file]) {
      protocol::FunctionEntry &fn = functions.emplace_back();
      std::vector<uint32_t> compiles;
      index::CompileStatus worst = index::CompileStatus::Ok;
      for (uint32_t fi : kept[g]) {
        fn.frames.push_back(frameIndex[fi]);
        for (uint32_t ci : h.frames[fi].compiles) {
          compiles.push_back(ci);
          worst = std::min(worst, h.compiles[ci].status);
        }
      }
      if (!file.empty()) {
        fn.file = index::baseName(file);
        fn.path = file;
      }
      fn.function = groups.functions[g].name;
      fn.location = location(groups.functions[g].def);
      fn.status = wireEnum(worst);
      fn.summary = compilesTitle(h, compiles, index::countsOf(index)->health.ranks);
    }
  // The whole index's counts, as the status and explain give them (index/model/Counts.h).
  result.summary = protocolCounts(*index::countsOf(index));
  return result;
}

protocol::CompilesResult compiles(const FeatureContext &ctx, const protocol::CompilesParams &) {
  std::string filterPath;
  if (!ctx.uri.empty()) {
    // Not a user file: no frames (and no functions or summary).
    if (ctx.target.kind != Target::Kind::UserFile) return {};
    filterPath = ctx.target.path;
  }
  return compilesResult(ctx.index, ctx.texts, filterPath);
}

} // namespace inductor::server
