// tests/e2e/ProtocolAgreementTests.cpp: `inductor-ls explain --json` and the server's custom requests write
// one shape (issue 31, point 1): on the same real fixture, explain's `compileHealth` is inductor/compiles'
// answer and its `runtime` holds inductor/hotLines' answer, key for key and value for value; explain adds
// only the runtime keys it documents (server/cli/Explain.h). Neither side is the oracle of the other's
// content alone: compile health is also counted against the logs (HealthOracle.h), and the hot lines are
// required to be there (their times are checked against the profile by RuntimeTests.cpp).
//
// Both sides run no interpreter (`--no-python`, `trusted: false`), so they resolve the same paths, and the
// client negotiates no position encoding (UTF-16, which explain writes).
#include "e2e/E2E.h"
#include "e2e/HealthOracle.h"

#include <array>
#include <cstdio>
#include <memory>
#include <set>

namespace inductor::e2e {
namespace {

json explainJson(const std::string &root) {
  std::string cmd = "cd / && '" + std::string(INDUCTOR_LS_BINARY) + "' explain --json --no-python '" + root +
                    "' 2>/dev/null";
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(cmd.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::array<char, 65536> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe.get())) > 0)
    out.append(buf.data(), n);
  json j = json::parse(out, nullptr, false);
  REQUIRE(j.is_object());
  return j;
}

/// Every key of `served` has the same value in `explained`; the first differences are named (JSON Patch
/// paths) when they do not.
void checkSameKeys(const std::string &what, const json &served, const json &explained) {
  REQUIRE(served.is_object());
  REQUIRE(explained.is_object());
  for (const auto &[key, value] : served.items()) {
    std::string k = key; // Copied: clang 14 cannot capture structured bindings.
    INFO(what << ": " << k);
    REQUIRE(explained.contains(k));
    json patch = json::diff(value, explained[k]);
    std::string first = patch.empty() ? "" : patch[0].dump().substr(0, 400);
    CHECK_MESSAGE(patch.empty(), patch.size() << " differences, first: " << first);
  }
}

} // namespace

TEST_CASE("protocol agreement: explain --json writes compile health and runtime as the custom requests do") {
  // The runtime keys only explain writes (server/cli/Explain.h runtimeDetails).
  const std::set<std::string> explainOnly = {"outsideStepsNs", "profileDetails", "compiles",
                                             "eagerOps",       "values",         "diagnostics"};
  // Every case folder (fixtures and build/traces), not a hand-picked few: a key one case never writes is
  // still compared where another does.
  size_t cases = 0, profiled = 0;
  for (const std::string &root : caseFolders()) {
    CAPTURE(root);
    ++cases;
    json explained = explainJson(root);

    Session s(root, json{{"trusted", false}});
    INFO(s.client.logTail());
    json compiles = s.client.request("inductor/compiles", json::object());
    json hot = s.client.request("inductor/hotLines", {{"limit", 100000}});
    s.client.shutdown();

    // Compile health: the same object, key for key.
    checkSameKeys("compileHealth", compiles, explained["compileHealth"]);
    for (const auto &[key, value] : explained["compileHealth"].items()) {
      std::string k = key;
      CHECK_MESSAGE(compiles.contains(k), "explain's compileHealth has a key inductor/compiles lacks: " << k);
    }
    // Not vacuous: every compile the logs record is there, once.
    size_t recorded = 0, listed = 0;
    // The served run's logs (a folder of several runs answers from the latest).
    for (const std::string &log : latestRunLogs(filesIn(root + "/trace")))
      recorded += expectedHealth(log).compiles.size();
    for (const json &f : compiles["frames"])
      listed += f["compiles"].size();
    CHECK(listed == recorded);

    // Runtime: inductor/hotLines' answer, every member, and nothing else than the documented extras.
    checkSameKeys("runtime", hot, explained["runtime"]);
    for (const auto &[key, value] : explained["runtime"].items()) {
      std::string k = key;
      CHECK_MESSAGE((hot.contains(k) || explainOnly.count(k)), "undocumented runtime key in explain: " << k);
    }
    // Not vacuous: some cases have timed lines and kernels to compare (a profile whose kernels all run in
    // CUDA graph replays times none: cudagraph_profiled).
    profiled += !hot["lines"].empty() && !hot["kernels"].empty();
  }
  CHECK(cases >= 30);
  CHECK(profiled >= 3);
}

} // namespace inductor::e2e
