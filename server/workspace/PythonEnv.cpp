// server/workspace/PythonEnv.cpp: the environments read without running anything (virtual environments,
// `.pth` files), and the server's cache of the environment it found (Workspace::pythonEnvironment and its
// kin). Finding and running the interpreter: server/workspace/PythonInterpreter.cpp; the answer kept between
// sessions: server/workspace/ImportRootsCache.cpp.
#include "server/workspace/PythonEnv.h"

#include "server/Logger.h"
#include "server/workspace/Workspace.h"

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

} // namespace

GetEnv processEnv() {
  return [](const char *name) -> std::optional<std::string> {
    const char *v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
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

std::string PythonQuery::key() const {
  std::string key = setting + (run ? "\1run" : "\1none");
  for (const std::string &f : folders)
    key += '\0' + f;
  key += '\1';
  for (const std::string &e : excluded)
    key += '\0' + e;
  return key;
}

PythonQuery Workspace::pythonQuery(const WorkspaceSettings &settings) const {
  PythonQuery q;
  q.folders = settings.index.roots;
  q.excluded = settings.index.roots;
  for (const auto *inputs : {&settings.index.inputs, &settings.index.profiles, &settings.index.runLogs})
    q.excluded.insert(q.excluded.end(), inputs->begin(), inputs->end());
  q.setting = settings.pythonPath;
  q.run = settings.trusted;
  return q;
}

namespace {

std::string describeEnvironments(const std::vector<StaticEnvironment> &environments) {
  std::string out;
  for (const StaticEnvironment &e : environments)
    out += (out.empty() ? "" : ", ") + e.prefix + " (" + e.source + ", " +
           std::to_string(e.importRoots.size()) + " import roots)";
  return out;
}

} // namespace

std::optional<PythonEnvironment> Workspace::knownPythonEnvironment(const PythonQuery &query) {
  std::lock_guard<std::mutex> lock(pythonMutex_);
  if (pythonKnown_ && query.key() == pythonKey_) return python_;
  return std::nullopt;
}

PythonEnvironment Workspace::pythonEnvironment(const PythonQuery &query,
                                               const std::atomic<bool> *background) {
  std::string key = query.key();
  {
    std::lock_guard<std::mutex> lock(pythonMutex_);
    if (pythonKnown_ && key == pythonKey_) return python_;
  }
  PythonEnvironment env;
  // Read, never run: a venv in a workspace folder and the activated environment
  // (server/workspace/PythonEnv.h).
  env.environments = findStaticEnvironments(query.folders);
  if (!env.environments.empty())
    logInfo("python: read without running: " + describeEnvironments(env.environments));
  std::optional<protocol::LogMessageParams> warning;
  std::optional<PythonInterpreter> interpreter;
  if (query.run) interpreter = findPythonInterpreter(query.setting, query.excluded);
  if (interpreter) {
    env.interpreter = interpreter->path;
    env.source = interpreter->source;
    auto started = std::chrono::steady_clock::now();
    ImportRoots r = queryImportRoots(interpreter->path, options_.pythonTimeout, &cancelBuild_, background);
    if (r.error == "cancelled") return env; // Asked again by the next build.
    env.asked = std::move(r.paths);
    env.error = std::move(r.error);
    auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
            .count();
    if (env.error.empty()) {
      importRootsCache_.store(env.interpreter, env.asked);
      logInfo("python: " + env.interpreter + " (" + env.source + "): " + std::to_string(env.asked.size()) +
              " import roots in " + std::to_string(ms) + " ms");
    } else {
      // Reported, never fatal: installed-package paths then resolve under the environments read and the
      // workspace only.
      std::string message = "inductor-ls: cannot ask " + env.interpreter + " (" + env.source +
                            ") for its import paths: " + env.error +
                            ". Paths into installed packages resolve only under the workspace folders" +
                            (env.environments.empty() ? "." : " and the virtual environments read there.");
      logWarn(message);
      warning.emplace();
      warning->type = protocol::MessageType::Warning;
      warning->message = message;
    }
  } else if (!query.run) {
    logInfo("python: untrusted workspace (initializationOptions trusted: false): no interpreter is run" +
            std::string(query.setting.empty() ? "" : ", pythonPath " + query.setting + " ignored"));
  } else {
    logInfo("python: no interpreter to ask (pythonPath setting, python3 on PATH outside the workspace and "
            "trace folders)");
  }
  env.importRoots = combineImportRoots(env.environments, env.asked, !query.setting.empty());
  {
    std::lock_guard<std::mutex> lock(pythonMutex_);
    pythonKey_ = key;
    pythonKnown_ = true;
    python_ = env;
  }
  // After python_ is set: a client that reads inductor/status on this message sees the same failure.
  if (warning)
    client_.notify(query.setting.empty() ? "window/logMessage" : "window/showMessage", json(*warning));
  return env;
}

std::optional<PythonEnvironment> Workspace::keptPythonEnvironment(const PythonQuery &query) {
  if (importRootsCache_.file().empty() || !query.run) return std::nullopt;
  std::optional<PythonInterpreter> interpreter = findPythonInterpreter(query.setting, query.excluded);
  if (!interpreter) return std::nullopt;
  std::optional<std::vector<std::string>> kept = importRootsCache_.lookup(interpreter->path);
  if (!kept) return std::nullopt;
  PythonEnvironment env;
  env.interpreter = interpreter->path;
  env.source = interpreter->source;
  env.environments = findStaticEnvironments(query.folders);
  env.asked = std::move(*kept);
  env.importRoots = combineImportRoots(env.environments, env.asked, !query.setting.empty());
  env.kept = true;
  logInfo("python: " + env.interpreter + " (" + env.source + "): " + std::to_string(env.asked.size()) +
          " import roots kept from an earlier session (" + importRootsCache_.file() +
          "), asked again once the index is served");
  std::lock_guard<std::mutex> lock(pythonMutex_);
  pythonKey_ = query.key();
  pythonKnown_ = true;
  python_ = env;
  return env;
}

void Workspace::forgetPythonEnvironment() {
  std::lock_guard<std::mutex> lock(pythonMutex_);
  pythonKnown_ = false;
}

} // namespace inductor::server
