// server/workspace/Runs.cpp: runs (index/files/Runs.h) on the server's side. The served index is of one run,
// the current one (the `run` setting, "latest" by default: IndexOptions::run); the baseline run's index (the
// `baseline` setting: "previous" by default, the run before the current one; "none"; a run id or a path, as
// explain --baseline takes them: index::resolveRunName) is built after the current one is served, on its own
// thread with its own IndexCache, so the first answer never waits for an older run. Requests that compare
// take both (withRuns). A baseline named that matches no run is an error: shown once, inductor/compare's
// `reason`, and inductor.selectBaseline's error answer.
//
//   inductor/runs {} -> {runs: [{id, startTime, endTime, ranks, logs, current, baseline}]} (oldest first)
//   workspace/executeCommand inductor.selectRun [id] / inductor.selectBaseline [id]
#include "protocol/URI.h"
#include "server/Logger.h"
#include "server/workspace/Workspace.h"

#include <algorithm>
#include <filesystem>

namespace inductor::server {

namespace fs = std::filesystem;

Workspace::BaselineChoice Workspace::baselineRunOf(const index::Index &current, const std::string &setting,
                                                   const index::IndexOptions &options) {
  BaselineChoice out;
  const std::vector<index::Run> &runs = current.runs();
  const std::string &id = current.run().id;
  if (setting == "none") {
    out.whyNone = "no baseline: the `baseline` setting is \"none\"";
    return out;
  }
  size_t at = 0;
  while (at < runs.size() && runs[at].id != id)
    ++at;
  if (setting.empty() || setting == "previous") {
    // The run before the current one (which need not be the latest: the `run` setting).
    if (at == 0 || at >= runs.size())
      out.whyNone = "no baseline: no run before the current one was found (the `baseline` setting is "
                    "\"previous\")";
    else
      out.run = index::NamedRun{runs[at - 1].id, options.inputs, false};
    return out;
  }
  // Any other name as explain --baseline takes it (index::resolveRunName), relative paths from the first
  // workspace folder.
  std::error_code ec;
  std::string base = options.roots.empty() ? fs::current_path(ec).string() : options.roots.front();
  index::Expected<index::NamedRun> named = index::resolveRunName(options, runs, setting, base);
  if (!named) {
    out.whyNone = "no baseline: " + named.error().message;
    return out;
  }
  if (!named->outside && named->id == id) {
    out.whyNone = "no baseline: \"" + setting + "\" is the current run (" + id + ")";
    return out;
  }
  out.run = std::move(*named);
  return out;
}

void Workspace::startBaseline(std::shared_ptr<const index::Index> current, index::IndexOptions options) {
  std::lock_guard<std::mutex> start(baselineStartMutex_);
  std::string setting;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    setting = baselineSetting_;
  }
  BaselineChoice choice;
  if (current) choice = baselineRunOf(*current, setting, options);
  std::optional<index::NamedRun> wanted = choice.run;
  // A setting that names no run is an error the user sees, once per setting (every build asks again),
  // after the state that inductor/compare reads says so.
  bool failed = current && !wanted && setting != "none" && setting != "previous" && !setting.empty();
  bool show = false;
  // The same logs as the baseline kept: nothing to build (a baseline is an earlier run: its logs do not
  // grow).
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    baselineWhyNone_ = choice.whyNone;
    show = failed && baselineErrorShown_ != setting;
    if (failed) baselineErrorShown_ = setting;
    if (!wanted) {
      baseline_ = nullptr;
      baselineBuiltFor_.reset();
      baselineWanted_.reset();
    } else if (baseline_ && baselineBuiltFor_ == wanted) {
      baselineWanted_ = wanted;
      return;
    } else {
      baselineWanted_ = wanted;
      baselineWhyNone_ = "no baseline yet: run " + wanted->id + " is being indexed";
    }
  }
  if (failed) logWarn("baseline setting: " + choice.whyNone);
  if (show)
    client_.notify("window/showMessage", json(protocol::ShowMessageParams{protocol::MessageType::Error,
                                                                          "inductor-ls: " + choice.whyNone}));
  cancelBaseline_ = true;
  if (baselineBuilder_.joinable()) baselineBuilder_.join();
  cancelBaseline_ = false;
  if (!wanted) return;
  options.directoryListed = {};  // The current build watches what discovery lists.
  options.deferProfiles = false; // Built once, with its profiles (only the current run is served early).
  options.deferRanksOver = 0;    // Built once, every rank.
  options.pythonPathsLater = {};
  options.pythonPathsNeeded = {};
  if (!wanted->id.empty()) options.run = wanted->id;
  if (wanted->outside) {
    // A trace folder or log of its own (as explain --baseline reads one): the current run's profiles and run
    // logs are not its; its own are found beside it.
    options.inputs = wanted->inputs;
    options.profiles.clear();
    options.runLogs.clear();
  }
  baselineBuilder_ = std::thread([this, options, wanted] {
    auto index = index::Index::build(options, {}, &cancelBaseline_, &baselineCache_);
    if (cancelBaseline_) return;
    std::shared_ptr<const index::Index> current;
    {
      std::lock_guard<std::mutex> lock(indexMutex_);
      if (baselineWanted_ != wanted) return; // Another baseline was asked for meanwhile.
      baseline_ = std::move(index);
      baselineBuiltFor_ = wanted;
      baselineWhyNone_.clear();
      current = index_;
    }
    logInfo("baseline run " + wanted->id + " indexed");
    client_.statusChanged(/*force=*/true);
    // What compares with the baseline changed: events new since it (diagnostics, pushed again or refreshed
    // for pulling clients) and the lenses' changes.
    if (current) client_.diagnosticsChanged(*current);
    if (client_.capabilities().codeLensRefreshSupport) client_.request("workspace/codeLens/refresh", nullptr);
  });
}

void Workspace::stopBaseline() {
  cancelBaseline_ = true;
  std::lock_guard<std::mutex> start(baselineStartMutex_);
  if (baselineBuilder_.joinable()) baselineBuilder_.join();
}

std::shared_ptr<const index::Index> Workspace::baselineIndex() const {
  std::lock_guard<std::mutex> lock(indexMutex_);
  return baseline_;
}

void Workspace::keepOptionsForOtherRuns(const index::IndexOptions &options) {
  // The options of this build, without its watcher and its interpreter's answer still to come.
  index::IndexOptions forOthers = options;
  forOthers.directoryListed = {};
  forOthers.pythonPathsLater = {};
  forOthers.pythonPathsNeeded = {};
  forOthers.deferProfiles = false; // Built once, with their profiles (only the current run is served early).
  forOthers.deferRanksOver = 0;
  std::lock_guard<std::mutex> lock(otherRunsMutex_);
  otherRunOptions_ = std::move(forOthers);
  otherRuns_.clear(); // Built from older options.
}

std::shared_ptr<const index::Index> Workspace::otherRunIndex(const index::Index &current,
                                                             const std::string &path) {
  const std::vector<index::Run> &runs = current.runs();
  // The runs that may hold it: the one whose debug directories hold it, else (a cache file, shared by the
  // runs of one folder) those whose logs and debug directories share the longest directory prefix with it,
  // newest first; at most two are built to find it.
  auto shared = [&](const std::string &other) {
    size_t n = 0, lastSlash = 0;
    while (n < other.size() && n < path.size() && other[n] == path[n]) {
      if (path[n] == '/') lastSlash = n;
      ++n;
    }
    return lastSlash;
  };
  std::vector<size_t> candidates;
  if (std::optional<size_t> at = index::selectRun(runs, path); at && runs[*at].id != current.run().id) {
    candidates.push_back(*at);
  } else {
    size_t best = 1;
    for (size_t i = runs.size(); i-- > 0;) {
      if (runs[i].id == current.run().id) continue;
      size_t n = 0;
      for (const std::vector<std::string> *paths : {&runs[i].logs, &runs[i].debugDirs})
        for (const std::string &p : *paths)
          n = std::max(n, shared(p));
      if (n > best) {
        best = n;
        candidates.clear();
      }
      if (n == best && candidates.size() < 2) candidates.push_back(i);
    }
  }
  std::lock_guard<std::mutex> lock(otherRunsMutex_);
  for (size_t at : candidates) {
    const index::Run &run = runs[at];
    std::shared_ptr<const index::Index> found;
    for (auto it = otherRuns_.begin(); it != otherRuns_.end(); ++it)
      if ((*it)->run().id == run.id) {
        found = *it;
        otherRuns_.erase(it);
        break;
      }
    if (!found && otherRunOptions_) {
      index::IndexOptions options = *otherRunOptions_;
      options.run = run.id;
      found = index::Index::build(options, {}, nullptr, nullptr);
      if (found && found->run().id != run.id) found = nullptr;
      if (found) logInfo("run " + run.id + " indexed for a document of it");
    }
    if (!found) continue;
    otherRuns_.push_back(found);
    if (otherRuns_.size() > 2) otherRuns_.erase(otherRuns_.begin());
    if (found->findByPath(path)) return found;
  }
  return nullptr;
}

std::string Workspace::selectRun(const protocol::InductorCommandParams &params, bool baseline) {
  std::string id = params.run.value_or("latest");
  if (!baseline) {
    logInfo("run selected: " + id + ": reindexing");
    {
      std::lock_guard<std::mutex> lock(settingsMutex_);
      settings_.index.run = id;
    }
    startIndexing(Rebuild::Incremental);
    return {};
  }
  std::shared_ptr<const index::Index> current;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    current = index_;
  }
  // A name that is no run is refused, and the baseline stays; before the first index, it is resolved then.
  const index::IndexOptions options = settings().index;
  if (current && id != "none")
    if (BaselineChoice choice = baselineRunOf(*current, id, options); !choice.run) return choice.whyNone;
  // The setting as chosen: a later configuration change that names no baseline keeps it.
  {
    std::lock_guard<std::mutex> lock(settingsMutex_);
    settings_.baseline = id;
  }
  shareSettings();
  logInfo("baseline selected: " + id);
  if (current) startBaseline(current, options);
  return {};
}

std::string Workspace::baselineWhyNone() const {
  std::lock_guard<std::mutex> lock(indexMutex_);
  return baselineWhyNone_;
}

} // namespace inductor::server
