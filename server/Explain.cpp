#include "server/Explain.h"

#include "index/Index.h"
#include "index/TextLines.h"
#include "protocol/Json.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <thread>

namespace fs = std::filesystem;

namespace inductor::server {

namespace {

std::string kindWordOf(const index::Compile *c) {
  return c ? std::string(c->kindWord()) : "other";
}

std::string relative(const std::string &path) {
  std::error_code ec;
  fs::path rel = fs::relative(path, fs::current_path(ec), ec);
  if (ec || rel.empty() || rel.string().rfind("../../..", 0) == 0) return path;
  return rel.string();
}

std::string shortName(const std::string &path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

std::string sourceText(const index::Origin &o, std::map<std::string, std::vector<std::string>> &files) {
  std::string code(index::trim(o.code));
  if (!code.empty() || !o.exists) return code;
  auto it = files.find(o.path);
  if (it == files.end()) {
    std::vector<std::string> lines;
    std::ifstream in(o.path);
    for (std::string l; std::getline(in, l);)
      lines.push_back(l);
    it = files.emplace(o.path, std::move(lines)).first;
  }
  return o.line >= 1 && o.line <= it->second.size() ? std::string(index::trim(it->second[o.line - 1])) : "";
}

void usage() {
  std::cerr
      << "usage: inductor-ls explain [--json] [--path-mapping FROM=TO]... [--root DIR]... [--profile "
         "FILE]...\n"
         "                           [--run-log FILE]... PATH...\n"
         "  PATH: trace directories, TORCH_COMPILE_DEBUG or Inductor cache directories, single logs.\n"
         "  --profile: a torch.profiler Chrome trace (.json or .json.gz) to join to the launches; --run-log: "
         "a run\n"
         "  log with the intermediate value debug printer's output. Both are also found beside the traces.\n"
         "  Recorded paths are resolved by --path-mapping, then by suffix match under --root and PATH.\n";
}

} // namespace

int runExplain(const std::vector<std::string> &args) {
  index::IndexOptions options;
  bool asJson = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--json") {
      asJson = true;
    } else if (a == "--path-mapping" && i + 1 < args.size()) {
      const std::string &m = args[++i];
      size_t eq = m.find('=');
      if (eq == std::string::npos) {
        usage();
        return 2;
      }
      options.pathMappings.push_back({m.substr(0, eq), m.substr(eq + 1)});
    } else if (a == "--root" && i + 1 < args.size()) {
      options.roots.push_back(args[++i]);
    } else if (a == "--profile" && i + 1 < args.size()) {
      options.profiles.push_back(args[++i]);
    } else if (a == "--run-log" && i + 1 < args.size()) {
      options.runLogs.push_back(args[++i]);
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "explain: unknown option " << a << "\n";
      usage();
      return 2;
    } else {
      options.inputs.push_back(a);
    }
  }
  if (options.inputs.empty()) {
    usage();
    return 2;
  }
  options.jobs = std::max(1u, std::thread::hardware_concurrency());
  auto started = std::chrono::steady_clock::now();
  auto index = index::Index::build(options);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                .count();
  index::IndexStats stats = index->stats();
  std::map<std::string, std::vector<std::string>> files;

  // User lines: path -> line -> launches.
  std::map<std::string, std::map<uint32_t, std::vector<index::LaunchRef>>> userLines;
  for (uint32_t i = 0; i < index->artifacts().size(); ++i) {
    const index::Artifact &a = index->artifacts()[i];
    for (uint32_t l = 0; l < a.launches.size(); ++l)
      for (const index::Origin &o : a.launches[l].origins)
        userLines[o.path][o.line].push_back({{i}, l});
  }

  if (asJson) {
    protocol::json out;
    out["stats"] = {{"traceFiles", stats.traceFiles}, {"traceBytes", stats.traceBytes},
                    {"compiles", stats.compiles},     {"kernels", stats.kernels},
                    {"launches", stats.launches},     {"launchesWithOrigin", stats.launchesWithOrigin},
                    {"userLines", stats.userLines},   {"corruptedRecords", stats.corruptedRecords},
                    {"errors", stats.errors},         {"milliseconds", ms}};
    out["launches"] = protocol::json::array();
    for (uint32_t i = 0; i < index->artifacts().size(); ++i) {
      const index::Artifact &a = index->artifacts()[i];
      for (const index::Launch &l : a.launches) {
        protocol::json origins = protocol::json::array();
        for (const index::Origin &o : l.origins)
          origins.push_back(
              {{"path", o.path}, {"line", o.line}, {"code", sourceText(o, files)}, {"exists", o.exists}});
        out["launches"].push_back(
            {{"artifact", a.title},
             {"file", a.paths.empty() ? a.virtualName : a.paths.front()},
             {"line", l.site.line + 1},
             {"kernel", l.site.kernel},
             {"debugHandle", l.site.debugHandle ? protocol::json(*l.site.debugHandle) : nullptr},
             {"kind", std::string(index::displayName(l.kind))},
             {"origins", origins}});
      }
    }
    out["userLines"] = protocol::json::array();
    for (const auto &[path, lines] : userLines)
      for (const auto &[line, launches] : lines) {
        protocol::json ks = protocol::json::array();
        for (index::LaunchRef r : launches) {
          const index::Launch &l = index->launch(r);
          const index::Compile *c = index->compileOf(r.artifact);
          ks.push_back({{"kernel", l.site.kernel},
                        {"debugHandle", l.site.debugHandle ? protocol::json(*l.site.debugHandle) : nullptr},
                        {"compile", c ? c->label() : ""}});
        }
        out["userLines"].push_back({{"path", path}, {"line", line}, {"kernels", ks}});
      }
    out["diagnostics"] = protocol::json::array();
    for (const auto &d : index->diagnostics())
      out["diagnostics"].push_back({{"file", d.file}, {"line", d.line + 1}, {"message", d.message}});
    out["runtime"] = runtimeJson(*index);
    std::cout << out.dump(2) << "\n";
    return 0;
  }

  std::printf(
      "Indexed %zu trace file(s) (%.1f MB), %zu compiles, %zu kernel launches (%zu with a user origin), "
      "%zu user source lines with kernels, in %lld ms\n",
      stats.traceFiles, stats.traceBytes / 1e6, stats.compiles, stats.launches, stats.launchesWithOrigin,
      stats.userLines, static_cast<long long>(ms));
  if (stats.corruptedRecords) std::printf("Skipped %zu corrupted trace records\n", stats.corruptedRecords);
  for (const index::Compile &c : index->compiles()) {
    const index::Artifact &a = index->artifact(c.outputCode);
    std::string where = a.paths.empty() ? "inductor-trace:/" + a.virtualName : relative(a.paths.front());
    std::printf("\n%s  (%s)\n", a.title.c_str(), where.c_str());
    for (const index::Launch &l : a.launches) {
      std::string name =
          l.site.kernel + (l.site.debugHandle ? ":" + std::to_string(*l.site.debugHandle) : "");
      std::string origin = "(no user origin)";
      if (!l.origins.empty()) {
        const index::Origin &o = l.origins.front();
        origin = shortName(o.path) + ":" + std::to_string(o.line) + "  " + sourceText(o, files);
        if (l.origins.size() > 1) origin += "  (+" + std::to_string(l.origins.size() - 1) + " more)";
      }
      std::printf("  %5u  %-58s -> %s\n", l.site.line + 1, name.c_str(), origin.c_str());
    }
  }
  if (!userLines.empty()) std::printf("\nKernels by user source line\n");
  for (const auto &[path, lines] : userLines) {
    std::printf("\n%s\n", relative(path).c_str());
    for (const auto &[line, launches] : lines) {
      std::map<std::string, int> byKind;
      // Compile order (forward before backward, recompiles in order), not label order.
      std::map<uint32_t, std::pair<std::string, std::vector<std::string>>> byCompile;
      for (index::LaunchRef r : launches) {
        const index::Compile *c = index->compileOf(r.artifact);
        ++byKind[kindWordOf(c)];
        const index::Launch &l = index->launch(r);
        auto &slot = byCompile[index->artifact(r.artifact).compile.value];
        slot.first = c ? c->label() : "?";
        slot.second.push_back(l.site.kernel +
                              (l.site.debugHandle ? ":" + std::to_string(*l.site.debugHandle) : ""));
      }
      index::Origin o;
      o.path = path;
      o.line = line;
      o.exists = fs::exists(path);
      for (index::LaunchRef r : launches)
        for (const index::Origin &x : index->launch(r).origins)
          if (x.path == path && x.line == line && !x.code.empty()) o.code = x.code;
      std::string summary = std::to_string(launches.size()) + (launches.size() == 1 ? " kernel" : " kernels");
      for (const char *k : {"forward", "backward", "inference", "AOT", "other"})
        if (auto it = byKind.find(k); it != byKind.end())
          summary += " · " + std::to_string(it->second) + " " + k;
      std::printf("  %4u  %-60s %s\n", line, sourceText(o, files).c_str(), summary.c_str());
      for (const auto &[ref, entry] : byCompile) {
        const auto &[compile, names] = entry;
        std::string list;
        for (const std::string &n : names)
          list += (list.empty() ? "" : ", ") + n;
        std::printf("          %-22s %s\n", compile.c_str(), list.c_str());
      }
    }
  }
  printRuntime(*index);
  if (!index->diagnostics().empty()) {
    std::printf("\n%zu problem(s) while indexing:\n", index->diagnostics().size());
    for (size_t i = 0; i < index->diagnostics().size() && i < 20; ++i) {
      const auto &d = index->diagnostics()[i];
      std::printf("  %s:%u: %s\n", relative(d.file).c_str(), d.line + 1, d.message.c_str());
    }
  }
  return 0;
}

} // namespace inductor::server
