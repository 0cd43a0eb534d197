// Tests for the one list of read roots (index/model/Index.h readRoots) and the discovery of the runtime
// inputs (index/files/Discovery.h discoverRuntimeInputs): profiles and printer run logs named by the
// settings, found by discovery, and beside the trace logs, each once, read only where the policy allows.
#include "index/files/Discovery.h"
#include "index/files/PathResolver.h"
#include "index/files/ReadPolicy.h"
#include "index/model/Index.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace inductor::index;
namespace fs = std::filesystem;

namespace {

/// A fresh directory, removed with everything in it at the end of the test. Normalized (as discovery
/// answers).
struct TempDir {
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "inductor-runtime-XXXXXX").string();
    path = normalizePath(fs::path(::mkdtemp(pattern.data())).string());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string &relative, const std::string &text = "x\n") const {
    fs::path p = fs::path(path) / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path;
};

bool contains(const std::vector<std::string> &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_CASE("readRoots: every root a build reads under, import roots only when asked") {
  IndexOptions o;
  o.roots = {"/ws"};
  o.inputs = {"/traces/case"};
  o.profiles = {"/profiles/run1.json.gz"};
  o.runLogs = {"/logs"};
  o.pathMappings = {PathMapping{"/remote/src", "/local/src"}};
  o.pythonPaths = {"/venv/lib/python3.11/site-packages"};
  std::vector<std::string> all = readRoots(o);
  for (const char *root : {"/ws", "/traces/case", "/profiles/run1.json.gz", "/logs", "/local/src",
                           "/venv/lib/python3.11/site-packages"}) {
    CAPTURE(root);
    CHECK(contains(all, root));
  }
  CHECK_FALSE(contains(all, "/remote/src")); // The recorded side of a mapping is not here.
  std::vector<std::string> withoutImports = readRoots(o, /*withImportRoots=*/false);
  CHECK(withoutImports.size() == all.size() - 1);
  CHECK_FALSE(contains(withoutImports, "/venv/lib/python3.11/site-packages"));
  // The policy made of them allows what the build's runtime step reads: a named profile and a named folder of
  // run logs, outside the workspace and trace inputs.
  ReadPolicy policy(all);
  CHECK(policy.allows("/logs/run.log"));
  CHECK(policy.allows("/profiles/run1.json.gz"));
  CHECK_FALSE(policy.allows("/profiles/other.json.gz"));
}

TEST_CASE("discoverRuntimeInputs: named files and folders, found ones, and those beside a trace log") {
  TempDir named, found, trace, outside;
  std::string namedProfile = named.write("p/run.json"); // Any name when named.
  std::string namedFolderProfile = named.write("folder/a/b.json.gz");
  std::string namedFolderNotJson = named.write("folder/notes.md");
  std::string namedRunLog = named.write("logs/stdout.txt");
  std::string foundProfile = found.write("x.pt.trace.json");
  std::string foundRunLog = found.write("run.log");
  std::string log = trace.write("trace/dedicated_log_torch_trace_abc.log");
  std::string besideProfile =
      trace.write("profile/step.pt.trace.json.gz"); // One level below the log's parent.
  std::string besideRunLog = trace.write("run.out");
  std::string tooDeep = trace.write("a/b/deep.pt.trace.json"); // Two levels below: not beside.
  std::string missing = named.path + "/missing.json";

  DiscoveredInputs discovered;
  discovered.profiles = {foundProfile};
  discovered.runLogCandidates = {foundRunLog};
  ReadPolicy policy({named.path, found.path, trace.path});
  RuntimeInputs r = discoverRuntimeInputs({namedProfile, named.path + "/folder", missing},
                                          {named.path + "/logs"}, discovered, {log}, policy);

  CHECK(r.profiles ==
        std::vector<std::string>{namedProfile, namedFolderProfile, foundProfile, besideProfile});
  CHECK_FALSE(contains(r.profiles, namedFolderNotJson));
  CHECK_FALSE(contains(r.profiles, tooDeep));
  CHECK(r.explicitProfiles == std::set<std::string>{namedProfile, namedFolderProfile});
  CHECK(r.runLogs == std::vector<std::string>{namedRunLog, foundRunLog, besideRunLog});
  CHECK(r.explicitRunLogs.empty()); // A folder's run logs are candidates, as found ones are.
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].path == missing);
  CHECK(r.problems[0].message == "profile not found");

  SUBCASE("beside a log, only where the policy allows") {
    RuntimeInputs none = discoverRuntimeInputs({}, {}, {}, {log}, ReadPolicy({outside.path}));
    CHECK(none.profiles.empty());
    CHECK(none.runLogs.empty());
  }
  SUBCASE("each file once, named or found") {
    DiscoveredInputs again;
    again.profiles = {namedProfile};
    RuntimeInputs once = discoverRuntimeInputs({namedProfile}, {namedRunLog}, again, {}, policy);
    CHECK(once.profiles == std::vector<std::string>{namedProfile});
    CHECK(once.explicitRunLogs == std::set<std::string>{namedRunLog});
  }
  SUBCASE("a named FIFO is reported, never opened") {
    std::string fifo = named.path + "/pipe.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    RuntimeInputs f = discoverRuntimeInputs({fifo}, {}, {}, {}, policy);
    CHECK(f.profiles.empty());
    REQUIRE(f.problems.size() == 1);
    CHECK(f.problems[0].message.starts_with("profile not read: not a regular file"));
  }
}

TEST_CASE("the served index reads under the profile and run-log roots its build read under") {
  // Before, the build read named profiles and run logs under roots that Index::readPolicy() (what the
  // served index and the server read under) did not have.
  TempDir traces, profiles, logs, elsewhere;
  std::string profile = profiles.write("step.json", "{\"traceEvents\": []}\n");
  std::string runLog = logs.write("run.log");
  std::string other = elsewhere.write("other.json");
  IndexOptions o;
  o.inputs = {traces.path};
  o.profiles = {profiles.path};
  o.runLogs = {runLog};
  o.jobs = 1;
  auto index = Index::build(o);
  REQUIRE(index);
  CHECK(index->readPolicy().allows(profile));
  CHECK(index->readPolicy().allows(runLog));
  CHECK(index->readPolicy().allows(traces.path + "/any.log"));
  CHECK_FALSE(index->readPolicy().allows(other));
  CHECK_FALSE(index->readPolicy().allows(logs.path + "/another.log")); // A named run log is a file root.
}
