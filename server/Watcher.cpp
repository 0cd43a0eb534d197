// server/Watcher.cpp: watches trace inputs with inotify and reindexes when they change, because some clients
// (Neovim 0.7) offer no didChangeWatchedFiles. Watches the directories of the indexed logs and the trace
// inputs (not whole workspaces); a burst of writes (a running job appending to its log) is debounced: the
// rebuild starts after 1 s without events, or after 5 s of continuous events.
#include "index/Discovery.h"
#include "server/Logger.h"
#include "server/Server.h"

#include <filesystem>
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
    inotify_add_watch(watcherFd_, d.c_str(), IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_MOVED_TO);
  logInfo("watching " + std::to_string(dirs.size()) + " directories for trace changes");
  watcher_ = std::thread([this] {
    using clock = std::chrono::steady_clock;
    std::optional<clock::time_point> first, last;
    alignas(inotify_event) char buf[16384];
    while (!stopWatcher_) {
      pollfd pfd{watcherFd_, POLLIN, 0};
      int r = poll(&pfd, 1, 200);
      if (r > 0) {
        ssize_t n;
        while ((n = read(watcherFd_, buf, sizeof buf)) > 0) {
          for (char *p = buf; p < buf + n;) {
            auto *ev = reinterpret_cast<inotify_event *>(p);
            if (ev->len && interesting(ev->name)) {
              auto now = clock::now();
              if (!first) first = now;
              last = now;
            }
            p += sizeof(inotify_event) + ev->len;
          }
        }
      }
      auto now = clock::now();
      if (last && (now - *last > std::chrono::seconds(1) || now - *first > std::chrono::seconds(5))) {
        first.reset();
        last.reset();
        logInfo("trace inputs changed: reindexing");
        startIndexing();
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
