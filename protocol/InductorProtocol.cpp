// protocol/InductorProtocol.cpp: reading and writing the custom protocol's types (see the header).
#include "protocol/InductorProtocol.h"

#include "protocol/Position.h"

#include <algorithm>

namespace inductor::protocol {

namespace {

/// A member that must be there; throws out_of_range.403 (with the path) when missing.
template <class T> void required(const json &j, const char *key, T &out) {
  j.at(key).get_to(out);
}

/// A member that may be missing; `out` keeps its default then (and when null).
template <class T> void member(const json &j, const char *key, T &out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}
template <class T> void member(const json &j, const char *key, std::optional<T> &out) {
  out.reset();
  if (auto it = j.find(key); it != j.end() && !it->is_null()) out = it->get<T>();
}

/// Writes an optional member as its value, or null when unset (the members documented "null when ...").
template <class T> json nullable(const std::optional<T> &v) {
  return v ? json(*v) : json(nullptr);
}

/// A setting's text for a warning: at most 200 bytes, invalid UTF-8 replaced.
std::string shown(const json &j) {
  return std::string(utf8Prefix(j.dump(-1, ' ', false, json::error_handler_t::replace), 200));
}

/// A list of strings from a setting: an array (other entries skipped, with a warning when `warn`), or one
/// string; anything else is an empty list.
std::vector<std::string> stringList(const json &v, const char *key, bool warn,
                                    std::vector<std::string> &warnings) {
  std::vector<std::string> out;
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    for (const json &e : v)
      if (e.is_string())
        out.push_back(e.get<std::string>());
      else if (warn)
        warnings.push_back(std::string("ignoring malformed ") + key + " entry " + shown(e));
  }
  return out;
}

} // namespace

void from_json(const json &, NoParams &) {}

// --- initializationOptions -------------------------------------------------------------------------------

void from_json(const json &j, InitializationOptions &o) {
  o = {};
  if (!j.is_object()) return;
  if (auto it = j.find("pythonPath"); it != j.end()) {
    o.pythonPath = it->is_string() ? it->get<std::string>() : std::string();
    if (!it->is_string() && !it->is_null())
      o.warnings.push_back("ignoring pythonPath that is not a string: " + shown(*it));
  }
  if (auto it = j.find("libraryPaths"); it != j.end())
    o.libraryPaths = stringList(*it, "libraryPaths", true, o.warnings);
  if (auto it = j.find("traceDirs"); it != j.end())
    o.traceDirs = stringList(*it, "traceDirs", false, o.warnings);
  if (auto it = j.find("profiles"); it != j.end()) {
    o.profiles = stringList(*it, "profiles", true, o.warnings);
    if (!it->is_array() && !it->is_string())
      o.warnings.push_back("ignoring malformed profiles entry " + shown(*it));
  }
  if (auto it = j.find("runLogs"); it != j.end()) {
    o.runLogs = stringList(*it, "runLogs", true, o.warnings);
    if (!it->is_array() && !it->is_string())
      o.warnings.push_back("ignoring malformed runLogs entry " + shown(*it));
  }
  if (auto it = j.find("pathMappings"); it != j.end()) {
    o.pathMappings.emplace();
    if (it->is_array())
      for (const json &m : *it) {
        auto from = m.is_object() ? m.find("from") : m.end(), to = m.is_object() ? m.find("to") : m.end();
        if (m.is_object() && from != m.end() && to != m.end() && from->is_string() && to->is_string())
          o.pathMappings->push_back({from->get<std::string>(), to->get<std::string>()});
        else
          o.warnings.push_back("ignoring malformed pathMappings entry " + shown(m));
      }
  }
  if (auto it = j.find("trusted"); it != j.end()) {
    o.trusted = it->is_boolean() && it->get<bool>();
    if (!it->is_boolean())
      o.warnings.push_back("trusted is not a boolean (" + shown(*it) + "): taken as false");
  }
  if (auto it = j.find("tritonCacheDirs"); it != j.end()) {
    o.tritonCacheDirs = stringList(*it, "tritonCacheDirs", true, o.warnings);
    if (!it->is_array() && !it->is_string())
      o.warnings.push_back("ignoring malformed tritonCacheDirs entry " + shown(*it));
  }
  for (auto [key, slot] : {std::pair{"run", &o.run}, std::pair{"baseline", &o.baseline}})
    if (auto it = j.find(key); it != j.end()) {
      if (it->is_string())
        *slot = it->get<std::string>();
      else if (!it->is_null())
        o.warnings.push_back(std::string("ignoring ") + key + " that is not a string: " + shown(*it));
    }
}

void to_json(json &j, const InitializationOptions &o) {
  j = json::object();
  if (o.traceDirs) j["traceDirs"] = *o.traceDirs;
  if (o.pathMappings) {
    j["pathMappings"] = json::array();
    for (const PathMapping &m : *o.pathMappings)
      j["pathMappings"].push_back({{"from", m.from}, {"to", m.to}});
  }
  if (o.libraryPaths) j["libraryPaths"] = *o.libraryPaths;
  if (o.pythonPath) j["pythonPath"] = *o.pythonPath;
  if (o.profiles) j["profiles"] = *o.profiles;
  if (o.runLogs) j["runLogs"] = *o.runLogs;
  if (o.trusted) j["trusted"] = *o.trusted;
  if (o.run) j["run"] = *o.run;
  if (o.baseline) j["baseline"] = *o.baseline;
  if (o.tritonCacheDirs) j["tritonCacheDirs"] = *o.tritonCacheDirs;
}

// --- workspace/executeCommand ----------------------------------------------------------------------------

const char *commandName(InductorCommandParams::Command c) {
  switch (c) {
  case InductorCommandParams::Command::Reindex:
    break;
  case InductorCommandParams::Command::SelectRun:
    return "inductor.selectRun";
  case InductorCommandParams::Command::SelectBaseline:
    return "inductor.selectBaseline";
  }
  return "inductor.reindex";
}

void from_json(const json &j, InductorCommandParams &p) {
  std::string command;
  required(j, "command", command);
  bool known = false;
  for (auto c : {InductorCommandParams::Command::Reindex, InductorCommandParams::Command::SelectRun,
                 InductorCommandParams::Command::SelectBaseline})
    if (command == commandName(c)) {
      p.command = c;
      known = true;
    }
  if (!known) throw json::other_error::create(501, "unknown command: " + command, &j);
  p.run.reset();
  if (auto it = j.find("arguments"); it != j.end() && it->is_array() && !it->empty() && (*it)[0].is_string())
    p.run = (*it)[0].get<std::string>();
}

std::vector<std::string> serverCommandNames() {
  std::vector<std::string> out;
  for (auto c : {InductorCommandParams::Command::Reindex, InductorCommandParams::Command::SelectRun,
                 InductorCommandParams::Command::SelectBaseline})
    out.push_back(commandName(c));
  return out;
}

// --- client commands ----------------------------------------------------------------------------------

void from_json(const json &j, CompilesSelection &s) {
  member(j, "function", s.function);
  member(j, "line", s.line);
  member(j, "compileIds", s.compileIds);
}
void to_json(json &j, const CompilesSelection &s) {
  j = json{{"function", s.function}, {"line", s.line}, {"compileIds", s.compileIds}};
}

void from_json(const json &j, PrinterEnv &e) {
  required(j, "title", e.title);
  required(j, "env", e.env);
  required(j, "shell", e.shell);
  required(j, "explanation", e.explanation);
}
void to_json(json &j, const PrinterEnv &e) {
  j = json{{"title", e.title}, {"env", e.env}, {"shell", e.shell}, {"explanation", e.explanation}};
}

json arguments(const ShowLaunchSitesArguments &a) {
  return json::array({a.uri, a.position});
}
json arguments(const ShowCompilesArguments &a) {
  return json::array({a.uri, a.position, a.compiles});
}
json arguments(const ShowPrinterEnvArguments &a) {
  return json::array({a.env});
}

// --- inductor/artifactContent ----------------------------------------------------------------------------

void from_json(const json &j, ArtifactContentParams &p) {
  required(j, "uri", p.uri);
}
void to_json(json &j, const ArtifactContentParams &p) {
  j = json{{"uri", p.uri}};
}
void from_json(const json &j, ArtifactContentResult &r) {
  required(j, "text", r.text);
  required(j, "languageId", r.languageId);
}
void to_json(json &j, const ArtifactContentResult &r) {
  j = json{{"text", r.text}, {"languageId", r.languageId}};
}

// --- inductor/listArtifacts ------------------------------------------------------------------------------

void from_json(const json &j, ArtifactEntry &e) {
  required(j, "uri", e.uri);
  member(j, "title", e.title);
  member(j, "label", e.label);
  member(j, "kind", e.kind);
  member(j, "languageId", e.languageId);
  member(j, "compileId", e.compileId);
  member(j, "compile", e.compile);
  member(j, "compileIndex", e.compileIndex);
  member(j, "rank", e.rank);
  member(j, "graphKind", e.graphKind);
  member(j, "graphName", e.graphName);
  member(j, "trace", e.trace);
}
void to_json(json &j, const ArtifactEntry &e) {
  j = json{{"uri", e.uri},
           {"title", e.title},
           {"label", e.label},
           {"kind", e.kind},
           {"languageId", e.languageId},
           {"compileId", nullable(e.compileId)},
           {"compile", nullable(e.compile)},
           {"compileIndex", nullable(e.compileIndex)},
           {"rank", nullable(e.rank)},
           {"graphKind", nullable(e.graphKind)},
           {"graphName", nullable(e.graphName)},
           {"trace", nullable(e.trace)}};
}

// --- Counts ----------------------------------------------------------------------------------------------

void from_json(const json &j, Counts &c) {
  for (auto [key, out] : {std::pair<const char *, uint64_t *>{"traces", &c.traces},
                          {"compiles", &c.compiles},
                          {"graphs", &c.graphs},
                          {"frames", &c.frames},
                          {"kernels", &c.kernels},
                          {"launches", &c.launches},
                          {"launchesWithOrigin", &c.launchesWithOrigin},
                          {"problems", &c.problems},
                          {"graphBreaks", &c.graphBreaks},
                          {"recompiles", &c.recompiles},
                          {"failures", &c.failures},
                          {"ranks", &c.ranks}})
    member(j, key, *out);
}
void to_json(json &j, const Counts &c) {
  j = json{{"traces", c.traces},
           {"compiles", c.compiles},
           {"graphs", c.graphs},
           {"frames", c.frames},
           {"kernels", c.kernels},
           {"launches", c.launches},
           {"launchesWithOrigin", c.launchesWithOrigin},
           {"problems", c.problems},
           {"graphBreaks", c.graphBreaks},
           {"recompiles", c.recompiles},
           {"failures", c.failures},
           {"ranks", c.ranks}};
}

// --- inductor/status -------------------------------------------------------------------------------------

namespace {

/// The members of StatusServed, by name, for reading and writing them alike.
template <class Served, class F> void servedNumbers(Served &s, F &&f) {
  f("launchesWithOrigin", s.launchesWithOrigin);
  f("corruptedRecords", s.corruptedRecords);
  f("traceBytes", s.traceBytes);
  f("traceBytesRead", s.traceBytesRead);
  f("compilesAnalysed", s.compilesAnalysed);
  f("frameCompiles", s.frameCompiles);
  f("graphBreaks", s.graphBreaks);
  f("recompiles", s.recompiles);
  f("compileFailures", s.compileFailures);
  f("launchesWithMissingSource", s.launchesWithMissingSource);
  f("profiles", s.profiles);
  f("runLogs", s.runLogs);
  f("problemLines", s.problemLines);
  f("rankDivergences", s.rankDivergences);
}

template <class Status, class F> void statusNumbers(Status &s, F &&f) {
  f("traces", s.traces);
  f("compiles", s.compiles);
  f("kernels", s.kernels);
  f("launches", s.launches);
  f("errors", s.errors);
  f("userLines", s.userLines);
  f("waitingRequests", s.waitingRequests);
  f("builds", s.builds);
}

} // namespace

void from_json(const json &j, StatusResult &s) {
  s = {};
  member(j, "indexing", s.indexing);
  member(j, "ready", s.ready);
  member(j, "changesPending", s.changesPending);
  statusNumbers(s, [&](const char *key, uint64_t &v) { member(j, key, v); });
  if (auto p = j.find("progress"); p != j.end() && p->is_object()) {
    s.progress.emplace();
    member(*p, "percentage", s.progress->percentage);
    member(*p, "message", s.progress->message);
  }
  if (auto py = j.find("python"); py != j.end() && py->is_object()) {
    member(*py, "interpreter", s.python.interpreter);
    member(*py, "source", s.python.source);
    member(*py, "trusted", s.python.trusted);
    member(*py, "importRoots", s.python.importRoots);
    member(*py, "error", s.python.error);
    member(*py, "kept", s.python.kept);
    if (auto envs = py->find("environments"); envs != py->end() && envs->is_array())
      for (const json &e : *envs) {
        PythonEnvironmentStatus env;
        member(e, "prefix", env.prefix);
        member(e, "source", env.source);
        member(e, "importRoots", env.importRoots);
        s.python.environments.push_back(std::move(env));
      }
  }
  if (auto n = j.find("notices"); n != j.end() && n->is_array())
    for (const json &e : *n) {
      NoticeStatus notice;
      member(e, "kind", notice.kind);
      member(e, "type", notice.type);
      member(e, "message", notice.message);
      s.notices.push_back(std::move(notice));
    }
  if (j.contains("counts")) {
    StatusServed served;
    servedNumbers(served, [&](const char *key, uint64_t &v) { member(j, key, v); });
    member(j, "firstMissingSource", served.firstMissingSource);
    member(j, "counts", served.counts);
    s.served = std::move(served);
  }
  member(j, "run", s.run);
  member(j, "otherRuns", s.otherRuns);
  member(j, "baseline", s.baseline);
}

void to_json(json &j, const StatusResult &s) {
  j = json{{"indexing", s.indexing}, {"ready", s.ready}, {"changesPending", s.changesPending}};
  statusNumbers(s, [&](const char *key, const uint64_t &v) { j[key] = v; });
  j["progress"] = s.progress ? json{{"percentage", s.progress->percentage}, {"message", s.progress->message}}
                             : json(nullptr);
  json environments = json::array();
  for (const PythonEnvironmentStatus &e : s.python.environments)
    environments.push_back({{"prefix", e.prefix}, {"source", e.source}, {"importRoots", e.importRoots}});
  j["python"] = {{"interpreter", s.python.interpreter},
                 {"source", s.python.source},
                 {"environments", std::move(environments)},
                 {"trusted", s.python.trusted},
                 {"importRoots", s.python.importRoots},
                 {"error", s.python.error},
                 {"kept", s.python.kept}};
  j["notices"] = json::array();
  for (const NoticeStatus &n : s.notices)
    j["notices"].push_back({{"kind", n.kind}, {"type", n.type}, {"message", n.message}});
  if (s.served) {
    servedNumbers(*s.served, [&](const char *key, const uint64_t &v) { j[key] = v; });
    j["firstMissingSource"] = nullable(s.served->firstMissingSource);
    j["counts"] = s.served->counts;
  }
  j["run"] = nullable(s.run);
  j["otherRuns"] = s.otherRuns;
  j["baseline"] = nullable(s.baseline);
}

// --- inductor/compiles -----------------------------------------------------------------------------------

void from_json(const json &j, CompilesParams &p) {
  member(j, "uri", p.uri);
}
void to_json(json &j, const CompilesParams &p) {
  j = json::object();
  if (p.uri) j["uri"] = *p.uri;
}

namespace {

json toJSON(const CompileEvent &e) {
  return {{"kind", e.kind},
          {"severity", e.severity},
          {"message", e.message},
          {"code", e.code},
          {"location", nullable(e.location)}};
}
CompileEvent compileEvent(const json &j) {
  CompileEvent e;
  member(j, "kind", e.kind);
  member(j, "severity", e.severity);
  member(j, "message", e.message);
  member(j, "code", e.code);
  member(j, "location", e.location);
  return e;
}

json toJSON(const CompileEntry &c) {
  json attempts = json::array(), events = json::array(), artifacts = json::array();
  for (const CompileAttemptEntry &a : c.attempts)
    attempts.push_back({{"attempt", a.attempt}, {"restartReason", a.restartReason}});
  for (const CompileEvent &e : c.events)
    events.push_back(toJSON(e));
  for (const ArtifactRef &a : c.artifacts)
    artifacts.push_back({{"uri", a.uri}, {"title", a.title}});
  return {{"compileId", c.compileId},
          {"label", c.label},
          {"rank", nullable(c.rank)},
          {"status", c.status},
          {"summary", c.summary},
          {"attempts", std::move(attempts)},
          {"seconds", nullable(c.seconds)},
          {"backwardSeconds", nullable(c.backwardSeconds)},
          {"runtimeSeconds", nullable(c.runtimeSeconds)},
          {"guardCount", nullable(c.guardCount)},
          {"shapeEnvGuardCount", nullable(c.shapeEnvGuardCount)},
          {"graphOpCount", nullable(c.graphOpCount)},
          {"cache", {{"fxGraph", nullable(c.fxGraphCache)}, {"aotAutograd", nullable(c.aotAutogradCache)}}},
          {"failType", nullable(c.failType)},
          {"failReason", nullable(c.failReason)},
          {"recompileReasons", c.recompileReasons},
          {"events", std::move(events)},
          {"artifacts", std::move(artifacts)},
          {"trace", c.trace ? json{{"uri", c.trace->uri}, {"line", c.trace->line}} : json(nullptr)}};
}
CompileEntry compileEntry(const json &j) {
  CompileEntry c;
  member(j, "compileId", c.compileId);
  member(j, "label", c.label);
  member(j, "rank", c.rank);
  member(j, "status", c.status);
  member(j, "summary", c.summary);
  if (auto a = j.find("attempts"); a != j.end() && a->is_array())
    for (const json &x : *a) {
      CompileAttemptEntry attempt;
      member(x, "attempt", attempt.attempt);
      member(x, "restartReason", attempt.restartReason);
      c.attempts.push_back(std::move(attempt));
    }
  member(j, "seconds", c.seconds);
  member(j, "backwardSeconds", c.backwardSeconds);
  member(j, "runtimeSeconds", c.runtimeSeconds);
  member(j, "guardCount", c.guardCount);
  member(j, "shapeEnvGuardCount", c.shapeEnvGuardCount);
  member(j, "graphOpCount", c.graphOpCount);
  if (auto cache = j.find("cache"); cache != j.end() && cache->is_object()) {
    member(*cache, "fxGraph", c.fxGraphCache);
    member(*cache, "aotAutograd", c.aotAutogradCache);
  }
  member(j, "failType", c.failType);
  member(j, "failReason", c.failReason);
  member(j, "recompileReasons", c.recompileReasons);
  if (auto e = j.find("events"); e != j.end() && e->is_array())
    for (const json &x : *e)
      c.events.push_back(compileEvent(x));
  if (auto a = j.find("artifacts"); a != j.end() && a->is_array())
    for (const json &x : *a) {
      ArtifactRef ref;
      member(x, "uri", ref.uri);
      member(x, "title", ref.title);
      c.artifacts.push_back(std::move(ref));
    }
  if (auto t = j.find("trace"); t != j.end() && t->is_object()) {
    c.trace.emplace();
    member(*t, "uri", c.trace->uri);
    member(*t, "line", c.trace->line);
  }
  return c;
}

} // namespace

void to_json(json &j, const CompilesResult &r) {
  json frames = json::array();
  for (const FrameEntry &f : r.frames) {
    json compiles = json::array();
    for (const CompileEntry &c : f.compiles)
      compiles.push_back(toJSON(c));
    frames.push_back(
        {{"function", f.function},
         {"name", f.name},
         {"resumes",
          f.resumes ? json{{"function", f.resumes->function}, {"line", f.resumes->line}} : json(nullptr)},
         {"frameId", nullable(f.frameId)},
         {"compiledAutogradId", nullable(f.compiledAutogradId)},
         {"rank", nullable(f.rank)},
         {"location", nullable(f.location)},
         {"resumeOf", nullable(f.resumeOf)},
         {"status", f.status},
         {"summary", f.summary},
         {"compiles", std::move(compiles)}});
  }
  j = json{{"frames", std::move(frames)}, {"summary", r.summary ? json(*r.summary) : json::object()}};
  if (r.functions) {
    json functions = json::array();
    for (const FunctionEntry &f : *r.functions)
      functions.push_back({{"file", nullable(f.file)},
                           {"path", nullable(f.path)},
                           {"function", f.function},
                           {"location", nullable(f.location)},
                           {"status", f.status},
                           {"summary", f.summary},
                           {"frames", f.frames}});
    j["functions"] = std::move(functions);
  }
}

void from_json(const json &j, CompilesResult &r) {
  r = {};
  for (const json &x : j.at("frames")) {
    FrameEntry f;
    member(x, "function", f.function);
    member(x, "name", f.name);
    if (auto rs = x.find("resumes"); rs != x.end() && rs->is_object()) {
      f.resumes.emplace();
      member(*rs, "function", f.resumes->function);
      member(*rs, "line", f.resumes->line);
    }
    member(x, "frameId", f.frameId);
    member(x, "compiledAutogradId", f.compiledAutogradId);
    member(x, "rank", f.rank);
    member(x, "location", f.location);
    member(x, "resumeOf", f.resumeOf);
    member(x, "status", f.status);
    member(x, "summary", f.summary);
    if (auto cs = x.find("compiles"); cs != x.end() && cs->is_array())
      for (const json &c : *cs)
        f.compiles.push_back(compileEntry(c));
    r.frames.push_back(std::move(f));
  }
  if (auto fs = j.find("functions"); fs != j.end() && fs->is_array()) {
    r.functions.emplace();
    for (const json &x : *fs) {
      FunctionEntry f;
      member(x, "file", f.file);
      member(x, "path", f.path);
      member(x, "function", f.function);
      member(x, "location", f.location);
      member(x, "status", f.status);
      member(x, "summary", f.summary);
      member(x, "frames", f.frames);
      r.functions->push_back(std::move(f));
    }
  }
  if (auto s = j.find("summary"); s != j.end() && s->is_object() && !s->empty()) r.summary = s->get<Counts>();
}

// --- inductor/hotLines -----------------------------------------------------------------------------------

void from_json(const json &j, HotLinesParams &p) {
  p = {};
  if (!j.is_object()) return;
  if (auto it = j.find("limit"); it != j.end() && it->is_number_unsigned())
    p.limit = std::min<uint64_t>(it->get<uint64_t>(), 100000);
  if (auto it = j.find("uri"); it != j.end() && it->is_string()) p.uri = it->get<std::string>();
}
void to_json(json &j, const HotLinesParams &p) {
  j = json{{"limit", p.limit}};
  if (p.uri) j["uri"] = *p.uri;
}

void to_json(json &j, const HotLinesResult &r) {
  json lines = json::array(), kernels = json::array();
  for (const HotLine &l : r.lines)
    lines.push_back({{"location", nullable(l.location)},
                     {"path", l.path},
                     {"line", l.line},
                     {"code", l.code},
                     {"ns", l.ns},
                     {"perStepNs", l.perStepNs},
                     {"stepNs", l.stepNs},
                     {"percent", l.percent},
                     {"label", l.label},
                     {"launches", l.launches},
                     {"byKind", l.byKind}});
  auto kernel = [](const HotKernel &k) {
    return json{{"location", k.location},
                {"kernel", k.kernel},
                {"compile", k.compile},
                {"ns", k.ns},
                {"perStepNs", k.perStepNs},
                {"stepNs", k.stepNs},
                {"percent", k.percent},
                {"label", k.label},
                {"numGb", nullable(k.numGb)},
                {"flop", nullable(k.flop)},
                {"achievedGbPerS", nullable(k.achievedGbPerS)},
                {"achievedTflopPerS", nullable(k.achievedTflopPerS)},
                {"peakPercent", nullable(k.peakPercent)},
                {"bound", nullable(k.bound)},
                {"timeLeftNs", nullable(k.timeLeftNs)},
                {"roofline", k.roofline}};
  };
  json byTimeLeft = json::array();
  for (const HotKernel &k : r.kernels)
    kernels.push_back(kernel(k));
  for (const HotKernel &k : r.kernelsByTimeLeft)
    byTimeLeft.push_back(kernel(k));
  j = json{{"basis", r.basis},           {"basisText", r.basisText},     {"steps", r.steps},
           {"stepNs", r.stepNs},         {"totalNs", r.totalNs},         {"eagerNs", r.eagerNs},
           {"unjoinedNs", r.unjoinedNs}, {"caveats", r.caveats},         {"profiles", r.profiles},
           {"lines", std::move(lines)},  {"kernels", std::move(kernels)}};
  j["peak"] = r.peak;
  j["kernelsByTimeLeft"] = std::move(byTimeLeft);
}

void from_json(const json &j, HotLinesResult &r) {
  r = {};
  member(j, "basis", r.basis);
  member(j, "basisText", r.basisText);
  member(j, "steps", r.steps);
  member(j, "stepNs", r.stepNs);
  member(j, "totalNs", r.totalNs);
  member(j, "eagerNs", r.eagerNs);
  member(j, "unjoinedNs", r.unjoinedNs);
  member(j, "caveats", r.caveats);
  member(j, "profiles", r.profiles);
  if (auto ls = j.find("lines"); ls != j.end() && ls->is_array())
    for (const json &x : *ls) {
      HotLine l;
      member(x, "location", l.location);
      member(x, "path", l.path);
      member(x, "line", l.line);
      member(x, "code", l.code);
      member(x, "ns", l.ns);
      member(x, "perStepNs", l.perStepNs);
      member(x, "stepNs", l.stepNs);
      member(x, "percent", l.percent);
      member(x, "label", l.label);
      member(x, "launches", l.launches);
      member(x, "byKind", l.byKind);
      r.lines.push_back(std::move(l));
    }
  auto kernel = [](const json &x) {
    HotKernel k;
    member(x, "location", k.location);
    member(x, "kernel", k.kernel);
    member(x, "compile", k.compile);
    member(x, "ns", k.ns);
    member(x, "perStepNs", k.perStepNs);
    member(x, "stepNs", k.stepNs);
    member(x, "percent", k.percent);
    member(x, "label", k.label);
    member(x, "numGb", k.numGb);
    member(x, "flop", k.flop);
    member(x, "achievedGbPerS", k.achievedGbPerS);
    member(x, "achievedTflopPerS", k.achievedTflopPerS);
    member(x, "peakPercent", k.peakPercent);
    member(x, "bound", k.bound);
    member(x, "timeLeftNs", k.timeLeftNs);
    member(x, "roofline", k.roofline);
    return k;
  };
  if (auto ks = j.find("kernels"); ks != j.end() && ks->is_array())
    for (const json &x : *ks)
      r.kernels.push_back(kernel(x));
  member(j, "peak", r.peak);
  if (auto ks = j.find("kernelsByTimeLeft"); ks != j.end() && ks->is_array())
    for (const json &x : *ks)
      r.kernelsByTimeLeft.push_back(kernel(x));
}

void from_json(const json &j, CompareParams &p) {
  p = {};
  if (!j.is_object()) return;
  if (auto it = j.find("baseline"); it != j.end() && it->is_string()) p.baseline = it->get<std::string>();
  if (auto it = j.find("current"); it != j.end() && it->is_string()) p.current = it->get<std::string>();
}
void to_json(json &j, const CompareParams &p) {
  j = json::object();
  if (p.baseline) j["baseline"] = *p.baseline;
  if (p.current) j["current"] = *p.current;
}

namespace {
json compareRunJson(const CompareRun &r) {
  return json{{"id", r.id}, {"logs", r.logs}};
}
CompareRun compareRunOf(const json &j) {
  CompareRun r;
  member(j, "id", r.id);
  member(j, "logs", r.logs);
  return r;
}
} // namespace

void to_json(json &j, const CompareResult &r) {
  json events = json::array(), lines = json::array();
  for (const CompareEvent &e : r.events)
    events.push_back({{"change", e.change},
                      {"kind", e.kind},
                      {"file", e.file},
                      {"line", e.line},
                      {"code", e.code},
                      {"message", e.message}});
  for (const CompareLine &l : r.lines)
    lines.push_back({{"file", l.file},
                     {"line", l.line},
                     {"text", l.text},
                     {"change", l.change},
                     {"kernelsBefore", l.kernelsBefore},
                     {"kernelsAfter", l.kernelsAfter},
                     {"kernelsChanged", l.kernelsChanged},
                     {"kernelCountBefore", l.kernelCountBefore},
                     {"kernelCountAfter", l.kernelCountAfter},
                     {"compilesBefore", l.compilesBefore},
                     {"compilesAfter", l.compilesAfter},
                     {"gpuTimeBeforeUs", nullable(l.gpuTimeBeforeUs)},
                     {"gpuTimeAfterUs", nullable(l.gpuTimeAfterUs)}});
  j = json{{"baseline", r.baseline ? compareRunJson(*r.baseline) : json(nullptr)},
           {"current", compareRunJson(r.current)},
           {"reason", r.reason},
           {"basisBefore", r.basisBefore},
           {"basisAfter", r.basisAfter},
           {"events", std::move(events)},
           {"lines", std::move(lines)}};
}

void from_json(const json &j, CompareResult &r) {
  r = {};
  if (auto b = j.find("baseline"); b != j.end() && b->is_object()) r.baseline = compareRunOf(*b);
  if (auto c = j.find("current"); c != j.end() && c->is_object()) r.current = compareRunOf(*c);
  member(j, "reason", r.reason);
  member(j, "basisBefore", r.basisBefore);
  member(j, "basisAfter", r.basisAfter);
  if (auto es = j.find("events"); es != j.end() && es->is_array())
    for (const json &x : *es) {
      CompareEvent e;
      member(x, "change", e.change);
      member(x, "kind", e.kind);
      member(x, "file", e.file);
      member(x, "line", e.line);
      member(x, "code", e.code);
      member(x, "message", e.message);
      r.events.push_back(std::move(e));
    }
  if (auto ls = j.find("lines"); ls != j.end() && ls->is_array())
    for (const json &x : *ls) {
      CompareLine l;
      member(x, "file", l.file);
      member(x, "line", l.line);
      member(x, "text", l.text);
      member(x, "change", l.change);
      member(x, "kernelsBefore", l.kernelsBefore);
      member(x, "kernelsAfter", l.kernelsAfter);
      member(x, "kernelsChanged", l.kernelsChanged);
      member(x, "kernelCountBefore", l.kernelCountBefore);
      member(x, "kernelCountAfter", l.kernelCountAfter);
      member(x, "compilesBefore", l.compilesBefore);
      member(x, "compilesAfter", l.compilesAfter);
      member(x, "gpuTimeBeforeUs", l.gpuTimeBeforeUs);
      member(x, "gpuTimeAfterUs", l.gpuTimeAfterUs);
      r.lines.push_back(std::move(l));
    }
}

// --- inductor/runs -----------------------------------------------------------------------------------

void from_json(const json &j, RunsResult &r) {
  r = {};
  if (auto runs = j.find("runs"); runs != j.end() && runs->is_array())
    for (const json &e : *runs) {
      RunEntry run;
      member(e, "id", run.id);
      member(e, "startTime", run.startTime);
      member(e, "endTime", run.endTime);
      member(e, "ranks", run.ranks);
      member(e, "logs", run.logs);
      member(e, "current", run.current);
      member(e, "baseline", run.baseline);
      r.runs.push_back(std::move(run));
    }
}

void to_json(json &j, const RunsResult &r) {
  json runs = json::array();
  for (const RunEntry &e : r.runs)
    runs.push_back({{"id", e.id},
                    {"startTime", nullable(e.startTime)},
                    {"endTime", nullable(e.endTime)},
                    {"ranks", e.ranks},
                    {"logs", e.logs},
                    {"current", e.current},
                    {"baseline", e.baseline}});
  j = json{{"runs", std::move(runs)}};
}

void from_json(const json &j, RanksParams &p) {
  member(j, "run", p.run);
}
void to_json(json &j, const RanksParams &p) {
  j = json::object();
  if (p.run) j["run"] = *p.run;
}

void from_json(const json &j, RanksResult &r) {
  r = {};
  member(j, "count", r.count);
  if (auto ds = j.find("divergences"); ds != j.end() && ds->is_array())
    for (const json &x : *ds) {
      RankDivergenceEntry d;
      member(x, "kind", d.kind);
      member(x, "ranks", d.ranks);
      member(x, "of", d.of);
      member(x, "compileId", d.compileId);
      member(x, "file", d.file);
      member(x, "line", d.line);
      member(x, "message", d.message);
      member(x, "detail", d.detail);
      r.divergences.push_back(std::move(d));
    }
}
void to_json(json &j, const RanksResult &r) {
  json ds = json::array();
  for (const RankDivergenceEntry &d : r.divergences)
    ds.push_back({{"kind", d.kind},
                  {"ranks", d.ranks},
                  {"of", d.of},
                  {"compileId", d.compileId},
                  {"file", nullable(d.file)},
                  {"line", nullable(d.line)},
                  {"message", d.message},
                  {"detail", d.detail}});
  j = {{"count", r.count}, {"divergences", std::move(ds)}};
}

void from_json(const json &j, LoweredStage &s) {
  required(j, "stage", s.stage);
  required(j, "locations", s.locations);
  member(j, "more", s.more);
  member(j, "note", s.note);
}
void to_json(json &j, const LoweredStage &s) {
  j = {{"stage", s.stage}, {"locations", s.locations}};
  if (s.more) j["more"] = s.more;
  if (!s.note.empty()) j["note"] = s.note;
}

void from_json(const json &j, KernelResources &r) {
  member(j, "numWarps", r.numWarps);
  member(j, "numStages", r.numStages);
  member(j, "sharedBytes", r.sharedBytes);
  member(j, "registers", r.registers);
  member(j, "spills", r.spills);
  member(j, "ir", r.ir);
  member(j, "numGb", r.numGb);
  member(j, "flop", r.flop);
  member(j, "achievedGbPerS", r.achievedGbPerS);
  member(j, "achievedTflopPerS", r.achievedTflopPerS);
}
void to_json(json &j, const KernelResources &r) {
  j = {{"numWarps", nullable(r.numWarps)},
       {"numStages", nullable(r.numStages)},
       {"sharedBytes", nullable(r.sharedBytes)},
       {"registers", nullable(r.registers)},
       {"spills", nullable(r.spills)},
       {"ir", r.ir},
       {"numGb", nullable(r.numGb)},
       {"flop", nullable(r.flop)},
       {"achievedGbPerS", nullable(r.achievedGbPerS)},
       {"achievedTflopPerS", nullable(r.achievedTflopPerS)}};
}

void from_json(const json &j, KernelEntry &e) {
  from_json(j, static_cast<KernelResources &>(e));
  member(j, "name", e.name);
  member(j, "rank", e.rank);
  member(j, "compileId", e.compileId);
  member(j, "graph", e.graph);
  member(j, "outputCode", e.outputCode);
  member(j, "kernelPath", e.kernelPath);
  member(j, "cacheEntry", e.cacheEntry);
  member(j, "join", e.join);
}
void to_json(json &j, const KernelEntry &e) {
  to_json(j, static_cast<const KernelResources &>(e));
  j["name"] = e.name;
  j["rank"] = nullable(e.rank);
  j["compileId"] = e.compileId;
  j["graph"] = e.graph;
  j["outputCode"] = e.outputCode;
  j["kernelPath"] = nullable(e.kernelPath);
  j["cacheEntry"] = nullable(e.cacheEntry);
  j["join"] = e.join;
}

} // namespace inductor::protocol
