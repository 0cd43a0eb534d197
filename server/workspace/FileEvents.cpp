// server/workspace/FileEvents.cpp: which file names can change the index, and the client's file events
// (workspace/didChangeWatchedFiles, asked for by dynamic registration after `initialized`), which the watcher
// thread (server/workspace/Watcher.cpp) debounces with inotify's.
#include "index/files/Discovery.h"
#include "protocol/URI.h"
#include "server/Logger.h"
#include "server/workspace/Watcher.h"
#include "server/workspace/Workspace.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace inductor::server {

namespace {

/// `c` + a base32 hash + `.py`: a file of Inductor's cache (wrapper code or a kernel).
bool isCacheFileName(std::string_view name) {
  if (!name.ends_with(".py") || name.size() < 23 || name[0] != 'c') return false;
  return std::all_of(name.begin() + 1, name.end() - 3,
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

} // namespace

bool isWatchedInputName(std::string_view name) {
  return index::isTraceLogName(std::string(name)) || name == "output_code.py" || name == "output_code.cpp" ||
         name == "fx_graph_readable.py" || name == "fx_graph_transformed.py" ||
         name == "fx_graph_runnable.py" || name == "kernel_information.json" ||
         (name.substr(0, 29) == "inductor_provenance_tracking_" && name.ends_with(".json")) ||
         name.ends_with(".wrapper.cpp") || isCacheFileName(name);
}

void Workspace::clientFileEvents(const protocol::DidChangeWatchedFilesParams &params) {
  if (!options_.watch) return;
  bool any = false, appendsOnly = true;
  for (const protocol::FileEvent &e : params.changes) {
    auto parsed = protocol::parseURI(e.uri);
    if (!parsed) continue;
    std::string name = fs::path(parsed->path).filename().string();
    if (!isWatchedInputName(name)) continue;
    any = true;
    appendsOnly = appendsOnly && e.type == protocol::FileChangeType::Changed && index::isTraceLogName(name);
  }
  if (!any) return;
  std::lock_guard<std::mutex> lock(watchMutex_);
  clientEvents_ = true;
  clientAppendsOnly_ = clientAppendsOnly_ && appendsOnly;
}

} // namespace inductor::server
