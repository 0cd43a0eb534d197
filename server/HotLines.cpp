// server/HotLines.cpp: the custom request `inductor/hotLines`, the per-line time table for editors' views
// (VS Code's hottest-lines picker, Neovim's quickfix list).
//
//   params: {limit?: number (default 200), uri?: string (only the lines of that user file)}
//   result: {basis: "perStep" | "total", basisText, steps: [names], totalNs, eagerNs, unjoinedNs, caveats:
//   [...],
//            profiles: [paths],
//            lines: [{location: Location, path, line (1-based), code, ns, perStepNs, percent, label,
//            launches,
//                     byKind: {forward: ns, ...}}], largest first,
//            kernels: [{location, kernel, compile, ns, percent, label}], largest first (not with `uri`)}
// `ns` is the total over the profiles; `perStepNs` is ns divided by the step count when steps are marked
// (else equal to ns); `label` is what the lens shows ("133 µs/step", "400 µs total"). Without profiles: lines
// is empty and basis is "none".
#include "protocol/URI.h"
#include "server/Convert.h"
#include "server/RuntimeFormat.h"
#include "server/Server.h"

#include <algorithm>

namespace inductor::server {

void Server::onHotLines(const json &params, Reply reply) {
  size_t limit = 200;
  std::optional<std::string> uri;
  if (params.is_object()) {
    if (auto it = params.find("limit"); it != params.end() && it->is_number_unsigned())
      limit = std::min<size_t>(it->get<size_t>(), 100000);
    if (auto it = params.find("uri"); it != params.end() && it->is_string()) uri = it->get<std::string>();
  }
  withIndex(std::move(reply), [this, limit, uri](const index::Index &index, const Reply &reply) {
    const index::RuntimeData &rt = index.runtime();
    const index::RuntimeTimes &times = rt.times;
    TextCache texts(documents(), index);
    json out;
    out["basis"] = !times.present() ? "none" : times.stepsMarked() ? "perStep" : "total";
    out["basisText"] = times.present() ? timeBasis(times) : "no profiler trace found";
    out["steps"] = times.steps;
    out["stepNs"] = times.stepNs;
    out["totalNs"] = times.totalNs;
    out["eagerNs"] = times.eagerNs;
    out["unjoinedNs"] = times.unjoinedNs;
    out["caveats"] = times.caveats;
    out["profiles"] = json::array();
    for (const index::ProfileInfo &p : times.profiles)
      out["profiles"].push_back(p.path);
    std::string only;
    if (uri)
      if (auto p = protocol::filePath(*uri)) only = index::normalizePath(*p);
    json lines = json::array();
    for (const index::LineTiming &l : rt.hotLines) {
      if (lines.size() >= limit) break;
      if (!only.empty() && index::normalizePath(l.path) != only) continue;
      index::Origin o;
      o.path = l.path;
      o.line = l.line;
      o.code = l.code;
      std::error_code ec;
      o.exists = std::filesystem::exists(l.path, ec);
      json byKind = json::object();
      for (const auto &[kind, ns] : l.byKind)
        byKind[kind] = ns;
      // Where the line is now (null when it is gone from the file), and its text.
      PlacedOrigin placed = placeOrigin(texts, index, o);
      lines.push_back({{"location", placed.location ? json(*placed.location) : json(nullptr)},
                       {"path", l.path},
                       {"line", placed.line},
                       {"code", placed.code},
                       {"ns", l.ns},
                       {"perStepNs", times.perStep(l.ns)},
                       {"stepNs", l.perStep},
                       {"percent", times.percent(l.ns)},
                       {"label", timeText(times, l.ns)},
                       {"launches", l.launches},
                       {"byKind", byKind}});
    }
    out["lines"] = std::move(lines);
    json kernels = json::array();
    if (only.empty() && times.present()) {
      std::vector<std::pair<uint64_t, index::LaunchRef>> all;
      for (const index::Compile &c : index.compiles()) {
        if (!c.outputCode.valid()) continue;
        for (uint32_t l = 0; l < index.artifact(c.outputCode).launches.size(); ++l)
          if (const index::LaunchTiming *t = index::launchTiming(index, {c.outputCode, l}))
            all.emplace_back(t->ns, index::LaunchRef{c.outputCode, l});
      }
      std::stable_sort(all.begin(), all.end(),
                       [](const auto &a, const auto &b) { return a.first > b.first; });
      for (size_t i = 0; i < all.size() && i < limit; ++i) {
        const index::Launch &l = index.launch(all[i].second);
        const index::Compile *c = index.compileOf(all[i].second.artifact);
        const index::LaunchTiming *t = index::launchTiming(index, all[i].second);
        kernels.push_back(
            {{"location", launchLocation(texts, index, all[i].second)},
             {"kernel",
              l.site.kernel + (l.site.debugHandle ? ":" + std::to_string(*l.site.debugHandle) : "")},
             {"compile", c ? c->label() : ""},
             {"ns", all[i].first},
             {"perStepNs", times.perStep(all[i].first)},
             {"stepNs", t->perStep},
             {"percent", times.percent(all[i].first)},
             {"label", timeText(times, all[i].first)}});
      }
    }
    out["kernels"] = std::move(kernels);
    reply(std::move(out));
  });
}

} // namespace inductor::server
