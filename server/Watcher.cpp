// server/Watcher.cpp: watches trace inputs with inotify and reindexes when they change, because some clients
// (Neovim 0.7) offer no didChangeWatchedFiles. Watches the directories of the indexed logs and the trace
// inputs (not whole workspaces). Rebuilds are incremental (Server::Rebuild::Incremental: only appended bytes
// are read, only new compiles analysed), so they can follow a running job closely. Bursts of events are
// debounced: when every event is a write to a trace log (a job appending records), the rebuild starts after
// kAppendQuiet without events, or kAppendMax after the first one while writes go on, so an appended compile
// is answered within about a second; any other event (a file created or moved in, a debug directory being
// filled) waits for kOtherQuiet of quiet, at most kOtherMax.
#include "index/Discovery.h"
#include "server/Logger.h"
#include "server/Server.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/inotify.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace inductor::server {

namespace {

bool interesting(const std::string &name) {
  return index::isTraceLogName(name) || name == "output_code.py" || name == "output_code.cpp" ||
         name.find("provenance") != std::string::npos || name.find(".wrapper.cpp") != std::string::npos;
}

using Clock = std::chrono::steady_clock;
constexpr auto kAppendQuiet = std::chrono::milliseconds(250), kAppendMax = std::chrono::milliseconds(1000);
constexpr auto kOtherQuiet = std::chrono::milliseconds(1000), kOtherMax = std::chrono::milliseconds(5000);
/// How often the thread looks at stopWatcher_ when nothing is pending.
constexpr auto kIdlePoll = std::chrono::milliseconds(200);

} // namespace

void Server::startWatcher() {
  watcherFd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watcherFd_ < 0) {
    logWarn("inotify unavailable: traces will not be watched");
    return;
  }
  std::set<std::string> dirs;
  auto addTree = [&](const fs::path &root, int depth) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return;
    dirs.insert(root.string());
    if (depth <= 0) return;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      if (it.depth() >= depth) {
        it.disable_recursion_pending();
        continue;
      }
      std::error_code fe;
      if (it->is_directory(fe)) {
        std::string name = it->path().filename().string();
        if (!name.empty() && name[0] == '.') {
          it.disable_recursion_pending();
          continue;
        }
        dirs.insert(it->path().string());
      }
    }
  };
  for (const std::string &in : indexOptions_.inputs) {
    std::error_code ec;
    if (fs::is_regular_file(in, ec))
      dirs.insert(fs::path(in).parent_path().string());
    else
      addTree(in, 3);
  }
  for (const std::string &root : indexOptions_.roots)
    addTree(root, indexOptions_.inputs.empty() ? 2 : 0);
  for (const std::string &d : dirs)
    // Deletions too: a deleted log must stop being served and its pages be released (the rebuild drops it).
    inotify_add_watch(watcherFd_, d.c_str(),
                      IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM);
  logInfo("watching " + std::to_string(dirs.size()) + " directories for trace changes");
  watcher_ = std::thread([this] {
    // A plain flag rather than std::optional: GCC 12 -O2 reports optional<time_point> as maybe-uninitialized.
    bool pending = false;
    Clock::time_point first{}, last{};
    bool appendsOnly = true;
    alignas(inotify_event) char buf[16384];
    while (!stopWatcher_) {
      // Sleep until the pending rebuild is due (or kIdlePoll, to notice stopWatcher_).
      auto timeout = kIdlePoll;
      if (pending) {
        auto due = std::min(last + (appendsOnly ? kAppendQuiet : kOtherQuiet),
                            first + (appendsOnly ? kAppendMax : kOtherMax));
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now());
        timeout = std::clamp(left + std::chrono::milliseconds(1), std::chrono::milliseconds(1), kIdlePoll);
      }
      pollfd pfd{watcherFd_, POLLIN, 0};
      int r = poll(&pfd, 1, static_cast<int>(timeout.count()));
      if (r > 0) {
        ssize_t n;
        while ((n = read(watcherFd_, buf, sizeof buf)) > 0) {
          for (char *p = buf; p < buf + n;) {
            auto *ev = reinterpret_cast<inotify_event *>(p);
            if (ev->len && interesting(ev->name)) {
              auto now = Clock::now();
              if (!pending) first = now;
              pending = true;
              last = now;
              bool append = (ev->mask & (IN_MODIFY | IN_CLOSE_WRITE)) && index::isTraceLogName(ev->name);
              appendsOnly = appendsOnly && append;
            }
            p += sizeof(inotify_event) + ev->len;
          }
        }
      }
      auto now = Clock::now();
      if (pending && (now - last >= (appendsOnly ? kAppendQuiet : kOtherQuiet) ||
                      now - first >= (appendsOnly ? kAppendMax : kOtherMax))) {
        logInfo(appendsOnly ? "trace logs grew: reindexing incrementally"
                            : "trace inputs changed: reindexing incrementally");
        pending = false;
        appendsOnly = true;
        startIndexing(Rebuild::Incremental);
      }
    }
  });
}

void Server::stopWatcher() {
  stopWatcher_ = true;
  if (watcher_.joinable()) watcher_.join();
  if (watcherFd_ >= 0) close(watcherFd_);
  watcherFd_ = -1;
}

} // namespace inductor::server
