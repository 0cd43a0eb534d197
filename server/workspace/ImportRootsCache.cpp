// server/workspace/ImportRootsCache.cpp: the interpreter's last answer kept under the server's cache
// directory, used while the stamps of what it depends on hold (server/workspace/PythonEnv.h
// ImportRootsCache).
#include "server/workspace/PythonEnv.h"

#include "index/files/PathResolver.h"
#include "index/files/ReadPolicy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <set>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace fs = std::filesystem;

namespace inductor::server {

namespace {

/// Nanoseconds of a path's mtime and its size (after links), or {-1, -1} when it cannot be read.
std::pair<int64_t, int64_t> stamp(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {-1, -1};
  return {int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec, int64_t{st.st_size}};
}

constexpr size_t kMaxCacheFile = size_t{1} << 20;

/// The cache file's entries, or an empty array when it is missing, too large or not of its shape.
nlohmann::json readEntries(const std::string &file) {
  std::error_code ec;
  auto size = fs::file_size(file, ec);
  if (ec || size > kMaxCacheFile) return nlohmann::json::array();
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto version = j.is_object() ? j.find("version") : j.end();
  if (!j.is_object() || version == j.end() || *version != 1 || !j.contains("entries") ||
      !j["entries"].is_array())
    return nlohmann::json::array();
  return j["entries"];
}

/// An entry's key, or "" for an entry of another shape (value() would throw on a key of another type).
std::string keyOf(const nlohmann::json &entry) {
  if (!entry.is_object()) return {};
  auto it = entry.find("key");
  return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

ImportRootsCache::ImportRootsCache(const std::string &dir, GetEnv getenv)
    : file_(dir.empty() ? std::string() : dir + "/python-import-roots.json"),
      getenv_(getenv ? std::move(getenv) : processEnv()) {}

std::string ImportRootsCache::defaultDir(const GetEnv &getenvFn) {
  GetEnv env = getenvFn ? getenvFn : processEnv();
  if (auto dir = env("INDUCTOR_LS_CACHE_DIR")) return *dir;
  if (auto xdg = env("XDG_CACHE_HOME"); xdg && xdg->front() == '/') return *xdg + "/inductor-ls";
  if (auto home = env("HOME"); home && home->front() == '/') return *home + "/.cache/inductor-ls";
  return {};
}

std::string ImportRootsCache::key(const std::string &interpreter) const {
  std::string k = interpreter;
  for (const char *var : kKeyVariables)
    k.append(1, '\0').append(var).append(1, '=').append(getenv_(var).value_or(""));
  return k;
}

std::optional<std::vector<std::string>> ImportRootsCache::lookup(const std::string &interpreter) const {
  if (file_.empty()) return std::nullopt;
  std::string k = key(interpreter);
  auto [mtime, size] = stamp(interpreter);
  if (mtime < 0) return std::nullopt;
  for (const nlohmann::json &e : readEntries(file_)) {
    if (keyOf(e) != k) continue;
    // An entry of another shape, or any stamp that moved: asked again.
    try {
      if (e.at("interpreterStamp") != nlohmann::json::array({mtime, size})) return std::nullopt;
      const nlohmann::json &roots = e.at("roots"), &stamps = e.at("rootStamps");
      if (!roots.is_array() || !stamps.is_array() || roots.size() != stamps.size()) return std::nullopt;
      std::vector<std::string> out;
      for (size_t i = 0; i < roots.size(); ++i) {
        std::string root = roots[i].get<std::string>();
        if (root.empty() || root.front() != '/' || stamp(root).first != stamps[i].get<int64_t>())
          return std::nullopt;
        out.push_back(std::move(root));
      }
      return out;
    } catch (const nlohmann::json::exception &) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

void ImportRootsCache::store(const std::string &interpreter, const std::vector<std::string> &roots) const {
  if (file_.empty()) return;
  auto [mtime, size] = stamp(interpreter);
  if (mtime < 0) return;
  std::string k = key(interpreter);
  nlohmann::json entry = {{"key", k},
                          {"interpreter", interpreter},
                          {"interpreterStamp", {mtime, size}},
                          {"roots", roots},
                          {"rootStamps", nlohmann::json::array()}};
  for (const std::string &r : roots)
    entry["rootStamps"].push_back(stamp(r).first);
  nlohmann::json entries = nlohmann::json::array({entry});
  for (const nlohmann::json &e : readEntries(file_))
    if (std::string other = keyOf(e); entries.size() < kMaxEntries && !other.empty() && other != k)
      entries.push_back(e);
  std::string text = nlohmann::json{{"version", 1}, {"entries", entries}}.dump(
      1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::error_code ec;
  fs::path dir = fs::path(file_).parent_path();
  fs::create_directories(dir, ec);
  std::string tmp = (dir / ".python-import-roots.XXXXXX").string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), file_.c_str()) != 0) ::unlink(tmp.c_str());
}

} // namespace inductor::server
