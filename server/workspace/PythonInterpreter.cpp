// server/workspace/PythonInterpreter.cpp: the one interpreter that may run (findPythonInterpreter: the one
// named, or `python3` on PATH outside the workspace and trace folders) and the subprocess that asks it for
// sys.path (queryImportRoots). See server/workspace/PythonEnv.h for what is never run.
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

bool isExecutableFile(const std::string &p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// Prints sys.path as one JSON line; nothing else is imported.
constexpr const char *kScript = "import sys, json; print(json.dumps(sys.path))";
constexpr size_t kMaxOutput = size_t{1} << 20;

} // namespace

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
