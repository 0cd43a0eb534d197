#include "server/PythonEnv.h"

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

bool isExecutableFile(const std::string &p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

/// Import roots being gathered: each directory once (by device and inode: `lib64` is often a link to `lib`),
/// and, when `within` is set, only directories lying inside it, links resolved.
struct RootSet {
  std::vector<std::string> paths;
  std::set<std::pair<dev_t, ino_t>> seen;
  std::string within; ///< Canonical, or empty: anywhere.
  /// Appends `dir` when it is an existing directory not there yet.
  void add(const std::string &dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
    if (!within.empty()) {
      std::error_code ec;
      fs::path real = fs::canonical(dir, ec);
      if (ec || !index::isWithin(real.string(), within)) return;
    }
    if (seen.insert({st.st_dev, st.st_ino}).second) paths.push_back(index::normalizePath(dir));
  }
};

/// The directories one `.pth` file names (see the file comment), appended to `out` up to kMaxPthRoots.
void readPth(const std::string &file, const std::string &site, RootSet &out) {
  std::ifstream in(file, std::ios::binary);
  std::string text(kMaxPthBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  size_t start = 0;
  while (start < text.size() && out.paths.size() < kMaxPthRoots) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    // As site.py: comments and blank lines are skipped; `import` lines are code, which is never run here.
    if (line.empty() || line.front() == '#' || line.rfind("import ", 0) == 0 ||
        line.rfind("import\t", 0) == 0)
      continue;
    if (line.find('\0') != std::string::npos) continue;
    out.add(line.front() == '/' ? line : std::string(site).append("/").append(line));
  }
}

/// The site-packages directories under an environment's prefix, added to `out`.
void addSiteDirectories(const std::string &prefix, RootSet &out) {
  for (const char *lib : {"lib", "lib64"}) {
    std::vector<std::string> versions;
    std::error_code ec;
    for (fs::directory_iterator it(prefix + "/" + lib, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.rfind("python3", 0) == 0) versions.push_back(it->path().string() + "/site-packages");
    }
    std::sort(versions.begin(), versions.end());
    for (const std::string &v : versions)
      out.add(v);
  }
  out.add(prefix + "/Lib/site-packages");
}

// Prints sys.path as one JSON line; nothing else is imported.
constexpr const char *kScript = "import sys, json; print(json.dumps(sys.path))";
constexpr size_t kMaxOutput = size_t{1} << 20;

GetEnv processEnv() {
  return [](const char *name) -> std::optional<std::string> {
    const char *v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
}

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

std::vector<std::string> staticImportRoots(const std::string &prefix, const std::string &within) {
  RootSet roots;
  if (!within.empty()) {
    std::error_code ec;
    fs::path real = fs::canonical(within, ec);
    if (ec) return {};
    roots.within = index::normalizePath(real.string());
  }
  addSiteDirectories(prefix, roots);
  std::vector<std::string> sites = roots.paths;
  size_t pthFiles = 0;
  for (const std::string &site : sites) {
    std::vector<std::string> pths;
    std::error_code ec;
    for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".pth" && it->is_regular_file(ec)) pths.push_back(it->path().string());
    std::sort(pths.begin(), pths.end()); // site.py's order.
    for (const std::string &pth : pths)
      if (pthFiles++ < kMaxPthFiles && roots.paths.size() < kMaxPthRoots) readPth(pth, site, roots);
  }
  return roots.paths;
}

std::vector<StaticEnvironment> findStaticEnvironments(const std::vector<std::string> &folders,
                                                      const GetEnv &getenvFn) {
  GetEnv env = getenvFn ? getenvFn : processEnv();
  std::vector<StaticEnvironment> out;
  auto add = [&](const std::string &prefix, const std::string &source, const std::string &within) {
    std::string n = index::normalizePath(prefix);
    for (const StaticEnvironment &e : out)
      if (e.prefix == n) return;
    std::vector<std::string> roots = staticImportRoots(n, within);
    if (!roots.empty()) out.push_back({n, source, std::move(roots)});
  };
  for (const std::string &folder : folders)
    for (const char *dir : {".venv", "venv", "env"}) {
      std::string prefix = folder + "/" + dir;
      std::error_code ec;
      if (fs::is_regular_file(prefix + "/pyvenv.cfg", ec))
        add(prefix, "virtual environment in the workspace", folder);
    }
  for (const char *var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (auto prefix = env(var); prefix && prefix->front() == '/') add(*prefix, std::string("$") + var, "");
  return out;
}

std::vector<std::string> combineImportRoots(const std::vector<StaticEnvironment> &environments,
                                            const std::vector<std::string> &asked, bool namedFirst) {
  std::vector<std::string> out;
  auto append = [&out](const std::vector<std::string> &roots) {
    for (const std::string &r : roots)
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  };
  if (namedFirst) append(asked);
  for (const StaticEnvironment &e : environments)
    append(e.importRoots);
  if (!namedFirst) append(asked);
  return out;
}

bool usablePathEntry(const std::string &dir, const std::vector<std::string> &excluded) {
  if (dir.empty() || dir.front() != '/') return false; // `.`, an empty entry, `bin`: the current directory's.
  std::error_code ec;
  std::string asWritten = index::normalizePath(dir);
  fs::path real = fs::weakly_canonical(dir, ec);
  std::string resolved = ec ? asWritten : index::normalizePath(real.string());
  for (const std::string &e : excluded) {
    if (e.empty()) continue;
    std::string root = e;
    std::error_code ec2;
    if (fs::exists(root, ec2) && !fs::is_directory(root, ec2)) root = fs::path(root).parent_path().string();
    std::string rootWritten = index::normalizePath(root);
    fs::path rootReal = fs::weakly_canonical(root, ec2);
    std::string rootResolved = ec2 ? rootWritten : index::normalizePath(rootReal.string());
    for (const std::string &r : {rootWritten, rootResolved})
      if (index::isWithin(asWritten, r) || index::isWithin(resolved, r)) return false;
  }
  return true;
}

std::optional<PythonInterpreter> findPythonInterpreter(const std::string &setting,
                                                       const std::vector<std::string> &excluded,
                                                       const GetEnv &getenvFn) {
  GetEnv env = getenvFn ? getenvFn : processEnv();
  auto onPath = [&](const std::string &name) -> std::optional<std::string> {
    auto path = env("PATH");
    if (!path) return std::nullopt;
    size_t start = 0;
    while (start <= path->size()) {
      size_t colon = path->find(':', start);
      std::string dir = path->substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      std::string candidate = dir;
      candidate.append("/").append(name);
      if (usablePathEntry(dir, excluded) && isExecutableFile(candidate)) return candidate;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    return std::nullopt;
  };
  if (!setting.empty()) {
    if (setting.find('/') == std::string::npos)
      if (auto found = onPath(setting)) return PythonInterpreter{*found, "pythonPath setting"};
    return PythonInterpreter{setting, "pythonPath setting"};
  }
  if (auto found = onPath("python3")) return PythonInterpreter{*found, "python3 on PATH"};
  return std::nullopt;
}

bool canRunInBackground() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("CapEff:", 0) == 0) {
      uint64_t caps = std::strtoull(line.c_str() + 7, nullptr, 16);
      if (caps & (uint64_t{1} << 23)) return true; // CAP_SYS_NICE
    }
  rlimit limit{};
  if (::getrlimit(RLIMIT_NICE, &limit) != 0) return false;
  errno = 0;
  int nice = ::getpriority(PRIO_PROCESS, 0);
  if (errno != 0) return false;
  return limit.rlim_cur == RLIM_INFINITY || static_cast<rlim_t>(20 - nice) <= limit.rlim_cur;
}

ImportRoots queryImportRoots(const std::string &interpreter, std::chrono::milliseconds timeout,
                             const std::atomic<bool> *cancelled, const std::atomic<bool> *background) {
  ImportRoots out;
  if (interpreter.empty() || interpreter.front() != '/') {
    // posix_spawn would take it from the current directory (maybe a workspace folder).
    out.error = "cannot run " + interpreter + ": not an absolute path";
    return out;
  }
  if (!isExecutableFile(interpreter)) {
    out.error = "cannot run " + interpreter + ": " +
                (fs::exists(interpreter) ? "not an executable file" : "no such file");
    return out;
  }
  int outPipe[2], errPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  if (::pipe2(errPipe, O_CLOEXEC) != 0) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    ::close(outPipe[0]);
    ::close(outPipe[1]);
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  posix_spawn_file_actions_addchdir_np(&actions, "/");
  std::vector<std::string> args{interpreter, "-c", kScript};
  std::vector<char *> argv;
  argv.reserve(args.size() + 1);
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  // A process group of its own: an interpreter is often a launcher (a pyenv shim: bash, then pyenv, then
  // python), and what it starts is lowered, raised and killed with it.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, interpreter.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  if (rc != 0) {
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    out.error = "cannot run " + interpreter + ": " + std::strerror(rc);
    return out;
  }
  // Asked beside the index build, which needs the answer only for some paths: the build goes first while the
  // caller says so. The whole group is lowered to nice 19 and raised back to this process's nice value: a
  // launcher's python, started after the launcher was lowered, would otherwise stay low when the build
  // needs the answer, and starve past the timeout on a busy machine.
  errno = 0;
  const int ownNice = ::getpriority(PRIO_PROCESS, 0);
  bool inBackground = errno == 0 && background && background->load() && canRunInBackground();
  if (inBackground && ::setpriority(PRIO_PGRP, static_cast<id_t>(pid), kBackgroundNice) != 0)
    inBackground = false;

  std::string stdoutText, stderrText;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timedOut = false, wasCancelled = false;
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  int open = 2;
  while (open > 0) {
    if (cancelled && cancelled->load()) {
      wasCancelled = true;
      break;
    }
    if (inBackground) {
      deadline =
          std::chrono::steady_clock::now() + timeout; // The timeout runs from the end of the background.
      if (!background->load()) {
        inBackground = false;
        ::setpriority(PRIO_PGRP, static_cast<id_t>(pid), ownNice);
      }
    }
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), inBackground ? 5 : 50)));
    if (n < 0 && errno != EINTR) break;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t got = ::read(fds[k].fd, buf, sizeof buf);
      if (got <= 0) {
        ::close(fds[k].fd);
        fds[k].fd = -1;
        --open;
        continue;
      }
      std::string &into = k == 0 ? stdoutText : stderrText;
      if (into.size() < kMaxOutput) into.append(buf, static_cast<size_t>(got));
    }
  }
  for (pollfd &f : fds)
    if (f.fd >= 0) ::close(f.fd);
  if (timedOut || wasCancelled) ::kill(-pid, SIGKILL); // The child this function started, and its group.
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (wasCancelled) {
    out.error = "cancelled";
    return out;
  }
  if (timedOut) {
    out.error = interpreter + " timed out after " +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) + " s";
    return out;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string tail = stderrText.size() > 300 ? stderrText.substr(stderrText.size() - 300) : stderrText;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r'))
      tail.pop_back();
    out.error = interpreter +
                (WIFEXITED(status) ? " exited with status " + std::to_string(WEXITSTATUS(status))
                                   : " was killed by signal " + std::to_string(WTERMSIG(status))) +
                (tail.empty() ? "" : ": " + tail);
    return out;
  }
  // The last line that parses: a sitecustomize may print before the script runs.
  nlohmann::json paths;
  size_t end = stdoutText.size();
  while (end > 0) {
    size_t start = stdoutText.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    paths = nlohmann::json::parse(stdoutText.substr(start, end - start), nullptr, false);
    if (paths.is_array()) break;
    end = start > 0 ? start - 1 : 0;
  }
  if (!paths.is_array()) {
    out.error = interpreter + " printed no sys.path";
    return out;
  }
  for (const auto &p : paths) {
    if (!p.is_string()) continue;
    std::string s = p.get<std::string>();
    std::error_code ec;
    if (!s.empty() && s.front() == '/' && fs::is_directory(s, ec) &&
        std::find(out.paths.begin(), out.paths.end(), s) == out.paths.end())
      out.paths.push_back(std::move(s));
  }
  return out;
}

} // namespace inductor::server
