// server/workspace/Watcher.h: what the watcher (server/workspace/Watcher.cpp, inotify) and the client's file
// events (server/workspace/FileEvents.cpp) share. The watching itself is Server's (Server::startWatcher and
// its kin).
#pragma once

#include <string_view>

namespace inductor::server {

/// A file whose appearance or change can change the index (see index/files/Discovery.h): a TORCH_TRACE log,
/// TORCH_COMPILE_DEBUG's output code and graph dumps, provenance maps, `kernel_information.json`, AOTI
/// `*.wrapper.cpp`, and the cache's `c<hash>.py`. By name only.
bool isWatchedInputName(std::string_view name);

} // namespace inductor::server
