// Tests for server/PythonEnv.h: ImportRootsCache (the interpreter's answer kept between sessions). The
// interpreter itself is exercised end to end (tests/e2e/ModelCodeTests.cpp): here it is a plain file, since
// the cache only stamps it; a shell script stands in for one where queryImportRoots's scheduling is tested.
#include "server/PythonEnv.h"

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

TEST_CASE("queryImportRoots: in the background the timeout waits; once the build needs the answer it runs") {
  Dir d;
  // An "interpreter" that answers after 300 ms: past a 150 ms timeout.
  std::string python = d.make("bin/python", "#!/bin/sh\nsleep 0.3\necho '[\"" + d.path + "\"]'\n");
  fs::permissions(python, fs::perms::owner_all);
  using namespace std::chrono_literals;
  inductor::server::ImportRoots plain = inductor::server::queryImportRoots(python, 150ms);
  CHECK(plain.error.find("timed out") != std::string::npos);
  if (!inductor::server::canRunInBackground()) return; // Not allowed here: runs as usual (as above).
  std::atomic<bool> background{true};
  std::thread build([&] {
    std::this_thread::sleep_for(200ms);
    background = false; // The 150 ms start from here; the answer comes 100 ms later.
  });
  inductor::server::ImportRoots r = inductor::server::queryImportRoots(python, 150ms, nullptr, &background);
  build.join();
  CHECK(r.error == "");
  CHECK(r.paths == std::vector<std::string>{d.path});
}

TEST_CASE("queryImportRoots: a launcher's interpreter is lowered and raised with it, and killed with it") {
  Dir d;
  using namespace std::chrono_literals;
  // A launcher (as a pyenv shim is) whose "python", started while in the background, answers later with its
  // nice value.
  std::string python =
      d.make("bin/python", "#!/bin/sh\nsh -c 'echo $$ > " + d.path + "/pid; sleep 0.4; echo \"[\\\"" +
                               d.path + "\\\"]\"; nice > " + d.path + "/nice'\n");
  fs::permissions(python, fs::perms::owner_all);
  if (inductor::server::canRunInBackground()) {
    std::atomic<bool> background{true};
    std::thread build([&] {
      std::this_thread::sleep_for(150ms);
      background = false;
    });
    inductor::server::ImportRoots r = inductor::server::queryImportRoots(python, 2s, nullptr, &background);
    build.join();
    CHECK(r.error == "");
    CHECK(r.paths == std::vector<std::string>{d.path});
    std::ifstream nice(d.path + "/nice");
    int value = -100;
    nice >> value;
    errno = 0;
    CHECK(value == ::getpriority(PRIO_PROCESS, 0)); // Not kBackgroundNice.
  }
  // Timed out: the launcher's child goes too (it would sleep for 5 s).
  std::string slow = d.make("bin/slow", "#!/bin/sh\nsh -c 'echo $$ > " + d.path + "/pid; sleep 5'\n");
  fs::permissions(slow, fs::perms::owner_all);
  inductor::server::ImportRoots late = inductor::server::queryImportRoots(slow, 100ms);
  CHECK(late.error.find("timed out") != std::string::npos);
  std::ifstream pidFile(d.path + "/pid");
  pid_t child = 0;
  pidFile >> child;
  REQUIRE(child > 0);
  // Gone, or a zombie (killed; its parent, killed too, cannot reap it, and a container's init may not).
  auto gone = [&] {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, name, state;
    return !(stat >> pid >> name >> state) || state == "Z";
  };
  bool dead = false;
  for (int i = 0; i < 100 && !(dead = gone()); ++i)
    std::this_thread::sleep_for(10ms);
  CHECK(dead);
}
