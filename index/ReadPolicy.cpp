#include "index/ReadPolicy.h"

#include "index/PathResolver.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace inductor::index {

std::string canonicalPath(std::string_view path) {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(std::string(path)), ec);
  if (ec) p = fs::path(std::string(path));
  // weakly_canonical resolves symlinks of the existing prefix and normalises the rest lexically.
  fs::path c = fs::weakly_canonical(p, ec);
  if (ec) return normalizePath(p.string());
  return normalizePath(c.string());
}

bool isWithin(std::string_view path, std::string_view root) {
  if (root.empty()) return false;
  if (root == "/") return !path.empty() && path.front() == '/';
  if (path.size() < root.size() || path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || path[root.size()] == '/' || root.back() == '/';
}

ReadPolicy ReadPolicy::allowAll() {
  ReadPolicy p;
  p.all_ = true;
  return p;
}

ReadPolicy::ReadPolicy(const std::vector<std::string> &roots) {
  for (const std::string &r : roots)
    if (!r.empty()) roots_.push_back(canonicalPath(r));
}

bool ReadPolicy::allows(std::string_view path) const {
  if (all_) return true;
  if (path.empty()) return false;
  std::string c = canonicalPath(path);
  for (const std::string &r : roots_)
    if (isWithin(c, r)) return true;
  return false;
}

} // namespace inductor::index
