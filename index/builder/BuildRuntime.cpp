// Step 5b of the build pipeline (see IndexBuilder.h): the runtime inputs (Runtime.h). This file finds them
// and drives the two halves: BuildProfiles.cpp joins profiler traces to launches and sums times per launch,
// compile and user line; BuildRunLogs.cpp maps the printer's run logs to launches and turns the first NaN/Inf
// into diagnostics. Files are read only where the ReadPolicy allows.
#include "index/builder/IndexBuilder.h"
#include "index/files/ReadPolicy.h"
#include "index/runtime/Runtime.h"
#include "index/trace/JsonScan.h"
#include "index/trace/MappedFile.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;

namespace inductor::index {

namespace detail {

std::string fxGraphCacheKey(std::string_view text) {
  // The payload also holds the cache's whole details (often most of its bytes): walked, not parsed into a
  // DOM.
  std::string key;
  bool ok = json_scan::walkObject(text, [&](std::string_view name, std::string_view raw) {
    std::string scratch;
    if (name != "key") return;
    auto value = json_scan::string(raw, scratch);
    key = value ? std::string(*value) : std::string();
  });
  return ok ? key : std::string();
}

std::string runtimeBaseName(const std::string &path) {
  return fs::path(path).filename().string();
}

} // namespace detail

using namespace detail;

void IndexBuilder::buildRuntime(const DiscoveredInputs &inputs) {
  // Files: named by the options, found by discovery, and beside every trace log (Discovery.h). Read under
  // the build's roots without the import roots (readRoots): the profile and run-log settings are roots.
  ReadPolicy policy(readRoots(options_, /*withImportRoots=*/false));
  std::vector<std::string> logs;
  for (const auto &log : tables_->logs)
    logs.push_back(log->path());
  RuntimeInputs files = discoverRuntimeInputs(options_.profiles, options_.runLogs, inputs, logs, policy);
  for (const DiscoveredInputs::Note &p : files.problems)
    diag(p.path, 0, p.message);
  if (restrictedToRun()) {
    // Of several runs, the inputs attributed to this one (Runs.h); one the settings name and no run claims is
    // kept (the user named it), and said so.
    const Run &run = index_->runs_[*index_->runIndex_];
    auto keep = [&](std::vector<std::string> &list, const std::vector<std::string> &own,
                    const std::set<std::string> &named) {
      std::vector<std::string> kept;
      for (std::string &p : list) {
        bool unclaimed = std::any_of(unattributed_.begin(), unattributed_.end(),
                                     [&](const Unattributed &u) { return u.path == p; });
        if (std::find(own.begin(), own.end(), p) != own.end() || (unclaimed && named.count(p)))
          kept.push_back(std::move(p));
      }
      list = std::move(kept);
    };
    keep(files.profiles, run.profiles, files.explicitProfiles);
    keep(files.runLogs, run.runLogs, files.explicitRunLogs);
  }

  auto data = std::make_shared<RuntimeData>();
  buildProfiles(files, policy, *data);
  if (cancelled()) return;
  buildRunLogs(files, policy, *data);
  if (cancelled()) return;
  index_->runtime_ = std::move(data);
}

} // namespace inductor::index
