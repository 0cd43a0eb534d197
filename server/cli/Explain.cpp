// server/cli/Explain.cpp: `inductor-ls explain` (see Explain.h): the arguments, the build, and the text.
#include "server/cli/Explain.h"

#include "index/files/SourceReader.h"
#include "index/model/Index.h"
#include "index/model/Ranks.h"
#include "index/support/TextLines.h"
#include "protocol/Json.h"
#include "server/features/InductorRequests.h"
#include "server/format/Counts.h"
#include "server/format/Health.h"
#include "server/text/Convert.h"
#include "server/workspace/Notices.h"
#include "server/workspace/PythonEnv.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <thread>

namespace fs = std::filesystem;

namespace inductor::server {

namespace {

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

/// A PyTorch frame's file as the package names it (`torch/optim/adam.py`), else its base name.
std::string pytorchName(const index::Origin &o) {
  const std::string &p = o.recordedPath.empty() ? o.path : o.recordedPath;
  for (std::string_view dir : {"/site-packages/", "/dist-packages/"})
    if (size_t at = p.rfind(dir); at != std::string::npos) return p.substr(at + dir.size());
  return shortName(p);
}

std::string frameName(const index::CompileHealth &h, const index::CompiledFrame &f) {
  std::string name = f.function.empty() ? "?" : f.function;
  if (f.def)
    name += " (" + shortName(h.places[*f.def].path) + ":" + std::to_string(h.places[*f.def].line) + ")";
  return name;
}

/// The "Compile health" section: every compile with its outcome, then every event at its user line.
void printCompileHealth(const index::Index &index, const index::SourceReader &sources) {
  const index::CompileHealth &h = index.compileHealth();
  const index::CompileCounts s = index::countsOf(index)->health;
  if (h.compiles.empty()) return;
  std::printf("\nCompile health: %zu compile(s) of %zu frame(s), %zu graph break(s), %zu recompile(s), %zu "
              "failure(s)\n",
              s.compiles, s.frames, s.graphBreaks, s.recompiles, s.failures);
  for (uint32_t ci = 0; ci < h.compiles.size(); ++ci) {
    const index::FrameCompile &c = h.compiles[ci];
    std::string label = c.label();
    std::printf("  %-14s %-44s %s\n", label.c_str(), frameName(h, h.frames[c.frame]).c_str(),
                compileSummary(h, ci).c_str());
    for (size_t a = 0; a + 1 < c.attempts.size(); ++a)
      std::printf("  %-14s   attempt %d restarted: %s\n", "", c.attempts[a].attempt,
                  c.attempts[a].restartReason.c_str());
  }
  // Events by user line.
  std::map<std::string, std::map<uint32_t, std::vector<uint32_t>>> byLine;
  std::vector<uint32_t> unplaced;
  for (uint32_t e = 0; e < h.events.size(); ++e) {
    if (h.events[e].at)
      byLine[h.places[*h.events[e].at].path][h.places[*h.events[e].at].line].push_back(e);
    else
      unplaced.push_back(e);
  }
  for (const auto &[path, lines] : byLine) {
    std::printf("\n%s\n", relative(path).c_str());
    for (const auto &[line, events] : lines) {
      index::Origin o = h.places[*h.events[events.front()].at];
      std::printf("  %4u  %s\n", line, sourceText(o, sources).c_str());
      for (uint32_t e : events) {
        const index::HealthEvent &ev = h.events[e];
        std::string what =
            std::string(index::healthEventWord(ev.kind)) + " [" + h.compiles[ev.compile].id.str() + "]";
        if (h.compiles[ev.compile].rank) what += " rank " + std::to_string(*h.compiles[ev.compile].rank);
        std::printf("          %-24s %s%s\n", what.c_str(), ev.title.c_str(),
                    ev.id.empty() ? "" : (" (" + ev.id + ")").c_str());
      }
    }
  }
  for (uint32_t e : unplaced) {
    const index::HealthEvent &ev = h.events[e];
    std::printf("\n  (no model line) %s [%s] %s\n", std::string(index::healthEventWord(ev.kind)).c_str(),
                h.compiles[ev.compile].id.str().c_str(), ev.title.c_str());
  }
}

/// The "Ranks" section: where the ranks of a distributed run diverge, each divergence once.
void printRanks(const index::Index &index) {
  const index::RankReport &r = index.ranks();
  if (r.ranks.size() < 2) return;
  std::printf("\nRanks: %zu, %zu divergence(s)\n", r.ranks.size(), r.divergences.size());
  for (const index::RankDivergence &d : r.divergences) {
    std::string where = d.at ? relative(d.at->path) + ":" + std::to_string(d.at->line) : std::string("?");
    std::printf("  %-20s [%s] %s  %s\n", std::string(index::rankDivergenceName(d.kind)).c_str(),
                d.compileId.c_str(), where.c_str(), d.message.c_str());
  }
}

void usage() {
  std::cerr
      << "usage: inductor-ls explain [--json] [--path-mapping FROM=TO]... [--root DIR]... [--python PATH]\n"
         "                           [--no-python] [--library-path GLOB]... [--profile FILE]...\n"
         "                           [--run-log FILE]... [--baseline RUN_OR_PATH] PATH...\n"
         "  PATH: trace directories, TORCH_COMPILE_DEBUG or Inductor cache directories, single logs.\n"
         "  Recorded paths are resolved by --path-mapping, then (files of installed packages) under the\n"
         "  import roots of the Python environment, then by suffix match under --root and PATH.\n"
         "  The environment, as the server finds it. Read, never run: a .venv/venv/env holding pyvenv.cfg\n"
         "  under a --root (or a PATH argument when there is no --root), $VIRTUAL_ENV, $CONDA_PREFIX (their\n"
         "  site-packages and the directories their .pth files name). Run, to ask for sys.path: --python,\n"
         "  else python3 on $PATH, skipping relative entries and any inside a --root or PATH argument.\n"
         "  Nothing found in a trace or workspace folder is ever run. --no-python: none (nothing read or "
         "run).\n"
         "  --library-path: frames of files matching GLOB are library code (the libraryPaths setting).\n"
         "  --profile: a torch.profiler Chrome trace (.json or .json.gz) to join to the launches; "
         "--run-log:\n"
         "  a run log with the intermediate value debug printer's output. Both are also found beside the\n"
         "  traces.\n"
         "  --baseline: compare with this run (a run id, \"previous\", a log, or a folder holding its logs,\n"
         "  inside PATH or not): compile-health events new or gone, each user line's kernels and GPU time\n"
         "  before and after. A name that matches no run is an error (exit status 1).\n";
}

} // namespace

std::string sourceText(const index::Origin &o, const index::SourceReader &sources) {
  std::string code(index::trim(o.code));
  if (!code.empty()) return code;
  if (!o.exists) return "(text not recorded; the file is not on this machine)";
  index::SourceRead r = sources.read(o.path);
  if (!r.ok()) return "(text not recorded; the file is " + r.reason() + ")";
  if (o.line < 1 || o.line > r.file->lines.size())
    return "(text not recorded; the file here has " + std::to_string(r.file->lines.size()) + " lines)";
  return std::string(index::trim(r.file->lines[o.line - 1]));
}

UserLineLaunches userLineLaunches(const index::Index &index) {
  UserLineLaunches out;
  for (uint32_t i = 0; i < index.artifacts().size(); ++i) {
    const index::Artifact &a = index.artifacts()[i];
    for (uint32_t l = 0; l < a.launches.size(); ++l)
      for (const index::Origin &o : a.launches[l].origins)
        out[o.path][o.line].push_back({{i}, l});
  }
  return out;
}

int runExplain(const std::vector<std::string> &args) {
  index::IndexOptions options;
  bool asJson = false, noPython = false;
  std::string pythonPath;
  std::optional<std::string> baselineArg;
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
    } else if (a == "--python" && i + 1 < args.size()) {
      pythonPath = args[++i];
    } else if (a == "--no-python") {
      noPython = true;
    } else if (a == "--library-path" && i + 1 < args.size()) {
      options.libraryPaths.push_back(args[++i]);
    } else if (a == "--profile" && i + 1 < args.size()) {
      options.profiles.push_back(args[++i]);
    } else if (a == "--baseline" && i + 1 < args.size()) {
      baselineArg = args[++i];
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
  std::string pythonNote;
  if (!noPython) {
    // Read, never run: venvs under the roots (the directories given when there is no --root) and the
    // activated environment. Run: only --python or python3 on PATH outside every root
    // (server/workspace/PythonEnv.h).
    std::vector<std::string> venvRoots = options.roots, excluded = options.roots;
    if (venvRoots.empty())
      for (const std::string &in : options.inputs)
        if (std::error_code ec; fs::is_directory(in, ec)) venvRoots.push_back(in);
    for (const auto *inputs : {&options.inputs, &options.profiles, &options.runLogs})
      excluded.insert(excluded.end(), inputs->begin(), inputs->end());
    for (const auto &m : options.pathMappings)
      excluded.push_back(m.to);
    std::vector<StaticEnvironment> environments = findStaticEnvironments(venvRoots);
    for (const StaticEnvironment &e : environments)
      pythonNote += std::string(pythonNote.empty() ? "Python: " : "; ") + e.prefix + " (" + e.source +
                    ", read), " + std::to_string(e.importRoots.size()) + " import roots";
    std::vector<std::string> asked;
    if (auto interpreter = findPythonInterpreter(pythonPath, excluded)) {
      if (interpreter->source == "pythonPath setting") interpreter->source = "--python";
      ImportRoots r = queryImportRoots(interpreter->path);
      asked = r.paths;
      std::string note =
          interpreter->path + " (" + interpreter->source + "), " +
          (r.error.empty() ? std::to_string(r.paths.size()) + " import roots" : "failed: " + r.error);
      pythonNote += (pythonNote.empty() ? "Python: " : "; ") + note;
      if (!r.error.empty()) std::cerr << "explain: Python: " << note << "\n";
    }
    options.pythonPaths = combineImportRoots(environments, asked, !pythonPath.empty());
  }
  auto sourcesShared =
      std::make_shared<const index::SourceReader>(index::ReadPolicy(index::readRoots(options)));
  const index::SourceReader &sources = *sourcesShared;
  auto started = std::chrono::steady_clock::now();
  auto index = index::Index::build(options);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                .count();
  index::IndexStats stats = index->stats();
  std::shared_ptr<const index::Index> baseline;
  if (baselineArg) {
    index::Expected<std::shared_ptr<const index::Index>> built = buildBaseline(options, *baselineArg);
    if (!built) {
      // Nothing is compared with a run that is not there: exit 2, as for any other bad argument.
      std::cerr << "explain: --baseline " << *baselineArg << ": " << built.error().message << "\n";
      return 2;
    }
    baseline = std::move(*built);
  }

  UserLineLaunches userLines = userLineLaunches(*index);

  if (asJson) {
    protocol::json out = explainJson(index, sourcesShared, static_cast<long long>(ms));
    if (baselineArg) out["comparison"] = comparisonJson(index, baseline, sourcesShared);
    std::cout << out.dump(2) << "\n";
    return 0;
  }

  // Counted as every view counts (index/model/Counts.h): Dynamo's compiles (frame_id/frame_compile_id, with
  // or without output code, ranks together) when the trace has them, else the output code found (AOTInductor,
  // debug directories); kernels and launches as the lenses count them; problems by kind.
  const index::IndexCounts counts = *index::countsOf(*index);
  std::string compiles = plural(counts.compiles, "compile");
  if (counts.health.compiles) compiles += " (" + plural(counts.graphs, "graph") + " with output code)";
  std::string problems = plural(counts.problems(), "problem");
  if (counts.problems())
    problems += " (" + plural(counts.health.graphBreaks, "graph break") + ", " +
                plural(counts.health.recompiles, "recompile") + ", " +
                plural(counts.health.failures, "failure") + ")";
  std::printf("Indexed %s (%.1f MB), %s, %s, %s (%zu with a user origin), %s with kernels, %s, in %lld ms\n",
              plural(stats.traceFiles, "trace file").c_str(), stats.traceBytes / 1e6, compiles.c_str(),
              plural(counts.kernels, "kernel").c_str(),
              plural(counts.launches, "kernel launch", "kernel launches").c_str(), counts.launchesWithOrigin,
              plural(stats.userLines, "user source line").c_str(), problems.c_str(),
              static_cast<long long>(ms));
  // The traces hold several runs (index/files/Runs.h): the one reported, and the others.
  if (std::string runs = runsSummary(*index); !runs.empty()) std::printf("Reporting %s\n", runs.c_str());
  if (stats.corruptedRecords)
    std::printf("Skipped %s\n", plural(stats.corruptedRecords, "corrupted trace record").c_str());
  if (std::string note = noProvenanceMessage(stats); !note.empty()) std::printf("%s\n", note.c_str());
  if (!pythonNote.empty()) std::printf("%s\n", pythonNote.c_str());
  for (const index::Compile &c : index->compiles()) {
    const index::Artifact &a = index->artifact(c.outputCode);
    std::string where = a.paths.empty() ? "inductor-trace:/" + a.virtualName : relative(a.paths.front());
    std::printf("\n%s  (%s)\n", a.title.c_str(), where.c_str());
    for (const index::Launch &l : a.launches) {
      std::string name = l.site.key();
      std::string origin = "(no user origin)";
      if (!l.origins.empty()) {
        const index::Origin &o = l.origins.front();
        origin = shortName(o.path) + ":" + std::to_string(o.line) + "  " + sourceText(o, sources);
        if (l.origins.size() > 1) origin += "  (+" + std::to_string(l.origins.size() - 1) + " more)";
      } else if (!l.frameworkOrigins.empty()) {
        // No user frame in its stacks: PyTorch's own code that Dynamo traced (index/model/Index.h).
        const index::Origin &o = l.frameworkOrigins.front();
        origin = "PyTorch's " + pytorchName(o) + ":" + std::to_string(o.line) + "  " +
                 sourceText(o, sources) + "  (no user frame)";
        if (l.frameworkOrigins.size() > 1)
          origin += "  (+" + std::to_string(l.frameworkOrigins.size() - 1) + " more)";
      }
      std::printf("  %5u  %-58s -> %s\n", l.site.line + 1, name.c_str(), origin.c_str());
    }
  }
  if (!userLines.empty()) std::printf("\nKernels by user source line\n");
  for (const auto &[path, lines] : userLines) {
    std::printf("\n%s\n", relative(path).c_str());
    for (const auto &[line, launches] : lines) {
      // Compile order (forward before backward, recompiles in order), not label order.
      std::map<uint32_t, std::pair<std::string, std::vector<std::string>>> byCompile;
      for (index::LaunchRef r : launches) {
        const index::Compile *c = index->compileOf(r.artifact);
        const index::Launch &l = index->launch(r);
        auto &slot = byCompile[index->artifact(r.artifact).compile.value];
        slot.first = c ? c->label() : "?";
        slot.second.push_back(l.site.key());
      }
      index::Origin o;
      o.path = path;
      o.line = line;
      o.exists = fs::exists(path);
      for (index::LaunchRef r : launches)
        for (const index::Origin &x : index->launch(r).origins)
          if (x.path == path && x.line == line && !x.code.empty()) o.code = x.code;
      // As the code lens says it: distinct kernels and their launches, by graph kind.
      index::LaunchSummary kernels = index::summarizeLaunches(*index, launches);
      std::string summary = kernels.counts() + kernels.byKind();
      std::printf("  %4u  %-60s %s\n", line, sourceText(o, sources).c_str(), summary.c_str());
      for (const auto &[ref, entry] : byCompile) {
        const auto &[compile, names] = entry;
        std::string list;
        for (const std::string &n : names)
          list += (list.empty() ? "" : ", ") + n;
        std::printf("          %-22s %s\n", compile.c_str(), list.c_str());
      }
    }
  }
  printCompileHealth(*index, sources);
  printRanks(*index);
  {
    StandaloneDocuments documents(sourcesShared);
    TextCache texts(documents.snapshot(), *index);
    printRuntime(*index, texts);
  }
  if (baselineArg) printComparison(index, baseline, sourcesShared);
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
