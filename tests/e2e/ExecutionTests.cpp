// tests/e2e/ExecutionTests.cpp: nothing found in a workspace folder or a trace folder is ever run (issue 33,
// finding 1), through the real binary. Every "interpreter" planted here is a script that touches a marker
// file if it runs and answers like a Python with an empty sys.path; the marker must never appear. The
// environments those folders hold are still used: read from their files (pyvenv.cfg, site-packages, .pth),
// never run.
#include "e2e/E2E.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace inductor::e2e {
namespace {

namespace fs = std::filesystem;

/// An executable script at `dir/relative` that touches `marker` when it runs and prints an empty sys.path.
std::string plant(const TempDir &dir, const std::string &relative, const std::string &marker) {
  std::string p = dir.write(relative, "#!/bin/sh\ntouch '" + marker + "'\necho '[]'\n");
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

/// Sets an environment variable for the scope (the servers and commands started meanwhile inherit it).
struct ScopedEnv {
  std::string name;
  std::optional<std::string> before;
  ScopedEnv(std::string n, const std::string &value) : name(std::move(n)) {
    if (const char *v = std::getenv(name.c_str())) before = v;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (before)
      ::setenv(name.c_str(), before->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;
};

/// What `inductor-ls explain` printed (stdout and stderr) and its exit status.
struct Explained {
  std::string out;
  int status = -1;
};

/// Runs `inductor-ls explain ARGS` from `cwd`.
Explained explain(const std::string &cwd, const std::string &args) {
  std::string cmd = "cd '" + cwd + "' && '" + std::string(INDUCTOR_LS_BINARY) + "' explain " + args + " 2>&1";
  std::string out;
  FILE *pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe))
    out += buf.data();
  int status = ::pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

const std::string kMlpLog = "dedicated_log_torch_trace_9bvvd8es.log";

} // namespace

TEST_CASE("execution: explain of a trace folder holding env/bin/python runs nothing and still explains") {
  // The repro: `mkdir -p T/env/bin T/trace; cp <log> T/trace/; T/env/bin/python touches a marker`.
  TempDir t("exec-explain"), outside("exec-marker");
  std::string marker = outside.path() + "/pwned";
  fs::create_directories(t.path() + "/trace");
  fs::copy_file(caseDir("mlp_train") + "/trace/" + kMlpLog, t.path() + "/trace/" + kMlpLog);
  plant(t, "env/bin/python", marker);
  Explained first = explain(outside.path(), "'" + t.path() + "'");
  INFO(first.out);
  CHECK(first.status == 0);
  CHECK(first.out.find("Indexed 1 trace file") != std::string::npos);
  CHECK_FALSE(fs::exists(marker));

  // Every other planted place: venvs marked by pyvenv.cfg (read, never run), a python3 on a PATH entry inside
  // the folder and on a relative one (`.`, run from the folder), a trace folder given as --root.
  for (const char *venv : {".venv", "venv", "env"}) {
    t.write(std::string(venv) + "/pyvenv.cfg", "home = /usr/bin\n");
    plant(t, std::string(venv) + "/bin/python", marker);
    plant(t, std::string(venv) + "/bin/python3", marker);
  }
  std::string site = t.path() + "/.venv/lib/python3.12/site-packages";
  fs::create_directories(site);
  plant(t, "bin/python3", marker);
  plant(t, "python3", marker);
  auto check = [&](const std::string &args) {
    CAPTURE(args);
    Explained e = explain(t.path(), args);
    INFO(e.out);
    CHECK(e.status == 0);
    CHECK_FALSE(fs::exists(marker));
    return e.out;
  };
  {
    // PATH entries inside the folder given, and relative ones.
    ScopedEnv path("PATH", t.path() + "/bin:.:" + t.path() + "/.venv/bin:" + std::getenv("PATH"));
    for (const std::string &args :
         {"'" + t.path() + "'", "--root '" + t.path() + "' '" + t.path() + "/trace'"})
      // The workspace venv is used, read from its files.
      CHECK(check(args).find(t.path() + "/.venv (virtual environment in the workspace, read)") !=
            std::string::npos);
  }
  {
    // A single log given by a relative path, from the folder: `bin` and `.` are that folder's.
    ScopedEnv path("PATH", std::string("bin:.::") + std::getenv("PATH"));
    check("--json trace/" + kMlpLog);
  }
  // --python is what the user named: it is run, whatever folder it is in.
  Explained named = explain(outside.path(), "--python '" + t.path() + "/env/bin/python' '" + t.path() + "'");
  INFO(named.out);
  CHECK(named.status == 0);
  CHECK(fs::exists(marker));
}

TEST_CASE("execution: the server runs no interpreter planted in a workspace or trace folder, and still "
          "resolves paths into the workspace venv's packages") {
  TempDir ws("exec-ws"), traces("exec-traces"), outside("exec-marker");
  std::string marker = outside.path() + "/pwned";
  // The workspace: a venv holding the case's packages, with a planted `bin/python`; more planted venvs and a
  // python3 on a PATH entry inside it.
  std::string site = ws.path() + "/.venv/lib/python3.12/site-packages";
  ws.write(".venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  fs::create_directories(site);
  for (const auto &e : fs::directory_iterator(caseDir("hf_bert") + "/site-packages"))
    if (e.is_directory())
      fs::copy(e.path(), site + "/" + e.path().filename().string(), fs::copy_options::recursive);
  for (const char *venv : {".venv", "venv", "env"})
    plant(ws, std::string(venv) + "/bin/python", marker);
  ws.write("venv/pyvenv.cfg", "home = /usr/bin\n");
  plant(ws, "bin/python3", marker);
  // The trace folder, outside the workspace (traceDirs), holds its own environment and a python3.
  std::vector<std::string> logs;
  fs::create_directories(traces.path() + "/trace");
  for (const std::string &recorded : filesIn(caseDir("hf_bert") + "/trace")) {
    logs.push_back(traces.path() + "/trace/" + fs::path(recorded).filename().string());
    fs::copy_file(recorded, logs.back());
  }
  REQUIRE(!logs.empty());
  plant(traces, "trace/env/bin/python", marker);
  plant(traces, "env/bin/python", marker);
  plant(traces, "trace/bin/python3", marker);
  ScopedEnv path("PATH", ws.path() + "/bin:" + traces.path() + "/trace/bin:.:" + std::getenv("PATH"));

  Session s(ws.path(), json{{"traceDirs", {traces.path() + "/trace"}}});
  INFO(s.client.logTail());
  REQUIRE(s.client.waitForIndexed().is_object());
  // A reindex asks the environment again.
  s.client.request("workspace/executeCommand", {{"command", "inductor.reindex"}});
  json status;
  for (int i = 0;
       i < 300 && !(status.is_object() && status["builds"].get<int>() >= 2 && status["indexing"] == false &&
                    !status["python"]["interpreter"].get<std::string>().empty());
       ++i) {
    std::this_thread::sleep_for(100ms);
    status = s.client.request("inductor/status", json::object());
  }
  INFO(status.dump());
  CHECK(status["builds"].get<int>() >= 2);
  CHECK_FALSE(fs::exists(marker));
  // The interpreter asked is python3 on PATH outside both folders; the venv is read.
  std::string interpreter = status["python"]["interpreter"];
  CHECK(interpreter.rfind(ws.path(), 0) != 0);
  CHECK(interpreter.rfind(traces.path(), 0) != 0);
  REQUIRE(status["python"]["environments"].is_array());
  REQUIRE(status["python"]["environments"].size() >= 1);
  CHECK(status["python"]["environments"][0]["prefix"] == ws.path() + "/.venv");
  std::vector<std::string> roots = status["python"]["importRoots"];
  CHECK(std::find(roots.begin(), roots.end(), site) != roots.end());

  // A recorded path into the package (`/.../site-packages/transformers/...`) resolves into the venv's copy.
  std::vector<ExpectedOutputCode> codes = expectedOutputCodes(logs, &s.client, std::vector<std::string>{});
  REQUIRE(!codes.empty());
  size_t inVenv = 0;
  for (const ExpectedOutputCode &code : codes) {
    // Output code the oracle found on disk elsewhere (the fixture's cache) is opened: a copy of indexed
    // generated code navigates like it.
    if (!code.path.empty()) s.client.didOpen(code.path);
    for (const LaunchSite &launch : code.launches) {
      json defs = s.client.request("textDocument/definition",
                                   textDocumentPosition(code.uri, launch.line, launch.column));
      for (const Loc &l : toLocs(defs))
        inVenv += l.uri.rfind(fileURI(site), 0) == 0;
    }
  }
  CHECK(inVenv > 0);
  CHECK_FALSE(fs::exists(marker));
  s.client.shutdown();
}

TEST_CASE("execution: initializationOptions trusted: false runs no interpreter, not even pythonPath") {
  TempDir ws("exec-untrusted"), outside("exec-marker");
  std::string marker = outside.path() + "/pwned";
  fs::create_directories(ws.path() + "/trace");
  fs::copy_file(caseDir("mlp_train") + "/trace/" + kMlpLog, ws.path() + "/trace/" + kMlpLog);
  // What an untrusted workspace's settings could name: its own interpreter.
  std::string python = plant(ws, "tools/python", marker);
  std::string site = ws.path() + "/.venv/lib/python3.12/site-packages";
  ws.write(".venv/pyvenv.cfg", "home = /usr/bin\n");
  fs::create_directories(site);
  Session s(ws.path(), json{{"trusted", false}, {"pythonPath", python}});
  INFO(s.client.logTail());
  REQUIRE(s.client.waitForIndexed().is_object());
  s.client.request("workspace/executeCommand", {{"command", "inductor.reindex"}});
  json status;
  for (int i = 0;
       i < 300 && !(status.is_object() && status["builds"].get<int>() >= 2 && status["indexing"] == false);
       ++i) {
    std::this_thread::sleep_for(100ms);
    status = s.client.request("inductor/status", json::object());
  }
  INFO(status.dump());
  CHECK(status["builds"].get<int>() >= 2);
  CHECK(status["python"]["interpreter"] == "");
  CHECK(status["python"]["trusted"] == false);
  std::vector<std::string> roots = status["python"]["importRoots"];
  CHECK(std::find(roots.begin(), roots.end(), site) != roots.end()); // Read, not run.
  CHECK_FALSE(fs::exists(marker));
  s.client.shutdown();
}

} // namespace inductor::e2e
