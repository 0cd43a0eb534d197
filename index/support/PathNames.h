// index/support/PathNames.h: the last component of a '/'-separated path and what is before it, as views
// (no allocation, no file system access). Paths here are already normalized (PathResolver's normalizePath).
#pragma once

#include <string_view>

namespace inductor::index {

/// What follows the last '/', or the whole path when it has none: "a/b/c.py" -> "c.py".
inline std::string_view baseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// What precedes the last '/', or empty when the path has none: "a/b/c.py" -> "a/b".
inline std::string_view dirName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

} // namespace inductor::index
