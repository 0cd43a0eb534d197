// server/workspace/Workspace.cpp: the workspace's life (start, settings, stop) and its accessors. A build:
// Indexing.cpp; the Python environment: PythonEnv.cpp; watching: Watcher.cpp and FileEvents.cpp; runs and
// the baseline: Runs.cpp.
#include "server/workspace/Workspace.h"

#include "index/model/Counts.h"
#include "server/Logger.h"
#include "server/format/Counts.h"

namespace inductor::server {

Workspace::Workspace(WorkspaceClient &client, ServerOptions options)
    : client_(client), options_(std::move(options)), importRootsCache_(options_.cacheDir) {}

Workspace::~Workspace() {
  stop();
}

void Workspace::stop() {
  if (stopped_) return;
  stopped_ = true;
  cancelBuild_ = true;
  stopWatcher();
  {
    std::lock_guard<std::mutex> start(startMutex_);
    if (builder_.joinable()) builder_.join();
  }
  stopBaseline();
}

WorkspaceSettings Workspace::settings() const {
  std::lock_guard<std::mutex> lock(settingsMutex_);
  return settings_;
}

void Workspace::shareSettings() {
  WorkspaceSettings now = settings();
  std::lock_guard<std::mutex> lock(indexMutex_);
  baselineSetting_ = now.baseline;
  trusted_ = now.trusted;
}

void Workspace::start(WorkspaceSettings settings) {
  {
    std::lock_guard<std::mutex> lock(settingsMutex_);
    settings_ = std::move(settings);
  }
  shareSettings();
  if (options_.watch) startWatcher(); // First: the build's discovery adds the watches.
  startIndexing(Rebuild::Full);
}

void Workspace::configure(WorkspaceSettings settings) {
  {
    std::lock_guard<std::mutex> lock(settingsMutex_);
    if (settings.pythonPath != settings_.pythonPath)
      logInfo("pythonPath changed: asking the interpreter again");
    settings_ = std::move(settings);
  }
  shareSettings();
  logInfo("configuration changed: reindexing");
  startIndexing(Rebuild::Full);
}

void Workspace::reindex() {
  forgetPythonEnvironment();
  startIndexing(Rebuild::Full);
}

std::shared_ptr<const index::Index> Workspace::index() const {
  std::lock_guard<std::mutex> lock(indexMutex_);
  return index_;
}

std::shared_ptr<const index::SourceReader> Workspace::sources() const {
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (sources_) return sources_;
  }
  // Before the first index: nothing is readable.
  static const auto none =
      std::make_shared<const index::SourceReader>(index::ReadPolicy(std::vector<std::string>{}));
  return none;
}

protocol::StatusResult Workspace::status() const {
  protocol::StatusResult s;
  s.changesPending = changesPending(); // Before `indexing` (changesPending()).
  std::lock_guard<std::mutex> lock(indexMutex_);
  s.indexing = indexing_;
  {
    std::lock_guard<std::mutex> py(pythonMutex_);
    s.python.interpreter = python_.interpreter;
    s.python.source = python_.source;
    for (const StaticEnvironment &e : python_.environments)
      s.python.environments.push_back({e.prefix, e.source, e.importRoots});
    s.python.trusted = trusted_;
    s.python.importRoots = python_.importRoots;
    s.python.error = python_.error;
    s.python.kept = python_.kept;
  }
  s.builds = builds_;
  if (indexing_) s.progress = protocol::BuildProgress{progressPercent_, progressMessage_};
  // An index of part of the run (the first rank alone, the open documents' compiles alone) answers
  // navigation in its own documents; its figures are not the run's: the status is not ready and says what
  // is being read instead of counting them.
  const bool partial = index_ && index_->stats().partial();
  s.ready = index_ != nullptr && !partial;
  s.notices = notices_;
  if (partial && s.progress) {
    const index::IndexStats st = index_->stats();
    if (st.ranksDeferred)
      s.progress->message = "indexing " + std::to_string(st.ranks) + " ranks (rank " +
                            std::to_string(st.rankRead) +
                            "'s code answers navigation now): " + s.progress->message;
    else
      s.progress->message =
          "analysing " + std::to_string(st.compiles + st.compilesDeferred) +
          " compiles (the open documents' compiles answer navigation now): " + s.progress->message;
  }
  if (index_ && !partial) {
    index::IndexStats st = index_->stats();
    // The counts every view shows (index/model/Counts.h): a client reading the top level (Neovim's
    // :checkhealth, an older status bar) says what one reading `counts` says.
    std::shared_ptr<const index::IndexCounts> counts = index::countsOf(*index_);
    s.traces = counts->traces;
    s.compiles = counts->compiles;
    s.kernels = counts->kernels;
    s.launches = counts->launches;
    s.errors = st.errors;
    s.userLines = st.userLines;
    protocol::StatusServed &served = s.served.emplace();
    served.launchesWithOrigin = st.launchesWithOrigin;
    served.corruptedRecords = st.corruptedRecords;
    // The work of the last build: an incremental one reads only what was appended.
    served.traceBytes = st.traceBytes;
    served.traceBytesRead = st.traceBytesRead;
    served.compilesAnalysed = st.compilesAnalysed;
    // Compile health: every Dynamo compile (with or without output code) and its events.
    served.frameCompiles = st.frameCompiles;
    served.graphBreaks = st.graphBreaks;
    served.recompiles = st.recompiles;
    served.compileFailures = st.compileFailures;
    served.launchesWithMissingSource = st.launchesWithMissingSource;
    if (!st.firstMissingSource.empty()) served.firstMissingSource = st.firstMissingSource;
    served.profiles = st.profiles;
    served.runLogs = st.runLogs;
    served.counts = protocolCounts(*counts);
    served.problemLines = counts->problemLines;
    served.rankDivergences = counts->rankDivergences;
    if (!index_->run().id.empty()) s.run = index_->run().id;
    s.otherRuns = index_->runs().empty() ? 0 : index_->runs().size() - 1;
    if (baseline_ && baseline_->run().id != index_->run().id) s.baseline = baseline_->run().id;
  }
  return s;
}

} // namespace inductor::server
