#include "index/files/PathResolver.h"

#include "index/files/Discovery.h"
#include "index/files/TritonCache.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace inductor::index {

bool isSkippedDirectory(std::string_view name) {
  return (name.size() > 1 && name[0] == '.') || name == "node_modules" || name == "__pycache__" ||
         name == "build" || name.substr(0, 6) == "build-";
}

std::string normalizePath(std::string_view path) {
  if (path.empty()) return {};
  bool absolute = path.front() == '/';
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    if (part.empty() || part == ".") {
      // Skip.
    } else if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!absolute)
        parts.push_back(part);
    } else {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out = absolute ? "/" : "";
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k) out += '/';
    out += parts[k];
  }
  return out.empty() ? "." : out;
}

namespace {

bool existsFile(const std::string &p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::string_view basenameOf(std::string_view p) {
  size_t slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

/// Number of trailing path components that `a` and `b` share.
size_t commonSuffixComponents(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (!a.empty() && !b.empty()) {
    size_t sa = a.rfind('/'), sb = b.rfind('/');
    std::string_view ca = sa == std::string_view::npos ? a : a.substr(sa + 1);
    std::string_view cb = sb == std::string_view::npos ? b : b.substr(sb + 1);
    if (ca != cb || ca.empty()) break;
    ++n;
    a = sa == std::string_view::npos ? std::string_view() : a.substr(0, sa);
    b = sb == std::string_view::npos ? std::string_view() : b.substr(0, sb);
  }
  return n;
}

} // namespace

std::string packageRelativePath(std::string_view recordedPath) {
  std::string p(recordedPath);
  std::replace(p.begin(), p.end(), '\\', '/');
  size_t best = std::string::npos;
  for (std::string_view dir : {std::string_view("/site-packages/"), std::string_view("/dist-packages/")}) {
    size_t pos = p.rfind(dir);
    if (pos != std::string::npos && (best == std::string::npos || pos + dir.size() > best))
      best = pos + dir.size();
  }
  if (best == std::string::npos || best >= p.size()) return {};
  return normalizePath(p.substr(best));
}

std::vector<PathResolver::ImportRoot>
PathResolver::usableImportRoots(const std::vector<std::string> &importRoots) {
  std::vector<ImportRoot> out;
  for (const std::string &r : importRoots)
    if (!r.empty() && r.front() == '/') out.emplace_back().path = normalizePath(r);
  return out;
}

PathResolver::PathResolver(std::vector<PathMapping> mappings, std::vector<std::string> roots,
                           const std::vector<std::string> &importRoots, size_t maxFiles)
    : mappings_(std::move(mappings)), roots_(std::move(roots)), importRoots_(usableImportRoots(importRoots)),
      maxFiles_(maxFiles) {
  // Longest prefix first, so that a more specific mapping wins.
  std::stable_sort(mappings_.begin(), mappings_.end(),
                   [](const PathMapping &a, const PathMapping &b) { return a.from.size() > b.from.size(); });
}

void PathResolver::setImportRootsLater(std::shared_future<std::vector<std::string>> later,
                                       std::function<void()> beforeWait) {
  std::lock_guard<std::mutex> lock(mutex_);
  importRoots_.clear();
  importRootsLater_ = std::move(later);
  beforeWait_ = std::move(beforeWait);
}

const std::vector<PathResolver::ImportRoot> &PathResolver::importRoots() const {
  usedImportRoots_ = true;
  if (importRootsLater_.valid()) {
    if (beforeWait_) beforeWait_();
    importRoots_ = usableImportRoots(importRootsLater_.get());
    importRootsLater_ = {};
  }
  return importRoots_;
}

std::string PathResolver::underImportRoots(std::string_view rest) const {
  if (rest.empty()) return {};
  std::string_view first = rest.substr(0, rest.find('/'));
  for (const ImportRoot &root : importRoots()) {
    if (!root.listed) {
      root.listed = true;
      std::error_code ec;
      fs::directory_iterator it(root.path, ec), end;
      for (; !ec && it != end; it.increment(ec))
        root.names.insert(it->path().filename().string());
      root.listable = !ec; // A listing refused or cut short proves nothing about the names it missed.
    }
    if (root.listable && !root.names.count(std::string(first))) continue;
    std::string candidate = normalizePath(root.path + "/" + std::string(rest));
    if (existsFile(candidate)) return candidate;
  }
  return {};
}

bool PathResolver::usedImportRoots() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return usedImportRoots_;
}

void PathResolver::buildSuffixIndex() const {
  indexed_ = true;
  size_t seen = 0;
  for (const std::string &root : roots_) {
    std::error_code ec;
    if (fs::is_regular_file(root, ec)) {
      byBasename_[std::string(basenameOf(root))].push_back(normalizePath(fs::absolute(root, ec).string()));
      continue;
    }
    // Absolute once: the walk's paths are then absolute too (fs::absolute asks getcwd(2) on every call).
    fs::path base = fs::absolute(root, ec);
    if (ec) continue;
    fs::recursive_directory_iterator it(base, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec)) {
        // As discovery walks (Discovery.h): directories count toward the cap, and the walk is depth-capped.
        if (++seen > maxFiles_) break;
        std::string name = it->path().filename().string();
        if (isSkippedDirectory(name) || isTritonCacheKeyName(name) || size_t(it.depth()) + 1 >= kMaxWalkDepth)
          it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(ec)) continue;
      if (++seen > maxFiles_) break;
      std::string p = normalizePath(it->path().string());
      byBasename_[std::string(basenameOf(p))].push_back(std::move(p));
    }
  }
  for (auto &[name, paths] : byBasename_) {
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  }
}

ResolvedPath PathResolver::resolve(std::string_view recordedPath) const {
  std::string key(recordedPath);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;

  ResolvedPath out{key, false};
  bool done = false;
  for (const PathMapping &m : mappings_) {
    // Whole path components only: "/work" maps "/work/x" but not "/workspace/x"; "/work/" equals "/work".
    std::string_view from = m.from;
    while (from.size() > 1 && from.back() == '/')
      from.remove_suffix(1);
    if (from.empty() || recordedPath.substr(0, from.size()) != from) continue;
    std::string_view rest = recordedPath.substr(from.size());
    if (!rest.empty() && rest.front() != '/' && from != "/") continue;
    {
      out.path = normalizePath(m.to + "/" + std::string(rest));
      out.exists = existsFile(out.path);
      done = true;
      break;
    }
  }
  if (!done) {
    if (std::string rest = packageRelativePath(recordedPath); !rest.empty())
      if (std::string found = underImportRoots(rest); !found.empty()) {
        out = {std::move(found), true};
        done = true;
      }
  }
  if (!done && !recordedPath.empty() && recordedPath.front() == '/' && existsFile(key)) {
    out = {normalizePath(key), true};
    done = true;
  }
  if (!done) {
    if (!indexed_) buildSuffixIndex();
    std::string norm = normalizePath(recordedPath);
    auto it = byBasename_.find(std::string(basenameOf(norm)));
    if (it != byBasename_.end() && !basenameOf(norm).empty()) {
      const std::string *best = nullptr;
      size_t bestLen = 0;
      for (const std::string &candidate : it->second) {
        size_t len = commonSuffixComponents(norm, candidate);
        if (len > bestLen || (len == bestLen && best && candidate.size() < best->size())) {
          best = &candidate;
          bestLen = len;
        }
      }
      if (best) {
        out = {*best, true};
        done = true;
      }
    }
  }
  if (!done && !importRoots().empty()) {
    // Longest suffix of at least two components first: `pkg/mod.py` alone is too weak to match on.
    std::string norm = normalizePath(recordedPath);
    std::vector<size_t> starts; // Start of each component.
    for (size_t i = 0; i < norm.size(); ++i)
      if (norm[i] != '/' && (i == 0 || norm[i - 1] == '/')) starts.push_back(i);
    for (size_t k = 0; k + 2 <= starts.size() && !done; ++k)
      if (std::string found = underImportRoots(std::string_view(norm).substr(starts[k])); !found.empty()) {
        out = {std::move(found), true};
        done = true;
      }
  }
  memo_.emplace(std::move(key), out);
  return out;
}

size_t PathResolver::indexedFiles() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto &[name, paths] : byBasename_)
    n += paths.size();
  return n;
}

} // namespace inductor::index
