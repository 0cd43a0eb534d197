// server/cli/ExplainCompare.cpp: `inductor-ls explain --baseline RUN_OR_PATH` (see Explain.h): the baseline
// run's index, and the comparison with it as text and as `comparison` (inductor/compare's answer, built by
// server/lsp/Compare.cpp's compareResult over the documents a session would lend it: StandaloneDocuments).
#include "server/cli/Explain.h"

#include "index/files/PathResolver.h"
#include "index/files/Runs.h"
#include "server/features/InductorRequests.h"
#include "server/text/TextCache.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace inductor::server {

namespace {

using protocol::json;

protocol::CompareResult comparison(std::shared_ptr<const index::Index> current,
                                   std::shared_ptr<const index::Index> baseline,
                                   std::shared_ptr<const index::SourceReader> sources) {
  StandaloneDocuments documents(std::move(sources));
  TextCache texts(documents.snapshot(), *current);
  return compareResult(*current, baseline.get(), texts);
}

std::string shortPath(const std::string &path) {
  std::error_code ec;
  fs::path rel = fs::relative(path, fs::current_path(ec), ec);
  return ec || rel.empty() ? path : rel.string();
}

std::string micros(const std::optional<double> &us) {
  if (!us) return "none";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f µs", *us);
  return buf;
}

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 6; ++i)
    out += (i ? ", " : "") + names[i];
  if (names.size() > 6) out += ", +" + std::to_string(names.size() - 6) + " more";
  return out.empty() ? "-" : out;
}

} // namespace

index::Expected<std::shared_ptr<const index::Index>> buildBaseline(const index::IndexOptions &current,
                                                                   const std::string &arg) {
  // Named as the server's `baseline` setting is (index::resolveRunName), relative paths from here.
  std::error_code ec;
  index::Expected<index::NamedRun> named =
      index::resolveRunName(current, index::findRuns(current), arg, fs::current_path(ec).string());
  if (!named) return named.error();
  index::IndexOptions o = current;
  if (!named->id.empty()) o.run = named->id;
  if (named->outside) {
    // A trace folder or log of its own, read with the current run's roots, else under its inputs, so that
    // both find the same user files. Profiles and run logs named for the current run are not the baseline's;
    // its own are found beside it.
    o.inputs = named->inputs;
    if (o.roots.empty()) o.roots = current.inputs;
    o.profiles.clear();
    o.runLogs.clear();
  }
  auto baseline = index::Index::build(o);
  // A path that holds no trace (a device such as /dev/zero, an empty folder) would be an empty run, and
  // every line of the current one would be new: refused, not compared.
  if (named->outside && baseline && baseline->traceFiles().empty() && baseline->artifacts().empty())
    return index::Error{"not a trace folder or log (no TORCH_TRACE log or output code is read there)"};
  return baseline;
}

json comparisonJson(std::shared_ptr<const index::Index> current, std::shared_ptr<const index::Index> baseline,
                    std::shared_ptr<const index::SourceReader> sources) {
  return comparison(std::move(current), std::move(baseline), std::move(sources));
}

void printComparison(std::shared_ptr<const index::Index> current,
                     std::shared_ptr<const index::Index> baseline,
                     std::shared_ptr<const index::SourceReader> sources) {
  protocol::CompareResult c = comparison(std::move(current), std::move(baseline), std::move(sources));
  if (!c.baseline) {
    std::printf("\nComparison: %s\n", c.reason.c_str());
    return;
  }
  std::printf("\nCompared with the baseline run %s (%zu log%s); GPU times %s before, %s now\n",
              c.baseline->id.empty() ? "given" : c.baseline->id.c_str(), c.baseline->logs.size(),
              c.baseline->logs.size() == 1 ? "" : "s", protocol::wireName(c.basisBefore).c_str(),
              protocol::wireName(c.basisAfter).c_str());
  if (c.events.empty()) std::printf("  No compile-health event is new or gone.\n");
  for (const protocol::CompareEvent &e : c.events)
    std::printf("  %-4s %-11s %s:%u  %s  %s\n", protocol::wireName(e.change).c_str(),
                protocol::wireName(e.kind).c_str(), shortPath(e.file).c_str(), e.line, e.code.c_str(),
                e.message.c_str());
  for (const protocol::CompareLine &l : c.lines) {
    if (l.change == protocol::Change::Same) continue;
    std::printf("  %-7s %s:%u  %s\n", protocol::wireName(l.change).c_str(), shortPath(l.file).c_str(), l.line,
                l.text.c_str());
    std::printf("            kernels before: %s\n            kernels after:  %s\n",
                joined(l.kernelsBefore).c_str(), joined(l.kernelsAfter).c_str());
    if (!l.kernelsChanged.empty())
      std::printf("            code changed:   %s\n", joined(l.kernelsChanged).c_str());
    std::printf("            GPU time: %s -> %s\n", micros(l.gpuTimeBeforeUs).c_str(),
                micros(l.gpuTimeAfterUs).c_str());
  }
}

} // namespace inductor::server
