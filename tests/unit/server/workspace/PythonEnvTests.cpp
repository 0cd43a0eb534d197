// Tests for server/workspace/PythonEnv.h: ImportRootsCache (the interpreter's answer kept between sessions).
// The interpreter itself is exercised end to end (tests/e2e/ModelCodeTests.cpp): here it is a plain file,
// since the cache only stamps it; a shell script stands in for one where queryImportRoots's scheduling is
// tested.
#include "server/workspace/PythonEnv.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using inductor::server::GetEnv;
using inductor::server::ImportRootsCache;

namespace {

struct Dir {
  std::string path;
  Dir() {
    std::string t = (fs::temp_directory_path() / "inductor-pyenv-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string make(const std::string &rel, const std::string &text = "") const {
    fs::path p = fs::path(path) / rel;
    fs::create_directories(p.parent_path());
    if (!text.empty() || rel.back() != '/') std::ofstream(p) << text;
    return p.string();
  }
};

GetEnv envOf(const std::map<std::string, std::string> &vars) {
  return [vars](const char *name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

/// Moves a path's mtime by a second, as an install into a directory would.
void touch(const std::string &path) {
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(1));
}

} // namespace

TEST_CASE("ImportRootsCache: an answer is kept while its interpreter, variables and roots are unchanged") {
  Dir d;
  std::string python = d.make("env/bin/python", "#!/bin/sh\n");
  std::string site = d.make("env/lib/site-packages/x"), lib = d.make("env/lib/python3.12/y");
  site = fs::path(site).parent_path().string();
  lib = fs::path(lib).parent_path().string();
  std::vector<std::string> roots{lib, site};
  ImportRootsCache cache(d.path + "/cache", envOf({{"PYTHONPATH", "/a"}}));
  CHECK_FALSE(cache.lookup(python)); // Nothing kept yet.
  cache.store(python, roots);
  REQUIRE(fs::exists(cache.file()));
  CHECK(cache.lookup(python) == roots);
  // Another server reads the same file.
  CHECK(ImportRootsCache(d.path + "/cache", envOf({{"PYTHONPATH", "/a"}})).lookup(python) == roots);

  SUBCASE("a variable of the key differs") {
    CHECK_FALSE(ImportRootsCache(d.path + "/cache", envOf({{"PYTHONPATH", "/b"}})).lookup(python));
    CHECK_FALSE(ImportRootsCache(d.path + "/cache", envOf({})).lookup(python));
    CHECK_FALSE(ImportRootsCache(d.path + "/cache", envOf({{"PYTHONPATH", "/a"}, {"PYENV_VERSION", "3.11"}}))
                    .lookup(python));
  }
  SUBCASE("a package installed into a root (its directory's mtime moves)") {
    touch(site);
    CHECK_FALSE(cache.lookup(python));
  }
  SUBCASE("a root removed") {
    fs::remove_all(lib);
    CHECK_FALSE(cache.lookup(python));
  }
  SUBCASE("the interpreter replaced") {
    std::ofstream(python) << "#!/bin/sh\n# another build\n";
    CHECK_FALSE(cache.lookup(python));
  }
  SUBCASE("another interpreter") {
    CHECK_FALSE(cache.lookup(d.make("other/bin/python", "x")));
  }
  SUBCASE("a new answer replaces the old one") {
    cache.store(python, {site});
    CHECK(cache.lookup(python) == std::vector<std::string>{site});
  }
}

TEST_CASE("ImportRootsCache: a damaged, foreign or oversized file is a miss and the next store replaces it") {
  Dir d;
  std::string python = d.make("bin/python", "x");
  std::string root = fs::path(d.make("lib/site-packages/a")).parent_path().string();
  ImportRootsCache cache(d.path + "/cache", envOf({}));
  for (std::string text :
       {std::string("{\"version\": 1, \"entries\": [{\"key\""), std::string("[1, 2, 3]"),
        std::string("{\"version\": 2, \"entries\": []}"),
        std::string("{\"version\": 1, \"entries\": [7, {\"key\": 3}]}"), std::string(2 << 20, ' ')}) {
    CAPTURE(text.substr(0, 40));
    d.make("cache/python-import-roots.json", text);
    CHECK_FALSE(cache.lookup(python));
    cache.store(python, {root});
    CHECK(cache.lookup(python) == std::vector<std::string>{root});
  }
  // An entry of the right key whose fields have other types: a miss, not an exception.
  std::ifstream in(cache.file());
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string broken = kept;
  broken.replace(broken.find("\"rootStamps\""), 12, "\"rootStamps\": \"no\", \"x\"");
  d.make("cache/python-import-roots.json", broken);
  CHECK_FALSE(cache.lookup(python));
}

TEST_CASE("ImportRootsCache: at most kMaxEntries interpreters, the latest kept; no directory keeps nothing") {
  Dir d;
  std::string root = fs::path(d.make("lib/site-packages/a")).parent_path().string();
  ImportRootsCache cache(d.path + "/cache", envOf({}));
  std::vector<std::string> pythons;
  for (size_t i = 0; i < ImportRootsCache::kMaxEntries + 2; ++i) {
    pythons.push_back(d.make("p" + std::to_string(i) + "/bin/python", "x"));
    cache.store(pythons.back(), {root});
  }
  CHECK_FALSE(cache.lookup(pythons[0]));
  CHECK_FALSE(cache.lookup(pythons[1]));
  for (size_t i = 2; i < pythons.size(); ++i)
    CHECK(cache.lookup(pythons[i]).has_value());
  // No temporary files are left beside it.
  size_t files = 0;
  for (const auto &e : fs::directory_iterator(d.path + "/cache"))
    files += e.is_regular_file();
  CHECK(files == 1);

  ImportRootsCache none("", envOf({}));
  CHECK(none.file().empty());
  none.store(pythons.back(), {root});
  CHECK_FALSE(none.lookup(pythons.back()));
}

TEST_CASE("ImportRootsCache::defaultDir: INDUCTOR_LS_CACHE_DIR, then XDG_CACHE_HOME, then HOME") {
  CHECK(ImportRootsCache::defaultDir(envOf({{"INDUCTOR_LS_CACHE_DIR", "/c"}, {"HOME", "/h"}})) == "/c");
  CHECK(ImportRootsCache::defaultDir(envOf({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}})) == "/x/inductor-ls");
  CHECK(ImportRootsCache::defaultDir(envOf({{"XDG_CACHE_HOME", "rel"}, {"HOME", "/h"}})) ==
        "/h/.cache/inductor-ls");
  CHECK(ImportRootsCache::defaultDir(envOf({})).empty());
}

namespace {

/// Waits for `path` to exist (an event of the script under test, not a duration); whether it did. The bound
/// is only against a hang.
bool waitForFile(const std::string &path) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(path))
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return true;
}

/// Waits until `done()` (bounded only against a hang); whether it did.
template <class F> bool waitUntil(F done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done())
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return true;
}

} // namespace

TEST_CASE("queryImportRoots: in the background the timeout waits; once the build needs the answer it runs") {
  Dir d;
  using namespace std::chrono_literals;
  // An "interpreter" driven by files, not by sleeps: it says it started, answers once `go` exists, then says
  // it answered.
  std::string started = d.path + "/started", go = d.path + "/go", answered = d.path + "/answered";
  std::string python = d.make("bin/python", "#!/bin/sh\ntouch '" + started + "'\nwhile [ ! -e '" + go +
                                                "' ]; do sleep 0.01; done\necho '[\"" + d.path +
                                                "\"]'\ntouch '" + answered + "'\n");
  fs::permissions(python, fs::perms::owner_all);
  // Not in the background: the timeout runs (the gate never opens).
  inductor::server::ImportRoots plain = inductor::server::queryImportRoots(python, 1s);
  CHECK(plain.error.find("timed out") != std::string::npos);
  if (!inductor::server::canRunInBackground()) return; // Not allowed here: runs as usual (as above).
  fs::remove(started);
  std::atomic<bool> background{true};
  bool heldPastTimeout = false;
  std::thread build([&] {
    if (!waitForFile(started)) return;
    // In the background, longer than the timeout (a lower bound: a slow machine only makes it longer)...
    std::this_thread::sleep_for(1500ms);
    heldPastTimeout = true;
    // ...then the answer is written, and only then does the build need it: the timeout runs from here.
    std::ofstream(go) << "";
    waitForFile(answered);
    background = false;
  });
  inductor::server::ImportRoots r = inductor::server::queryImportRoots(python, 1s, nullptr, &background);
  build.join();
  CHECK(heldPastTimeout);
  CHECK(r.error == "");
  CHECK(r.paths == std::vector<std::string>{d.path});
}

TEST_CASE("queryImportRoots: a launcher's interpreter is lowered and raised with it, and killed with it") {
  Dir d;
  using namespace std::chrono_literals;
  // A launcher (as a pyenv shim is) whose "python", started while in the background, writes its pid, and
  // answers with its nice value once `go` exists.
  std::string go = d.path + "/go";
  std::string python =
      d.make("bin/python", "#!/bin/sh\nsh -c 'echo $$ > " + d.path + "/pid.tmp; mv " + d.path + "/pid.tmp " +
                               d.path + "/pid; while [ ! -e " + go + " ]; do sleep 0.01; done; echo \"[\\\"" +
                               d.path + "\\\"]\"; nice > " + d.path + "/nice'\n");
  fs::permissions(python, fs::perms::owner_all);
  auto childPid = [&] {
    std::ifstream pidFile(d.path + "/pid");
    pid_t child = 0;
    pidFile >> child;
    return child;
  };
  auto niceOf = [](pid_t pid) {
    errno = 0;
    int n = ::getpriority(PRIO_PROCESS, static_cast<id_t>(pid));
    return errno == 0 ? std::optional<int>(n) : std::nullopt;
  };
  if (inductor::server::canRunInBackground()) {
    const int own = ::getpriority(PRIO_PROCESS, 0);
    std::atomic<bool> background{true};
    bool lowered = false, raised = false;
    std::thread build([&] {
      // The order of events: the child runs lowered, the build needs the answer, the child is raised, and
      // only then may it answer.
      if (!waitForFile(d.path + "/pid")) return;
      pid_t child = childPid();
      lowered = waitUntil([&] { return niceOf(child) == inductor::server::kBackgroundNice; });
      background = false;
      raised = waitUntil([&] { return niceOf(child) == own; });
      std::ofstream(go) << "";
    });
    // The timeout only bounds a hang: the answer comes by the events above.
    inductor::server::ImportRoots r = inductor::server::queryImportRoots(python, 60s, nullptr, &background);
    build.join();
    CHECK(lowered);
    CHECK(raised);
    CHECK(r.error == "");
    CHECK(r.paths == std::vector<std::string>{d.path});
    std::ifstream nice(d.path + "/nice");
    int value = -100;
    nice >> value;
    CHECK(value == own); // Not kBackgroundNice.
    fs::remove(d.path + "/pid");
  }
  // Timed out: the launcher's child goes too (it would wait for ever). The child writes its pid before it
  // waits; the timeout is long enough for a loaded machine to start two shells (only an upper bound on
  // that, not a target).
  std::string slow = d.make("bin/slow", "#!/bin/sh\nsh -c 'echo $$ > " + d.path + "/pid.tmp; mv " + d.path +
                                            "/pid.tmp " + d.path + "/pid; while true; do sleep 1; done'\n");
  fs::permissions(slow, fs::perms::owner_all);
  inductor::server::ImportRoots late = inductor::server::queryImportRoots(slow, 3s);
  CHECK(late.error.find("timed out") != std::string::npos);
  pid_t child = childPid();
  REQUIRE(child > 0);
  // Gone, or a zombie (killed; its parent, killed too, cannot reap it, and a container's init may not).
  auto gone = [&] {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, name, state;
    return !(stat >> pid >> name >> state) || state == "Z";
  };
  CHECK(waitUntil(gone));
}

// Issue 33, finding 1: nothing found in a workspace or trace folder is ever run. An "interpreter" planted
// there is a script that would leave a marker file if it ran, and answer like a Python.
namespace {

/// An executable script at `d/rel` that touches `marker` and prints an empty sys.path.
std::string planted(const Dir &d, const std::string &rel, const std::string &marker) {
  std::string p = d.make(rel, "#!/bin/sh\ntouch '" + marker + "'\necho '[]'\n");
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

/// Runs `body` with the current directory set to `dir` (a relative PATH entry means the current directory's).
template <class F> void inDirectory(const std::string &dir, F body) {
  fs::path before = fs::current_path();
  fs::current_path(dir);
  try {
    body();
  } catch (...) {
    fs::current_path(before);
    throw;
  }
  fs::current_path(before);
}

} // namespace

TEST_CASE("findPythonInterpreter: never a venv's python in a workspace folder, nor python3 on a planted PATH "
          "entry") {
  Dir d;
  std::string ws = d.path + "/ws", marker = d.path + "/ran";
  for (const char *venv : {".venv", "venv", "env"}) {
    d.make(std::string("ws/") + venv + "/pyvenv.cfg", "home = /usr/bin\n");
    planted(d, std::string("ws/") + venv + "/bin/python", marker);
    planted(d, std::string("ws/") + venv + "/bin/python3", marker);
  }
  planted(d, "ws/bin/python3", marker);
  planted(d, "ws/python3", marker);
  planted(d, "trace/env/bin/python", marker);
  planted(d, "trace/bin/python3", marker);
  d.make("trace/run.log", "x");
  // A trace input given as a file: its folder's PATH entries are not used either.
  std::vector<std::string> excluded{ws, d.path + "/trace/run.log"};
  // The user's own python3, outside every root.
  std::string own = d.make("home/bin/python3", "#!/bin/sh\necho '[\"" + d.path + "/home\"]'\n");
  fs::permissions(own, fs::perms::owner_all);

  inDirectory(ws, [&] {
    // Relative entries (`bin`, `.`, an empty one) and entries inside the workspace or a trace folder are
    // skipped; the user's python3 after them is found.
    std::string path =
        "bin:.::" + ws + "/bin:" + ws + "/.venv/bin:" + d.path + "/trace/bin:" + d.path + "/home/bin";
    auto found = inductor::server::findPythonInterpreter("", excluded, envOf({{"PATH", path}}));
    REQUIRE(found);
    CHECK(found->path == own);
    CHECK(found->source == "python3 on PATH");
    inductor::server::ImportRoots r = inductor::server::queryImportRoots(found->path);
    CHECK(r.error == "");
    CHECK(r.paths == std::vector<std::string>{d.path + "/home"});
    // Only planted ones on PATH: none. `$VIRTUAL_ENV` naming the workspace venv is read, never run.
    CHECK_FALSE(inductor::server::findPythonInterpreter(
        "", excluded,
        envOf({{"PATH", "bin:.:" + ws + "/bin:" + ws + "/.venv/bin"}, {"VIRTUAL_ENV", ws + "/.venv"}})));
    // A workspace folder reached through a link is the same folder.
    fs::create_symlink(ws, d.path + "/link");
    CHECK_FALSE(
        inductor::server::findPythonInterpreter("", excluded, envOf({{"PATH", d.path + "/link/bin"}})));
    // A relative interpreter is never looked up from the current directory.
    CHECK(inductor::server::queryImportRoots("python3").error.find("not an absolute path") !=
          std::string::npos);
    CHECK(inductor::server::queryImportRoots("bin/python3").error.find("not an absolute path") !=
          std::string::npos);
  });
  CHECK_FALSE(fs::exists(marker));

  // What the user named is run, as named; a bare name is looked up on the same filtered PATH.
  auto named = inductor::server::findPythonInterpreter(ws + "/.venv/bin/python", excluded, envOf({}));
  REQUIRE(named);
  CHECK(named->path == ws + "/.venv/bin/python");
  CHECK(named->source == "pythonPath setting");
  auto bare = inductor::server::findPythonInterpreter("python3", excluded,
                                                      envOf({{"PATH", ws + "/bin:" + d.path + "/home/bin"}}));
  REQUIRE(bare);
  CHECK(bare->path == own);
}

TEST_CASE("staticImportRoots: site-packages and the directories .pth files name, read without running") {
  Dir d;
  std::string marker = d.path + "/ran";
  std::string prefix = d.path + "/ws/.venv";
  d.make("ws/.venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  planted(d, "ws/.venv/bin/python", marker);
  std::string site = fs::path(d.make("ws/.venv/lib/python3.11/site-packages/pkg/__init__.py"))
                         .parent_path()
                         .parent_path()
                         .string();
  std::string site64 =
      fs::path(d.make("ws/.venv/lib64/python3.11/site-packages/x.py")).parent_path().string();
  std::string src = fs::path(d.make("ws/src/mypkg/__init__.py")).parent_path().parent_path().string();
  std::string abs = fs::path(d.make("elsewhere/lib/y.py")).parent_path().string();
  std::string rel = fs::path(d.make("ws/.venv/lib/python3.11/site-packages/sub/z.py")).parent_path().string();
  d.make("ws/.venv/lib/python3.11/site-packages/a-editable.pth", "# a comment\n\n" + src + "\n" + abs +
                                                                     "\r\nsub\n/no/such/dir\n/\n"
                                                                     "import os; os.system('touch " +
                                                                     marker +
                                                                     "')\n"
                                                                     "import\tsys\n");
  // A modern editable install: only an import line, which is code: nothing.
  d.make("ws/.venv/lib/python3.11/site-packages/__editable__.b.pth", "import __editable___b_finder; x()\n");
  std::vector<std::string> roots = inductor::server::staticImportRoots(prefix);
  CHECK(roots == std::vector<std::string>{site, site64, src, abs, rel, "/"});
  // Within the workspace folder only (as for a workspace venv): `/` and `elsewhere` are not import roots.
  std::vector<std::string> inside{site, site64, src, rel};
  CHECK(inductor::server::staticImportRoots(prefix, d.path + "/ws") == inside);
  CHECK_FALSE(fs::exists(marker));

  SUBCASE("findStaticEnvironments: a folder's .venv/venv/env holding pyvenv.cfg, then $VIRTUAL_ENV, "
          "$CONDA_PREFIX") {
    d.make("ws/env/lib/python3.11/site-packages/"); // No pyvenv.cfg: a folder named env, not a venv.
    std::string conda = fs::path(d.make("conda/lib/python3.10/site-packages/q.py")).parent_path().string();
    std::string active = fs::path(d.make("active/Lib/site-packages/w.py")).parent_path().string();
    auto envs = inductor::server::findStaticEnvironments(
        {d.path + "/ws"}, envOf({{"VIRTUAL_ENV", d.path + "/active"}, {"CONDA_PREFIX", d.path + "/conda"}}));
    REQUIRE(envs.size() == 3);
    CHECK(envs[0].prefix == prefix);
    CHECK(envs[0].source == "virtual environment in the workspace");
    CHECK(envs[0].importRoots == inside);
    CHECK(envs[1].source == "$VIRTUAL_ENV");
    CHECK(envs[1].importRoots == std::vector<std::string>{active});
    CHECK(envs[2].source == "$CONDA_PREFIX");
    CHECK(envs[2].importRoots == std::vector<std::string>{conda});
    // The workspace venv's roots come first, then python3's answer; a named interpreter's answer first.
    CHECK(inductor::server::combineImportRoots({envs[0]}, {"/usr/lib/python3", site}, false) ==
          std::vector<std::string>{site, site64, src, rel, "/usr/lib/python3"});
    CHECK(inductor::server::combineImportRoots({envs[0]}, {"/n"}, true).front() == "/n");
    // The same environment named twice ($VIRTUAL_ENV is the workspace venv) is read once.
    CHECK(
        inductor::server::findStaticEnvironments({d.path + "/ws"}, envOf({{"VIRTUAL_ENV", prefix}})).size() ==
        1);
  }
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("staticImportRoots: .pth files are read within kMaxPthFiles, kMaxPthBytes and kMaxPthRoots") {
  Dir d;
  std::string site = d.path + "/venv/lib/python3.12/site-packages";
  d.make("venv/pyvenv.cfg", "");
  d.make("venv/lib/python3.12/site-packages/");
  for (size_t i = 0; i < inductor::server::kMaxPthFiles + 10; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "%03zu", i);
    d.make("dirs/" + std::string(name) + "/");
    d.make("venv/lib/python3.12/site-packages/" + std::string(name) + ".pth",
           d.path + "/dirs/" + name + "\n");
  }
  // `lib64`, a link to `lib` as `python3 -m venv` makes it: the same directory, once.
  fs::create_directory_symlink("lib", d.path + "/venv/lib64");
  std::vector<std::string> roots = inductor::server::staticImportRoots(d.path + "/venv");
  CHECK(roots.front() == site);
  CHECK(roots.size() == 1 + inductor::server::kMaxPthFiles);
  CHECK(roots.back() == d.path + "/dirs/063");

  // One file: a directory after kMaxPthBytes is not read; at most kMaxPthRoots roots in all.
  Dir e;
  e.make("venv/lib/python3.12/site-packages/");
  e.make("late/");
  std::string text = std::string(inductor::server::kMaxPthBytes, '#') + "\n" + e.path + "/late\n";
  e.make("venv/lib/python3.12/site-packages/big.pth", text);
  CHECK(inductor::server::staticImportRoots(e.path + "/venv").size() == 1);
  std::string many;
  for (size_t i = 0; i < inductor::server::kMaxPthRoots + 20; ++i) {
    e.make("many/" + std::to_string(i) + "/");
    many += e.path + "/many/" + std::to_string(i) + "\n";
  }
  e.make("venv/lib/python3.12/site-packages/many.pth", many);
  CHECK(inductor::server::staticImportRoots(e.path + "/venv").size() == inductor::server::kMaxPthRoots);
}
