// server/workspace/Indexing.cpp: a build (server/workspace/Workspace.h, "threads"): starting it on the
// builder thread (cancelling a running one), its progress ($/progress and inductor/status), the Python
// environment asked beside it (server/workspace/PythonEnv.cpp), and serving the index it made: the session's
// waiting requests run, notices, diagnostics, the watcher's new inputs.

#include "server/workspace/Workspace.h"

#include "index/runtime/Runtime.h"
#include "protocol/Position.h"
#include "protocol/URI.h"
#include "server/Logger.h"
#include "server/text/Markdown.h"
#include "server/workspace/Notices.h"
#include "server/workspace/PythonEnv.h"

#include <chrono>
#include <future>

namespace inductor::server {

std::vector<index::IndexOptions::FirstDocument> firstDocumentsOf(const std::vector<OpenDocument> &open) {
  std::vector<index::IndexOptions::FirstDocument> out;
  for (const OpenDocument &d : open) {
    auto parsed = protocol::parseURI(d.uri);
    if (parsed && parsed->scheme == "inductor-trace" && parsed->path.size() > 1)
      out.push_back({parsed->path.substr(1), {}});
    else if (protocol::filePath(d.uri))
      out.push_back({{}, d.text});
  }
  return out;
}

bool Workspace::buildRunning() {
  std::lock_guard<std::mutex> lock(indexMutex_);
  return indexing_ || publishing_;
}

void Workspace::startIndexing(Rebuild kind) {
  std::lock_guard<std::mutex> start(startMutex_);
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    generation = ++generation_;
    indexing_ = true;
    progressPercent_ = 0;
    progressMessage_ = "starting";
  }
  cancelBuild_ = true;
  if (builder_.joinable()) builder_.join();
  cancelBuild_ = false;
  // No builder runs now: the cache may be touched here.
  bool incremental = kind == Rebuild::Incremental && !indexCache_.empty();
  if (!incremental) indexCache_.clear();

  if (client_.capabilities().workDoneProgress) {
    progressToken_ = "inductor-ls/index/" + std::to_string(generation);
    client_.request("window/workDoneProgress/create",
                    json(protocol::WorkDoneProgressCreateParams{progressToken_}));
    protocol::WorkDoneProgressBegin begin;
    begin.title = "Indexing torch.compile traces";
    begin.cancellable = false;
    begin.percentage = 0;
    client_.notify("$/progress",
                   json(protocol::ProgressParams<protocol::WorkDoneProgressBegin>{progressToken_, begin}));
  }
  client_.statusChanged(/*force=*/true);
  const WorkspaceSettings settings = this->settings(); // A copy: the reader thread may change them meanwhile.
  index::IndexOptions options = settings.index;
  options.jobs = std::max(1u, options_.jobs);
  // Navigation never waits for a profile (hundreds of MB in a long run): a profile the cache has not read is
  // joined by a second build, after the first is served (issue 45).
  options.deferProfiles = true;
  // Nor does navigation in rank 0's code wait for a thousand ranks: a fresh build of a run of many ranks
  // reads the first rank alone and serves it for that, then every rank (an incremental build reads little).
  options.deferRanksOver = incremental ? 0 : options_.firstRankOver;
  options.deferRanksFromBytes = options_.firstRankFromBytes;
  // Nor for every compile of a large log: the open output code's compile is analysed and served first.
  if (!incremental && options_.firstCompilesFromBytes > 0) {
    options.deferCompilesFromBytes = options_.firstCompilesFromBytes;
    options.firstDocuments = [this] { return firstDocumentsOf(client_.openDocuments()); };
  }
  if (options_.watch) {
    setWatchedInputs(options.inputs);
    options.directoryListed = watchWhatDiscoveryLists(options);
  }
  std::string token = progressToken_;
  bool progress = client_.capabilities().workDoneProgress;
  PythonQuery pythonQuery = this->pythonQuery(settings);
  builder_ = std::thread([this, options, generation, token, progress, incremental, pythonQuery]() mutable {
    auto started = std::chrono::steady_clock::now();
    // The Python environment (a subprocess, once per setting): its import roots resolve package paths and may
    // be read. Asked beside the log scan, which does not need them (the build waits for them after it).
    PythonEnvironment python;
    std::thread asker;
    std::promise<std::vector<std::string>> importRoots;
    // The interpreter runs in the background until the build needs its answer or ends (queryImportRoots).
    // Shared: the index keeps the resolver, and so the callback, after this thread.
    auto background = std::make_shared<std::atomic<bool>>(true);
    // An earlier session's answer for the same interpreter is used at once and checked after the index is
    // served: a start does not wait for the interpreter.
    bool checkKept = false;
    if (auto known = knownPythonEnvironment(pythonQuery)) {
      python = std::move(*known);
      options.pythonPaths = python.importRoots;
    } else if (auto kept = keptPythonEnvironment(pythonQuery)) {
      python = std::move(*kept);
      options.pythonPaths = python.importRoots;
      checkKept = true;
    } else {
      options.pythonPathsLater = importRoots.get_future().share();
      options.pythonPathsNeeded = [background] { *background = false; };
      asker = std::thread([&python, &importRoots, background, pythonQuery, this] {
        try {
          python = pythonEnvironment(pythonQuery, background.get());
        } catch (const std::exception &e) { // Never fatal: the build goes on without import roots.
          logWarn(std::string("python: ") + e.what());
        }
        importRoots.set_value(python.importRoots);
      });
    }
    auto lastReport = started;
    std::string lastStep;
    auto callback = [&](size_t done, size_t total, std::string_view message) {
      uint32_t percentage = total ? static_cast<uint32_t>(std::min<size_t>(done * 100 / total, 100)) : 0;
      {
        std::lock_guard<std::mutex> lock(indexMutex_);
        if (generation != generation_) return; // A newer build reports.
        progressPercent_ = percentage;
        progressMessage_ = std::string(message);
      }
      // At most ten reports a second, but the first of each step always: a fast step is still seen.
      auto now = std::chrono::steady_clock::now();
      std::string_view step = message.substr(0, message.find(':'));
      bool newStep = step != lastStep;
      if (!newStep && now - lastReport < std::chrono::milliseconds(100)) return;
      lastStep = std::string(step);
      lastReport = now;
      if (progress) {
        protocol::WorkDoneProgressReport report;
        report.message = std::string(message);
        report.percentage = percentage;
        client_.notify("$/progress",
                       json(protocol::ProgressParams<protocol::WorkDoneProgressReport>{token, report}));
      }
      // Each step's start too, as in $/progress: a whole build may be shorter than the status's 250 ms.
      client_.statusChanged(/*force=*/newStep);
    };
    auto sourcesFor = [](const index::IndexOptions &o) {
      // The roots of Index::readPolicy() (index::readRoots), with the import roots as these options have
      // them: an index served before the interpreter answered gets them here when they come (sourcesKnown).
      return std::make_shared<const index::SourceReader>(index::ReadPolicy(index::readRoots(o)));
    };
    // Two passes at most: the second when the kept import roots turn out to be out of date.
    for (bool firstPass = true;; firstPass = false) {
      auto index = index::Index::build(options, callback, &cancelBuild_, &indexCache_);
      if (!cancelBuild_ && index->stats().partial()) {
        index::IndexOptions now = options;
        now.pythonPathsLater = {};
        const index::IndexStats s = index->stats();
        if (s.ranksDeferred)
          logInfo("serving navigation in rank " + std::to_string(s.rankRead) +
                  "'s code before reading the other " + plural(s.ranksDeferred, "rank"));
        if (s.compilesDeferred)
          logInfo("serving navigation in the open documents' " + plural(s.compiles, "compile") +
                  " before analysing the other " + plural(s.compilesDeferred, "compile"));
        partialServed(index, sourcesFor(now), generation);
        // Over the cache: the logs and compiles read are reused, and the inputs discovered.
        options.deferRanksOver = 0;
        options.firstDocuments = {};
        options.reuseDiscovery = true;
        index = index::Index::build(options, callback, &cancelBuild_, &indexCache_);
        options.reuseDiscovery = false;
      }
      if (size_t deferred = cancelBuild_ ? 0 : index->runtime().times.deferred) {
        // Served now without the profiles' times (the status still says indexing, the lenses have no GPU
        // time yet), then built again over the cache, which reads only the profiles.
        index::IndexOptions now = options;
        now.pythonPathsLater = {};
        logInfo("served before joining " + plural(deferred, "profile") + "; joining them");
        indexingDone(index, sourcesFor(now), generation, now, /*endProgress=*/false, /*more=*/true);
        {
          std::lock_guard<std::mutex> lock(indexMutex_);
          if (generation == generation_) progressMessage_ = "joining " + plural(deferred, "profile");
        }
        client_.statusChanged(/*force=*/true);
        options.deferProfiles = false;
        index = index::Index::build(options, callback, &cancelBuild_, &indexCache_);
      }
      *background = false;
      if (!cancelBuild_) {
        auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                .count();
        index::IndexStats s = index->stats();
        logInfo(std::string(incremental ? "reindexed incrementally: " : "indexed ") +
                std::to_string(s.traceFiles) + " trace files (" + std::to_string(s.traceBytes) + " bytes, " +
                std::to_string(s.traceBytesRead) + " read), " + std::to_string(s.compiles) + " compiles (" +
                std::to_string(s.compilesAnalysed) + " analysed), " + std::to_string(s.launches) +
                " launches (" + std::to_string(s.launchesWithOrigin) + " with a user origin) in " +
                std::to_string(ms) + " ms");
        if (incremental) {
          index::IndexCache::BuildStats b = indexCache_.lastBuild();
          logDebug("incremental build: " + std::to_string(b.logsResumed) + " logs resumed, " +
                   std::to_string(b.logsReused) + " unchanged, " + std::to_string(b.logsOpened) +
                   " read from the start; " + std::to_string(b.compilesReused) + " compiles reused");
        }
      }
      // The build waited for the interpreter only where a path needed its import roots. When it has not
      // answered yet, nothing in the index depends on it: the index is served now, and the import roots
      // join the readable roots when they come.
      bool servedEarly = false;
      if (asker.joinable() && !cancelBuild_ &&
          options.pythonPathsLater.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        logInfo("served without the Python environment's import roots (no recorded path needed them) while "
                "the interpreter answers");
        index::IndexOptions now = options;
        now.pythonPathsLater = {};
        indexingDone(index, sourcesFor(now), generation, now, /*endProgress=*/firstPass);
        servedEarly = true;
      }
      if (asker.joinable())
        asker.join(); // A cancelled build may not have waited; the query sees the cancel too.
      if (cancelBuild_) return;
      options.pythonPaths = python.importRoots;
      options.pythonPathsLater = {};
      auto sources = sourcesFor(options);
      if (servedEarly) {
        sourcesKnown(std::move(sources), generation);
        return;
      }
      indexingDone(std::move(index), std::move(sources), generation, options, /*endProgress=*/firstPass);
      if (!checkKept) return;
      checkKept = false;
      // Ask the interpreter now that answers are served: what stamps cannot see (`pyenv global` behind a
      // shim) changes the answer, and then the index is built again with it.
      forgetPythonEnvironment();
      PythonEnvironment asked = pythonEnvironment(pythonQuery);
      if (cancelBuild_) return;
      if (!asked.error.empty()) {
        // The interpreter failed now; its kept answer still stands (the error is in the status).
        std::lock_guard<std::mutex> lock(pythonMutex_);
        python_.importRoots = python.importRoots;
        python_.asked = python.asked;
        python_.kept = true;
        return;
      }
      if (asked.importRoots == python.importRoots) return;
      logInfo("python: " + asked.interpreter + " answers other import roots than in an earlier session (" +
              std::to_string(python.importRoots.size()) + " then, " +
              std::to_string(asked.importRoots.size()) + " now): indexing again with them");
      python = std::move(asked);
      options.pythonPaths = python.importRoots;
      indexCache_.clear(); // Origins resolved with the old roots are not reused.
      incremental = false;
      progress = false; // The first pass ended the client's progress.
      started = std::chrono::steady_clock::now();
    }
  });
}

void Workspace::publishNotices(const index::Index &index, const index::IndexOptions &options) {
  std::vector<Notice> notices = noticesFor(index, options);
  std::vector<protocol::NoticeStatus> list;
  std::vector<const Notice *> fresh;
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    for (const Notice &n : notices) {
      list.push_back({n.kind, static_cast<int>(n.type), n.message});
      if (noticesShown_.insert(n.key).second) fresh.push_back(&n);
    }
    notices_ = std::move(list);
  }
  for (const Notice *n : fresh) {
    logInfo(n->message);
    client_.notify("window/logMessage", json(protocol::LogMessageParams{n->type, n->message}));
    client_.notify("window/showMessage", json(protocol::ShowMessageParams{n->type, n->message}));
  }
}

void Workspace::sourcesKnown(std::shared_ptr<const index::SourceReader> sources, uint64_t generation) {
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (generation != generation_) return; // A newer build was started; it will publish.
    sources_ = std::move(sources);
  }
  client_.statusChanged(/*force=*/true); // With the interpreter's answer.
}

void Workspace::partialServed(std::shared_ptr<const index::Index> index,
                              std::shared_ptr<const index::SourceReader> sources, uint64_t generation) {
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (generation != generation_) return; // A newer build was started; it will publish.
    index_ = index;
    sources_ = std::move(sources);
  }
  client_.indexServed(index); // The navigation requests in its documents run.
  client_.statusChanged(/*force=*/true);
}

void Workspace::indexingDone(std::shared_ptr<const index::Index> index,
                             std::shared_ptr<const index::SourceReader> sources, uint64_t generation,
                             const index::IndexOptions &options, bool endProgress, bool more) {
  keepOptionsForOtherRuns(options); // Requests waiting for this index may open an earlier run's document.
  {
    std::lock_guard<std::mutex> lock(indexMutex_);
    if (generation != generation_) return; // A newer build was started; it will publish.
    index_ = index;
    sources_ = std::move(sources);
    indexing_ = more;
    publishing_ = true;
    ++builds_;
  }
  struct Published { // However this function ends.
    Workspace &workspace;
    ~Published() {
      std::lock_guard<std::mutex> lock(workspace.indexMutex_);
      workspace.publishing_ = false;
    }
  } published{*this};
  client_.indexServed(index); // The requests that waited for it run.
  if (client_.capabilities().workDoneProgress && endProgress) {
    protocol::WorkDoneProgressEnd end;
    index::IndexStats s = index->stats();
    end.message = plural(s.compiles, "compile") + ", " + plural(s.kernels, "kernel");
    client_.notify("$/progress",
                   json(protocol::ProgressParams<protocol::WorkDoneProgressEnd>{progressToken_, end}));
  }
  const auto &diags = index->diagnostics();
  for (size_t i = 0; i < diags.size() && i < 50; ++i)
    logWarn(diags[i].file + ":" + std::to_string(diags[i].line + 1) + ": " + diags[i].message);
  if (!diags.empty()) {
    protocol::LogMessageParams m;
    m.type = protocol::MessageType::Warning;
    m.message = "inductor-ls: " + plural(diags.size(), "problem") +
                " while indexing; the rest of the traces is served. First: " + diags[0].file + ":" +
                std::to_string(diags[0].line + 1) + ": " + diags[0].message;
    client_.notify("window/logMessage", json(m));
  }
  publishNotices(*index, options);
  if (options_.watch) watchLogDirectories(index->traceFiles());
  client_.statusChanged(/*force=*/true);
  client_.diagnosticsChanged(*index);
  if (client_.capabilities().codeLensRefreshSupport) client_.request("workspace/codeLens/refresh", nullptr);
  if (client_.capabilities().inlayHintRefreshSupport) client_.request("workspace/inlayHint/refresh", nullptr);
  if (!more) startBaseline(index, options); // After the current run is served (server/workspace/Runs.cpp).
}

} // namespace inductor::server
