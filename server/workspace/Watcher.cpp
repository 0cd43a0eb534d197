// server/workspace/Watcher.cpp: notices new and grown trace inputs and reindexes, so that the usual flow
// (open the project, then run the training job) needs no "Reindex".
//
// Two sources of events, one debouncer (the watcher thread):
//  - inotify, always: the workspace folders, recursively but skipping what discovery skips (hidden
//    directories such as .git and .venv, node_modules, __pycache__, build trees, site-packages and virtual
//    environments), at most kMaxWatches directories; a directory created later is watched as soon as it
//    appears and what it already holds is looked at (a TORCH_TRACE directory is made and its log opened at
//    once, and editors' watchers miss files in directories created in a burst); the traceDirs inputs
//    (recursively), which may lie outside the workspace; and the directory of every indexed log, so that a
//    growing log is followed closely. The parent of each configured input (or, while the input does not exist
//    yet, the nearest existing directory above it) is watched too, non-recursively and for the one name on
//    the way to the input: a trace folder deleted and made again (`rm -rf trace; mkdir trace`), or made by
//    the first run after the server started, is watched again and what it holds is indexed; a deleted one
//    leaves the index at the next rebuild. A configured log file deleted and written again is followed the
//    same way.
//  - The client's file watcher (workspace/didChangeWatchedFiles), when it offers dynamic registration (VS
//    Code does; Neovim 0.7 does not): the server registers glob patterns of trace inputs after `initialized`
//    and acts on the events, for what inotify cannot see (remote or network file systems, the watch limit).
// Rebuilds are incremental (Workspace::Rebuild::Incremental: only appended bytes are read, only new compiles
// analysed), so they can follow a running job. Bursts of events are debounced: when every event is a write to
// a trace log (a job appending records), the rebuild starts after kAppendQuiet without events, or kAppendMax
// after the first one while writes go on, so an appended compile is answered within about a second; any other
// event (a file created or moved in, a debug directory being filled) waits for kOtherQuiet of quiet, at most
// kOtherMax. A due rebuild waits for a running build rather than cancel it. Directories are watched by each
// build's discovery as it lists them, before it reads them, so no input escapes both. Everything here runs
// only with ServerOptions::watch (`--no-watch` turns it off).
#include "server/workspace/Watcher.h"
#include "index/files/Discovery.h"
#include "index/files/PathResolver.h"
#include "protocol/URI.h"
#include "server/Logger.h"
#include "server/workspace/Workspace.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <poll.h>
#include <set>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace inductor::server {

namespace {

/// Directories never watched: those discovery skips, installed packages and virtual environments.
bool skipped(const fs::path &dir) {
  std::string name = dir.filename().string();
  if (index::isSkippedDirectory(name) || name == "site-packages" || name == "dist-packages") return true;
  std::error_code ec;
  return fs::exists(dir / "pyvenv.cfg", ec);
}

using Clock = std::chrono::steady_clock;
constexpr auto kAppendQuiet = std::chrono::milliseconds(250), kAppendMax = std::chrono::milliseconds(1000);
constexpr auto kOtherQuiet = std::chrono::milliseconds(1000), kOtherMax = std::chrono::milliseconds(5000);
/// How often the thread looks at stopWatcher_ and at client events when inotify is quiet.
constexpr auto kIdlePoll = std::chrono::milliseconds(100);
/// How often a due rebuild looks whether the running build has ended.
constexpr auto kBuildPoll = std::chrono::milliseconds(20);
/// Directories watched with inotify at most (the per-user default limit is 8192 on older kernels and is
/// shared with other programs).
constexpr size_t kMaxWatches = 4096;
/// Watches kept beyond kMaxWatches for the parents of configured inputs (a few per input): a workspace that
/// fills the limit must not cost the watching of what the user named.
constexpr size_t kAnchorReserve = 64;
constexpr uint32_t kWatchMask =
    IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM;

} // namespace

bool Workspace::addWatch(const std::string &dir, bool recursive) {
  if (watcherFd_ < 0) return false;
  std::lock_guard<std::mutex> lock(watchMutex_);
  if (auto it = watchedPaths_.find(dir); it != watchedPaths_.end()) {
    WatchedDirectory &w = watches_[it->second];
    if (recursive) w.recursive = true;
    w.anchorOnly = false; // Watched for itself now: every event in it counts.
    return false;
  }
  if (watches_.size() >= kMaxWatches) {
    if (!watchLimitLogged_)
      logWarn("watching " + std::to_string(kMaxWatches) + " directories already: " + dir +
              " and others are not watched (set traceDirs to narrow the search)");
    watchLimitLogged_ = true;
    return false;
  }
  int wd = inotify_add_watch(watcherFd_, dir.c_str(), kWatchMask);
  if (wd < 0) return false;
  if (auto old = watches_.find(wd); old != watches_.end())
    watchedPaths_.erase(old->second.path); // Same inode.
  WatchedDirectory &w = watches_[wd];      // Keeps the anchors of the same inode under another path.
  w.path = dir;
  w.recursive = w.recursive || recursive;
  w.anchorOnly = false;
  watchedPaths_[dir] = wd;
  return true;
}

void Workspace::setWatchedInputs(const std::vector<std::string> &inputs) {
  std::vector<std::string> normalized;
  for (const std::string &in : inputs) {
    std::error_code ec;
    normalized.push_back(index::normalizePath(fs::absolute(in, ec).string()));
  }
  {
    std::lock_guard<std::mutex> lock(watchMutex_);
    if (normalized == watchedInputs_) return;
    watchedInputs_ = std::move(normalized);
    // Other inputs now: the old parents are no longer watched for them (IN_IGNORED forgets the watch).
    for (auto &[wd, w] : watches_) {
      w.anchors.clear();
      if (w.anchorOnly && watcherFd_ >= 0) inotify_rm_watch(watcherFd_, wd);
    }
  }
  watchInputParents(/*lookInside=*/false); // Discovery watches the inputs themselves as it lists them.
}

void Workspace::watchInputParents(bool lookInside) {
  if (watcherFd_ < 0) return;
  std::vector<std::string> inputs;
  {
    std::lock_guard<std::mutex> lock(watchMutex_);
    inputs = watchedInputs_;
  }
  for (const std::string &input : inputs) {
    fs::path target(input);
    // From the nearest existing directory above the input down: a directory made between the look and the
    // watch would be missed, so each step looks again after watching (a `mkdir -p` runs beside us).
    for (size_t depth = 0; depth < 256; ++depth) {
      fs::path child = target, dir = target.parent_path();
      std::error_code ec;
      while (!fs::is_directory(dir, ec) && dir.has_parent_path() && dir.parent_path() != dir) {
        child = dir;
        dir = dir.parent_path();
      }
      std::string name = child.filename().string();
      if (name.empty()) break; // The input is `/`.
      {
        std::lock_guard<std::mutex> lock(watchMutex_);
        auto known = watchedPaths_.find(dir.string());
        if (known != watchedPaths_.end()) {
          watches_[known->second].anchors.insert(name);
        } else if (watches_.size() < kMaxWatches + kAnchorReserve) {
          int wd = inotify_add_watch(watcherFd_, dir.c_str(), kWatchMask);
          if (wd >= 0) {
            WatchedDirectory &w = watches_[wd];
            if (w.path.empty()) w.anchorOnly = true; // A new watch (not the same inode under another path).
            if (!w.path.empty()) watchedPaths_.erase(w.path);
            w.path = dir.string();
            w.anchors.insert(name);
            watchedPaths_[w.path] = wd;
          }
        }
      }
      if (child == target) break;              // The parent of the input is watched.
      if (!fs::is_directory(child, ec)) break; // Not made yet (its creation is an event), or not a folder.
    }
    std::error_code ec;
    if (lookInside && fs::is_directory(target, ec)) watchTree(input);
  }
}

bool Workspace::watchTree(const std::string &root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return false;
  addWatch(root, true);
  bool found = false;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code fe;
    if (it->is_directory(fe)) {
      if (skipped(it->path()) || it->is_symlink(fe)) {
        it.disable_recursion_pending();
        continue;
      }
      addWatch(it->path().string(), true);
    } else if (isWatchedInputName(it->path().filename().string())) {
      found = true;
    }
  }
  return found;
}

void Workspace::watchLogDirectories(const std::vector<std::string> &logs) {
  for (const std::string &log : logs)
    addWatch(fs::path(log).parent_path().string(), false);
  std::lock_guard<std::mutex> lock(watchMutex_);
  if (watches_.size() != watchesLogged_)
    logInfo("watching " + std::to_string(watches_.size()) + " directories for trace changes");
  watchesLogged_ = watches_.size();
}

index::DirectoryListed Workspace::watchWhatDiscoveryLists(const index::IndexOptions &options) {
  // Directories below a skipped one are not watched either; discovery tells parents before children.
  auto skippedBelow = std::make_shared<std::vector<std::string>>();
  std::set<std::string> inputs;
  for (const std::string &in : options.inputs.empty() ? options.roots : options.inputs) {
    // As discovery makes its roots absolute, never throwing (a deleted working directory).
    std::error_code ec;
    inputs.insert(index::normalizePath(fs::absolute(in, ec).string()));
  }
  return [this, skippedBelow, inputs](const std::string &dir, bool recursive) {
    for (const std::string &s : *skippedBelow)
      if (dir.size() > s.size() && dir.compare(0, s.size(), s) == 0 && dir[s.size()] == '/') return;
    if (recursive && !inputs.count(dir) && skipped(dir)) {
      skippedBelow->push_back(dir);
      return;
    }
    addWatch(dir, recursive);
  };
}

void Workspace::startWatcher() {
  watcherFd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watcherFd_ < 0) logWarn("inotify unavailable: only the client's file events are followed");
  // The directories are watched by discovery as it lists them (watchWhatDiscoveryLists): a file created after
  // discovery looked is an event, one created before is indexed. This thread follows the events.
  watcher_ = std::thread([this] {
    // A plain flag rather than std::optional: GCC 12 -O2 reports optional<time_point> as maybe-uninitialized.
    bool pending = false;
    Clock::time_point first{}, last{};
    bool appendsOnly = true;
    auto event = [&](bool append) {
      auto now = Clock::now();
      if (!pending) first = now;
      pending = true;
      rebuildDue_ = true;
      last = now;
      appendsOnly = appendsOnly && append;
    };
    alignas(inotify_event) char buf[16384];
    auto due = [&] {
      return std::min(last + (appendsOnly ? kAppendQuiet : kOtherQuiet),
                      first + (appendsOnly ? kAppendMax : kOtherMax));
    };
    while (!stopWatcher_) {
      // Sleep until the pending rebuild is due (or kIdlePoll, to notice stopWatcher_ and client events); once
      // due, it waits for the running build in steps of kBuildPoll.
      auto timeout = kIdlePoll;
      if (pending) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(due() - Clock::now());
        timeout = left.count() < 0 ? kBuildPoll
                                   : std::clamp(left + std::chrono::milliseconds(1),
                                                std::chrono::milliseconds(1), kIdlePoll);
      }
      if (watcherFd_ >= 0) {
        pollfd pfd{watcherFd_, POLLIN, 0};
        if (poll(&pfd, 1, static_cast<int>(timeout.count())) > 0) {
          // Set before the events leave the kernel's queue, cleared once each is a due rebuild or dropped:
          // changesPending() never sees a change in neither place.
          watchBusy_ = true;
          ssize_t n;
          while ((n = read(watcherFd_, buf, sizeof buf)) > 0) {
            for (char *p = buf; p < buf + n;) {
              auto *ev = reinterpret_cast<inotify_event *>(p);
              p += sizeof(inotify_event) + ev->len;
              if (ev->mask & IN_Q_OVERFLOW) {
                event(false); // Events were lost: look again.
                continue;
              }
              if (ev->mask & IN_IGNORED) {
                bool anchored = false;
                {
                  std::lock_guard<std::mutex> lock(watchMutex_);
                  if (auto it = watches_.find(ev->wd); it != watches_.end()) {
                    anchored = !it->second.anchors.empty();
                    watchedPaths_.erase(it->second.path);
                    watches_.erase(it);
                  }
                }
                // The parent of an input went (`rm -rf` of a folder above it): watch further up.
                if (anchored) {
                  watchInputParents(/*lookInside=*/false);
                  event(false);
                }
                continue;
              }
              if (!ev->len) continue;
              std::string name = ev->name;
              bool anchored = false, anchorOnly = false;
              std::string anchorDir;
              {
                std::lock_guard<std::mutex> lock(watchMutex_);
                if (auto it = watches_.find(ev->wd); it != watches_.end()) {
                  anchored = it->second.anchors.count(name) > 0;
                  anchorOnly = it->second.anchorOnly;
                  anchorDir = it->second.path;
                }
              }
              if (anchored) {
                // A configured input, or a directory on the way to it, was made, moved or deleted (or a
                // configured log written): watch it again and look at what it holds; the rebuild drops what
                // went.
                bool written = !(ev->mask & (IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM));
                if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
                  // The watches of what went are forgotten now rather than at its IN_IGNORED (late while a
                  // process still holds the folder open): the folder made again under the same path gets its
                  // own.
                  std::string gone = (fs::path(anchorDir) / name).string();
                  std::lock_guard<std::mutex> lock(watchMutex_);
                  for (auto it = watches_.begin(); it != watches_.end();) {
                    const std::string &p = it->second.path;
                    if (p == gone || (p.size() > gone.size() && p.compare(0, gone.size(), gone) == 0 &&
                                      p[gone.size()] == '/')) {
                      inotify_rm_watch(watcherFd_, it->first);
                      watchedPaths_.erase(p);
                      it = watches_.erase(it);
                    } else {
                      ++it;
                    }
                  }
                }
                if (ev->mask & (IN_CREATE | IN_MOVED_TO)) watchInputParents(/*lookInside=*/true);
                event(written && !(ev->mask & IN_ISDIR));
              }
              if (anchorOnly) continue; // Another name in the parent of an input: not ours.
              if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO))) {
                // A new directory under a recursively watched one (a TORCH_TRACE or debug directory being
                // made): watch it too, and look at what it already holds (created before the watch).
                std::string parent;
                {
                  std::lock_guard<std::mutex> lock(watchMutex_);
                  if (auto it = watches_.find(ev->wd); it != watches_.end() && it->second.recursive)
                    parent = it->second.path;
                }
                fs::path dir = fs::path(parent) / name;
                if (!parent.empty() && !skipped(dir) && watchTree(dir.string())) event(false);
                continue;
              }
              if (isWatchedInputName(name))
                event((ev->mask & (IN_MODIFY | IN_CLOSE_WRITE)) && index::isTraceLogName(name));
            }
          }
          watchBusy_ = false;
        }
      } else {
        std::this_thread::sleep_for(timeout);
      }
      {
        std::lock_guard<std::mutex> lock(watchMutex_);
        if (clientEvents_) event(clientAppendsOnly_);
        clientEvents_ = false;
        clientAppendsOnly_ = true;
      }
      auto now = Clock::now();
      // Due, and no build running: a rebuild would cancel it, and a cancelled build leaves nothing for the
      // next, so a job that writes all the time would never see its index served. After it, the rebuild
      // reads only what came since.
      if (pending && now >= due() && !buildRunning()) {
        logInfo(appendsOnly ? "trace logs grew: reindexing incrementally"
                            : "trace inputs changed: reindexing incrementally");
        pending = false;
        appendsOnly = true;
        startIndexing(Rebuild::Incremental);
        rebuildDue_ = false; // Only now: `indexing` says it from here on.
      }
    }
  });
}

bool Workspace::changesPending() const {
  // In the order the watcher thread moves a change along (the kernel's queue, watchBusy_, rebuildDue_, a
  // running build): whatever step it is at when one is read, a later one is read after it.
  int queued = 0;
  if (watcherFd_ >= 0 && ioctl(watcherFd_, FIONREAD, &queued) == 0 && queued > 0) return true;
  if (watchBusy_) return true;
  {
    std::lock_guard<std::mutex> lock(watchMutex_);
    if (clientEvents_) return true;
  }
  return rebuildDue_;
}

void Workspace::stopWatcher() {
  stopWatcher_ = true;
  if (watcher_.joinable()) watcher_.join();
  if (watcherFd_ >= 0) close(watcherFd_);
  watcherFd_ = -1;
}

} // namespace inductor::server
