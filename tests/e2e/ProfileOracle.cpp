#include "e2e/ProfileOracle.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>

namespace inductor::e2e {

std::map<uint32_t, std::string> cacheKeysOf(const std::string &tracePath) {
  std::map<uint32_t, std::string> out;
  std::map<std::string, uint32_t> lastOutput; // compile id -> envelope line of its latest output code
  auto compileOf = [](const json &env) {
    return std::to_string(env.value("frame_id", -1)) + "/" +
           std::to_string(env.value("frame_compile_id", -1)) + "_" + std::to_string(env.value("attempt", 0));
  };
  for (const TraceRecord &r : readTraceLog(tracePath)) {
    if (r.malformed) continue;
    if (r.envelope.contains("inductor_output_code")) {
      lastOutput[compileOf(r.envelope)] = r.line;
      continue;
    }
    if (!r.envelope.contains("artifact")) continue;
    std::string name = r.envelope["artifact"].value("name", "");
    if (name != "fx_graph_cache_miss" && name != "fx_graph_cache_hit") continue;
    auto it = lastOutput.find(compileOf(r.envelope));
    if (it == lastOutput.end() || out.count(it->second)) continue;
    json payload = json::parse(r.payload, nullptr, false);
    if (payload.is_object() && payload.contains("key")) out[it->second] = payload["key"].get<std::string>();
  }
  return out;
}

std::string profilerOpName(const std::string &kernel) {
  if (kernel.rfind("extern_kernels.", 0) == 0) return "aten::" + kernel.substr(15);
  std::string k = kernel;
  if (k.rfind("torch.ops.", 0) == 0) k = k.substr(10);
  if (k.rfind("aten.", 0) == 0) {
    std::string rest = k.substr(5);
    return "aten::" + rest.substr(0, rest.find('.'));
  }
  return kernel;
}

namespace {

struct Event {
  std::string name, thread;
  double ts = 0, end = 0;
  int64_t ext = -1;
};

bool contains(const Event &outer, const Event &inner) {
  return outer.thread == inner.thread && outer.ts <= inner.ts && inner.end <= outer.end;
}

} // namespace

OracleJoin joinByOracle(const json &profile,
                        const std::map<std::string, std::vector<std::string>> &launches) {
  OracleJoin out;
  std::vector<Event> cpu;
  std::vector<std::pair<int64_t, int64_t>> device; // (External id, ns)
  std::vector<Event> steps;
  for (const json &e : profile["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    std::string cat = e.value("cat", "");
    const json &args = e.contains("args") ? e["args"] : json::object();
    int64_t ext = args.value("External id", int64_t(-1));
    if (cat == "cpu_op" || cat == "user_annotation") {
      Event ev;
      ev.name = e["name"].get<std::string>();
      ev.thread = e["pid"].dump() + ":" + e["tid"].dump();
      ev.ts = e["ts"].get<double>();
      ev.end = ev.ts + e.value("dur", 0.0);
      ev.ext = ext;
      if (ev.name.rfind("ProfilerStep#", 0) == 0) steps.push_back(ev);
      cpu.push_back(std::move(ev));
    } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      device.emplace_back(ext, std::llround(e.value("dur", 0.0) * 1000.0));
    }
  }
  std::sort(steps.begin(), steps.end(), [](const Event &a, const Event &b) { return a.ts < b.ts; });
  for (const Event &s : steps)
    out.steps.push_back(s.name);
  out.stepNs.assign(steps.size(), 0);
  for (auto &[key, ls] : launches) {
    out.launchNs[key].assign(ls.size(), 0);
    out.launchStepNs[key].assign(ls.size(), std::vector<int64_t>(steps.size(), 0));
  }

  // Calls and their direct children, in time order.
  std::vector<size_t> calls;
  for (size_t i = 0; i < cpu.size(); ++i)
    if (cpu[i].name.rfind("## Call CompiledFxGraph ", 0) == 0) calls.push_back(i);
  std::map<size_t, std::vector<size_t>> children;
  for (size_t c : calls) {
    std::vector<size_t> inside;
    for (size_t i = 0; i < cpu.size(); ++i)
      if (i != c && contains(cpu[c], cpu[i])) inside.push_back(i);
    for (size_t i : inside) {
      bool direct = std::none_of(inside.begin(), inside.end(), [&](size_t j) {
        return j != i && contains(cpu[j], cpu[i]) && !(cpu[j].ts == cpu[i].ts && cpu[j].end == cpu[i].end);
      });
      if (direct) children[c].push_back(i);
    }
    std::sort(children[c].begin(), children[c].end(),
              [&](size_t a, size_t b) { return cpu[a].ts < cpu[b].ts; });
  }
  // Alignment per call: child -> launch index.
  std::map<size_t, std::pair<std::string, size_t>> launchOfChild;
  for (size_t c : calls) {
    std::string key = cpu[c].name.substr(24);
    if (key.size() > 3 && key.substr(key.size() - 3) == " ##") key = key.substr(0, key.size() - 3);
    auto it = launches.find(key);
    if (it == launches.end()) continue;
    ++out.calls[key];
    size_t next = 0;
    for (size_t l = 0; l < it->second.size(); ++l) {
      std::string want = profilerOpName(it->second[l]);
      bool found = false;
      for (size_t j = next; j < children[c].size(); ++j)
        if (cpu[children[c][j]].name == want) {
          launchOfChild[children[c][j]] = {key, l};
          next = j + 1;
          found = true;
          break;
        }
      if (!found) ++out.missed[key];
    }
  }
  for (const auto &deviceEntry : device) {
    const auto ext = deviceEntry.first; // Named: clang 14 cannot capture a structured binding.
    const auto &ns = deviceEntry.second;
    auto op = std::find_if(cpu.begin(), cpu.end(), [&](const Event &e) { return e.ext == ext; });
    size_t step = SIZE_MAX;
    if (!steps.empty()) {
      if (op == cpu.end()) continue;
      for (size_t s = 0; s < steps.size(); ++s)
        if (steps[s].ts <= op->ts && op->ts < steps[s].end) step = s;
      if (step == SIZE_MAX) continue;
      out.stepNs[step] += ns;
    }
    out.totalNs += ns;
    if (op == cpu.end()) {
      out.eagerNs += ns;
      continue;
    }
    size_t opIndex = static_cast<size_t>(op - cpu.begin());
    // The innermost call around the op, and the call's child holding it.
    std::optional<size_t> call;
    for (size_t c : calls)
      if (contains(cpu[c], *op) && (!call || cpu[c].ts >= cpu[*call].ts)) call = c;
    if (!call) {
      out.eagerNs += ns;
      continue;
    }
    std::optional<size_t> unit;
    for (size_t child : children[*call])
      if (child == opIndex || contains(cpu[child], *op)) unit = child;
    auto l = unit ? launchOfChild.find(*unit) : launchOfChild.end();
    if (l == launchOfChild.end()) {
      out.otherNs += ns;
      continue;
    }
    out.launchNs[l->second.first][l->second.second] += ns;
    if (step != SIZE_MAX) out.launchStepNs[l->second.first][l->second.second][step] += ns;
  }
  return out;
}

json readProfile(const std::string &path) {
  if (path.size() > 3 && path.substr(path.size() - 3) == ".gz") {
    gzFile f = gzopen(path.c_str(), "rb");
    std::string text;
    char buf[1 << 16];
    int n;
    while (f && (n = gzread(f, buf, sizeof buf)) > 0)
      text.append(buf, static_cast<size_t>(n));
    if (f) gzclose(f);
    return json::parse(text);
  }
  return json::parse(readFile(path));
}

} // namespace inductor::e2e
