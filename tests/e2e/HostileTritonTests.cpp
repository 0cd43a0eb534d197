// tests/e2e/HostileTritonTests.cpp: the third round of hostile inputs (issue 43) through the real binary: a
// Triton cache whose IR is huge (a kernel line lowered to thousands of PTX lines, a .ptx of newlines asked
// for by four requests at once) and an explain baseline that is no trace. Expected values come from the files
// the test writes and parses itself; memory is the server's own peak (VmHWM, /proc/<pid>/status).
#include "e2e/E2E.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using namespace inductor::e2e;

namespace {

/// The server's peak resident set in bytes, reset first to its current one when `reset` (clear_refs 5).
uint64_t serverPeak(pid_t pid, bool reset) {
  std::string proc = "/proc/" + std::to_string(pid);
  if (reset) std::ofstream(proc + "/clear_refs") << "5";
  std::ifstream status(proc + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

/// The output of a shell command and its exit status.
std::pair<std::string, int> runCommand(const std::string &cmd) {
  std::string out;
  FILE *p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
    out.append(buf, n);
  int status = pclose(p);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

} // namespace

TEST_CASE("hostile Triton: a kernel line lowered to 5,000 more PTX lines answers 4,000 and how many more") {
  // Before: every line was listed (48 MiB of PTX on one kernel line: a 341 MB answer, 2.3 GB, 20 s).
  TempDir ws("lowered-long");
  LongLowering ll = copyKernelIrWithLongLowering(ws.path(), 5000);
  REQUIRE(ll.ptxLines.size() > 5000);
  // And the entry's TTGIR over the size limit (sparse): that stage says why it has no lines.
  std::string ttgir = fs::path(ll.ptx).replace_extension(".ttgir").string();
  fs::resize_file(ttgir, (size_t{64} << 20) + 1);
  Session s(ws.path());
  REQUIRE(s.client.waitForIndexed().is_object());
  json r = s.client.request("inductor/lowered", textDocumentPosition(fileURI(ll.kernelFile), ll.line, 4));
  REQUIRE(r.is_array());
  const json *ptx = nullptr;
  for (const json &stage : r)
    if (stage["stage"] == "ptx") ptx = &stage;
  REQUIRE(ptx);
  const json &locations = (*ptx)["locations"];
  REQUIRE(locations.size() == 4000);
  CHECK((*ptx)["more"] == ll.ptxLines.size() - 4000);
  // The first 4,000 of the lines the test attributes to the kernel line, in file order.
  for (size_t i = 0; i < locations.size(); ++i) {
    CHECK(locations[i]["uri"] == fileURI(ll.ptx));
    CHECK(locations[i]["range"]["start"]["line"] == ll.ptxLines[i]);
  }
  // The other stages of the same line, unchanged, say nothing more; the TTGIR says why it was not read.
  bool ttgirSaid = false;
  for (const json &stage : r) {
    if (stage["stage"] == "ptx") continue;
    CHECK_FALSE(stage.contains("more"));
    if (stage["stage"] == "ttgir") {
      CHECK(stage["locations"].empty());
      CHECK(stage["note"] == ttgir + " is 65 MB, over the limit of 64 MB: not read");
      ttgirSaid = true;
    } else {
      CHECK_FALSE(stage.contains("note"));
    }
  }
  CHECK(ttgirSaid);
}

TEST_CASE("hostile Triton: a 16 MiB .ptx of newlines, asked for by four requests at once, holds no memory "
          "per line") {
  // Before: every request split the file into per-line tables (about 30 bytes a line: 500 MB per request
  // here) and up to four ran at once; a 128 MiB one took 3.85 GB and 9.7 s per definition.
  TempDir ws("ptx-newlines");
  LongLowering ll = copyKernelIrWithLongLowering(ws.path(), 0);
  std::ofstream(ll.ptx, std::ios::trunc) << std::string(size_t{16} << 20, '\n');
  ServerConfig config;
  config.jobs = 4;
  Session s(ws.path(), nullptr, LSPClient::defaultCapabilities(), config);
  REQUIRE(s.client.waitForIndexed().is_object());
  std::string uri = fileURI(ll.ptx);
  // The Triton cache is read on first use: read it before measuring (a hover on the kernel file's line).
  s.client.request("inductor/lowered", textDocumentPosition(fileURI(ll.kernelFile), ll.line, 4));
  uint64_t before = serverPeak(s.client.pid(), true);
  std::vector<json> ids;
  ids.reserve(5);
  for (int i = 0; i < 4; ++i)
    ids.push_back(s.client.sendRequest("textDocument/definition", textDocumentPosition(uri, 1000u + i, 0)));
  ids.push_back(s.client.sendRequest("textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}}));
  for (const json &id : ids) {
    json response = s.client.waitForResponse(id);
    CHECK(response.contains("result"));
  }
  uint64_t grew = serverPeak(s.client.pid(), false) - before;
  CHECK(grew < (uint64_t{100} << 20));
  MESSAGE("server peak RSS grew by ", grew >> 20, " MiB for five requests on a 16 MiB .ptx of newlines");
  // The kernel's line has no PTX now: lowered lists no PTX stage, and the rest still answers.
  json r = s.client.request("inductor/lowered", textDocumentPosition(fileURI(ll.kernelFile), ll.line, 4));
  REQUIRE(r.is_array());
  for (const json &stage : r)
    CHECK(stage["stage"] != "ptx");
  CHECK(!r.empty());
}

TEST_CASE(
    "hostile: explain --baseline naming no trace (/dev/zero, an empty folder) is refused, not compared") {
  // Before: the baseline was an empty run, and every line of the current one was called new, without a word.
  const std::string root = fs::canonical(fixturesDir() + "/traces/kernel_ir").string();
  TempDir empty("no-trace");
  for (const std::string &baseline : {std::string("/dev/zero"), empty.path()}) {
    std::string cmd = INDUCTOR_LS_BINARY;
    cmd.append(" explain --no-python --baseline '")
        .append(baseline)
        .append("' '")
        .append(root)
        .append("' 2>&1");
    // Not a structured binding: clang 14 cannot capture one in doctest's CAPTURE.
    std::pair<std::string, int> run = runCommand(cmd);
    const std::string &out = run.first;
    CAPTURE(out);
    CHECK(run.second == 2);
    std::string said = "explain: --baseline " + baseline;
    said += ": not a trace folder or log (no TORCH_TRACE log or output code is read there)";
    CHECK(out.find(said) != std::string::npos);
    CHECK(out.find("Compared with the baseline run") == std::string::npos);
  }
}
