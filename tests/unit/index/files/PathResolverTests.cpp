// Tests for index/files/PathResolver.h: normalizePath, and resolve()'s order (pathMappings, the recorded
// path, the longest path-suffix match under the roots, unresolved), its tie-breaking, the directories it
// skips and its memoization. Trees are built under a fresh temporary directory; recorded paths name a machine
// we are not on.
#include "index/files/PathResolver.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <stdlib.h>
#include <thread>

using namespace inductor::index;
namespace fs = std::filesystem;

namespace {

/// A path as a trace from another machine records it; it must not exist here.
constexpr std::string_view kRecorded = "/nonexistent-inductor-host/work/mlp_train/model.py";

void checkNormalize(std::string_view input, std::string_view expected) {
  CAPTURE(input);
  CHECK(normalizePath(input) == expected);
}

/// A temporary directory holding `files` (relative paths, created with one line each); removed at the end.
struct TempTree {
  std::string root;
  explicit TempTree(const std::vector<std::string> &files) {
    std::string name = (fs::temp_directory_path() / "inductor-resolver-XXXXXX").string();
    REQUIRE(::mkdtemp(name.data()) != nullptr);
    root = name;
    for (const std::string &f : files)
      add(f);
  }
  void add(const std::string &file) const {
    fs::create_directories(fs::path(path(file)).parent_path());
    std::ofstream(path(file)) << "x = 1\n";
  }
  std::string path(std::string_view rel) const { return root + "/" + std::string(rel); }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

struct Config {
  std::vector<PathMapping> mappings;
  std::vector<std::string> roots;
};

/// Resolves `recorded` with a fresh resolver and compares path and existence.
void check(const Config &config, std::string_view recorded, const ResolvedPath &expected) {
  PathResolver resolver(config.mappings, config.roots);
  ResolvedPath got = resolver.resolve(recorded);
  CAPTURE(recorded);
  CHECK(got.path == expected.path);
  CHECK(got.exists == expected.exists);
}

} // namespace

TEST_CASE("normalizePath collapses //, /./ and dir/.. lexically") {
  checkNormalize("/tmp/work//mlp_train/./model.py", "/tmp/work/mlp_train/model.py");
  checkNormalize("/tmp/work/x/../model.py", "/tmp/work/model.py");
  checkNormalize("/tmp/work/mlp_train/", "/tmp/work/mlp_train");
  checkNormalize("//tmp///a", "/tmp/a");
  checkNormalize("/", "/");
  checkNormalize("/..", "/");       // Nothing above the root.
  checkNormalize("/../../a", "/a"); // Still absolute.
  checkNormalize("a/./b", "a/b");
  checkNormalize("a/../..", ".."); // A relative path keeps the `..` it cannot collapse.
  checkNormalize("../a/../b", "../b");
  checkNormalize("./", ".");
  checkNormalize(".", ".");
  checkNormalize("a/..", ".");
  checkNormalize("", "");
  // `...` and names starting with dots are ordinary components.
  checkNormalize("/a/.../.hidden/b", "/a/.../.hidden/b");
}

TEST_CASE("pathMappings: longest `from` first, and applied even when the target does not exist") {
  REQUIRE_FALSE(fs::exists(kRecorded));
  TempTree tree({"long/model.py", "short/mlp_train/model.py"});
  // Listed shortest first: the order of the settings must not matter.
  Config config{{{"/nonexistent-inductor-host/work", tree.path("short")},
                 {"/nonexistent-inductor-host/work/mlp_train", tree.path("long")}},
                {tree.root}};
  check(config, kRecorded, {tree.path("long/model.py"), true});
  // Only the short mapping applies to a sibling.
  check(config, "/nonexistent-inductor-host/work/other.py", {tree.path("short/other.py"), false});
  // The user said so: a mapped path that does not exist is kept, not replaced by a suffix match.
  Config missing{{{"/nonexistent-inductor-host/work", tree.path("missing")}}, {tree.root}};
  check(missing, kRecorded, {tree.path("missing/mlp_train/model.py"), false});
  // A mapping wins over a recorded path that exists here.
  Config overExisting{{{tree.path("short"), tree.path("long")}}, {}};
  check(overExisting, tree.path("short/mlp_train/model.py"), {tree.path("long/mlp_train/model.py"), false});
  // The mapped path is normalized.
  Config dotted{{{"/nonexistent-inductor-host/work", tree.path("short/./x/..")}}, {}};
  check(dotted, kRecorded, {tree.path("short/mlp_train/model.py"), true});
  // An empty `from` never matches.
  Config empty{{{"", tree.path("long")}}, {}};
  check(empty, "/nowhere-inductor/zzz_unique.py", {"/nowhere-inductor/zzz_unique.py", false});
}

TEST_CASE("pathMappings match whole path components") {
  TempTree tree({"b/mlp_train/model.py"});
  // `/…/work` is not a prefix of `/…/workspace/…` as a path, only as a string.
  PathResolver resolver({{"/nonexistent-inductor-host/work", tree.path("b")}}, {});
  ResolvedPath got = resolver.resolve("/nonexistent-inductor-host/workspace/mlp_train/model.py");
  CHECK(got.path == "/nonexistent-inductor-host/workspace/mlp_train/model.py");
  CHECK_FALSE(got.exists);
  // A `from` written with a trailing slash and a `to` without one (a natural way to write a setting).
  PathResolver slash({{"/nonexistent-inductor-host/work/", tree.path("b")}}, {});
  ResolvedPath got2 = slash.resolve(kRecorded);
  CHECK(got2.path == tree.path("b/mlp_train/model.py"));
  CHECK(got2.exists);
}

TEST_CASE("a recorded path that exists here is used as it is, normalized") {
  TempTree tree({"a/mlp_train/model.py", "b/mlp_train/model.py"});
  Config config{{}, {tree.root}};
  check(config, tree.path("b/mlp_train/model.py"), {tree.path("b/mlp_train/model.py"), true});
  check(config, tree.root + "//b/./mlp_train/model.py", {tree.path("b/mlp_train/model.py"), true});
  // A directory is not a file: `mlp_train` falls through to the suffix match, which finds no file of that
  // name.
  check(config, tree.path("b/mlp_train"), {tree.path("b/mlp_train"), false});
}

TEST_CASE("suffix match: the longest matching tail of components wins") {
  REQUIRE_FALSE(fs::exists(kRecorded));
  TempTree tree({"b/model.py", "a/mlp_train/model.py", "c/deeper/than/others/model.py"});
  Config config{{}, {tree.root}};
  check(config, kRecorded, {tree.path("a/mlp_train/model.py"), true});
  // Three components beat two, although the path is longer.
  tree.add("x/y/z/work/mlp_train/model.py");
  check(config, kRecorded, {tree.path("x/y/z/work/mlp_train/model.py"), true});
  // Only the basename matches: still a match (the best there is).
  check(config, "/nonexistent-inductor-host/elsewhere/model.py", {tree.path("b/model.py"), true});
  // A relative recorded path is matched by suffix too.
  check(config, "mlp_train/model.py", {tree.path("a/mlp_train/model.py"), true});
  // The recorded path is normalized before matching: `mlp_train/../model.py` is `model.py`.
  check(config, "/nonexistent-inductor-host/work/mlp_train/../model.py", {tree.path("b/model.py"), true});
}

TEST_CASE("suffix match: ties pick the shortest candidate, then the lexicographically smallest") {
  TempTree tree({"zz/mlp_train/model.py", "long/er/mlp_train/model.py", "bb/mlp_train/model.py",
                 "aa/mlp_train/model.py"});
  Config config{{}, {tree.root}};
  // zz, bb and aa tie on length; aa is the smallest.
  check(config, kRecorded, {tree.path("aa/mlp_train/model.py"), true});
  TempTree shorter({"bb/mlp_train/model.py", "c/mlp_train/model.py"});
  check({{}, {shorter.root}}, kRecorded, {shorter.path("c/mlp_train/model.py"), true});
}

TEST_CASE("suffix match: roots may be files, several roots are searched, skipped directories are not") {
  TempTree tree({".git/mlp_train/model.py", "node_modules/mlp_train/model.py",
                 "__pycache__/mlp_train/model.py", "build/mlp_train/model.py",
                 "build-debug/mlp_train/model.py", "src/model.py"});
  Config config{{}, {tree.root}};
  // Every deeper match lies in a skipped directory.
  check(config, kRecorded, {tree.path("src/model.py"), true});
  PathResolver resolver({}, {tree.root});
  (void)resolver.resolve(kRecorded);
  CHECK(resolver.indexedFiles() == 1);

  TempTree other({"one/mlp_train/model.py"});
  check({{}, {tree.root, other.root}}, kRecorded, {other.path("one/mlp_train/model.py"), true});
  // A root that is a file is a candidate itself.
  check({{}, {tree.path("build/mlp_train/model.py")}}, kRecorded,
        {tree.path("build/mlp_train/model.py"), true});
  // A skipped name is skipped below a root, not as the root itself.
  check({{}, {tree.path("build")}}, kRecorded, {tree.path("build/mlp_train/model.py"), true});
  // The same root twice lists each file once.
  PathResolver twice({}, {tree.root, tree.root + "/"});
  (void)twice.resolve(kRecorded);
  CHECK(twice.indexedFiles() == 1);
}

TEST_CASE("an unresolvable path comes back unchanged with exists == false") {
  TempTree tree({"a/model.py"});
  Config config{{}, {tree.root, "/nonexistent-inductor-root"}};
  check(config, "/nowhere-inductor/zzz_unique_name.py", {"/nowhere-inductor/zzz_unique_name.py", false});
  // Unchanged means as recorded, not normalized.
  check(config, "/nowhere-inductor//zzz_unique_name.py", {"/nowhere-inductor//zzz_unique_name.py", false});
  check(config, "", {"", false});
  check(config, "/nowhere-inductor/dir/", {"/nowhere-inductor/dir/", false});
  // No roots at all.
  check({}, kRecorded, {std::string(kRecorded), false});
  // A file limit of 0 indexes nothing.
  PathResolver limited({}, {tree.root}, {}, 0);
  ResolvedPath got = limited.resolve("/nowhere-inductor/a/model.py");
  CHECK(got.path == "/nowhere-inductor/a/model.py");
  CHECK_FALSE(got.exists);
  CHECK(limited.indexedFiles() == 0);
}

TEST_CASE("memoization does not change answers, in any order or from several threads") {
  TempTree tree({"a/mlp_train/model.py", "b/model.py", "c/util.py"});
  std::vector<std::string> recorded = {std::string(kRecorded),
                                       "/nonexistent-inductor-host/model.py",
                                       "util.py",
                                       tree.path("c/util.py"),
                                       "/nowhere-inductor/zzz_unique_name.py",
                                       "/nonexistent-inductor-host/mapped/thing.py"};
  std::vector<PathMapping> mappings = {{"/nonexistent-inductor-host/mapped", tree.path("m")}};
  auto answers = [&](const PathResolver &r, bool reverse) {
    std::vector<std::pair<std::string, bool>> out(recorded.size());
    for (size_t k = 0; k < recorded.size(); ++k) {
      size_t i = reverse ? recorded.size() - 1 - k : k;
      ResolvedPath p = r.resolve(recorded[i]);
      out[i] = {p.path, p.exists};
    }
    return out;
  };
  PathResolver forward(mappings, {tree.root});
  auto first = answers(forward, false);
  CHECK(first[0] == std::make_pair(tree.path("a/mlp_train/model.py"), true));
  CHECK(first[1] == std::make_pair(tree.path("b/model.py"), true));
  CHECK(first[2] == std::make_pair(tree.path("c/util.py"), true));
  CHECK(first[3] == std::make_pair(tree.path("c/util.py"), true));
  CHECK(first[4] == std::make_pair(std::string("/nowhere-inductor/zzz_unique_name.py"), false));
  CHECK(first[5] == std::make_pair(tree.path("m/thing.py"), false));
  CHECK(answers(forward, false) == first); // Memoized.
  PathResolver backward(mappings, {tree.root});
  CHECK(answers(backward, true) == first);

  PathResolver shared(mappings, {tree.root});
  std::vector<std::vector<std::pair<std::string, bool>>> results(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] { results[t] = answers(shared, t % 2 == 1); });
  for (auto &t : threads)
    t.join();
  for (const auto &r : results)
    CHECK(r == first);
}

TEST_CASE("installed packages: site-packages/<rest> under the import roots, whatever the Python version") {
  TempTree env({"venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py",
                "venv/lib/python3.11/site-packages/transformers/utils/generic.py",
                "other/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py",
                "ws/copy/transformers/models/bert/modeling_bert.py", "ws/copy/timm/layers/mlp.py",
                "src/mylib/sub/mod.py"});
  const std::string recorded =
      "/opt/conda/lib/python3.12/site-packages/transformers/models/bert/modeling_bert.py";
  std::vector<std::string> importRoots{"relative/ignored", env.path("venv/lib/python3.11/site-packages"),
                                       env.path("other/lib/python3.11/site-packages")};
  PathResolver resolver({}, {env.path("ws")}, importRoots);
  // The first import root in sys.path order wins over later ones and over a workspace copy.
  CHECK(resolver.resolve(recorded).path ==
        env.path("venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py"));
  CHECK(resolver.resolve("C:\\Python312\\Lib\\site-packages\\transformers\\utils\\generic.py").path ==
        env.path("venv/lib/python3.11/site-packages/transformers/utils/generic.py"));
  CHECK(resolver.resolve("/usr/lib/python3/dist-packages/transformers/utils/generic.py").exists);
  // Not in the environment: the workspace's suffix match still applies.
  CHECK(resolver.resolve("/opt/conda/lib/python3.12/site-packages/timm/layers/mlp.py").path ==
        env.path("ws/copy/timm/layers/mlp.py"));
  // pathMappings come first.
  PathResolver mapped({{"/opt/conda/lib/python3.12/site-packages", env.path("ws/copy")}}, {}, importRoots);
  CHECK(mapped.resolve(recorded).path == env.path("ws/copy/transformers/models/bert/modeling_bert.py"));
  // Without import roots the copy in the workspace is found by suffix.
  PathResolver plain({}, {env.path("ws")});
  CHECK(plain.resolve(recorded).path == env.path("ws/copy/transformers/models/bert/modeling_bert.py"));
  // A library that ran from a source checkout is found by its longest suffix under an import root, two
  // components at least.
  PathResolver checkout({}, {}, {env.path("src")});
  CHECK(checkout.resolve("/cluster/home/u/mylib/mylib/sub/mod.py").path == env.path("src/mylib/sub/mod.py"));
  CHECK_FALSE(checkout.resolve("/cluster/home/u/elsewhere/mod.py").exists);

  // A root's first components are listed once: a module file, a package reached through a link and a root
  // that does not exist are all read right; a rest whose first component is not in a root is not in it.
  TempTree more({"site/six.py", "site/nested/pkg/a.py", "linked/pkg2/b.py"});
  fs::create_directory_symlink(more.path("linked/pkg2"), more.path("site/pkg2"));
  PathResolver listed({}, {}, {more.path("missing-root"), more.path("site")});
  CHECK(listed.resolve("/cluster/site-packages/six.py").path == more.path("site/six.py"));
  CHECK(listed.resolve("/cluster/site-packages/pkg2/b.py").path == more.path("site/pkg2/b.py"));
  CHECK(listed.resolve("/cluster/src/nested/pkg/a.py").path == more.path("site/nested/pkg/a.py"));
  CHECK_FALSE(listed.resolve("/cluster/site-packages/pkg/a.py").exists);
  CHECK_FALSE(listed.resolve("/tmp/torchinductor_u/ab/cabc.py").exists);

  CHECK(packageRelativePath("/a/lib/python3.12/site-packages/x/y.py") == "x/y.py");
  CHECK(packageRelativePath("/a/site-packages/b/site-packages/x/y.py") == "x/y.py");
  CHECK(packageRelativePath("/usr/lib/python3/dist-packages/x.py") == "x.py");
  CHECK(packageRelativePath("/a/site-packages/") == "");
  CHECK(packageRelativePath("/home/u/model.py") == "");
}

TEST_CASE("import roots that come later: waited for only by a path that needs them") {
  TempTree env({"venv/site-packages/transformers/models/bert/modeling_bert.py", "ws/model.py",
                "ws/copy/timm/layers/mlp.py", "src/mylib/sub/mod.py"});
  std::promise<std::vector<std::string>> promise;
  PathResolver resolver({{"/cluster/mapped", env.path("ws")}}, {env.path("ws")});
  resolver.setImportRootsLater(promise.get_future().share());
  // A mapping, the recorded path itself and a suffix match settle these whatever the import roots are: no
  // waiting (the promise is not kept yet; a wait would hang the test).
  CHECK(resolver.resolve("/cluster/mapped/model.py").path == env.path("ws/model.py"));
  CHECK(resolver.resolve(env.path("ws/model.py")).exists);
  CHECK(resolver.resolve("/tmp/work/case/model.py").path == env.path("ws/model.py"));
  CHECK_FALSE(resolver.usedImportRoots());
  // A package path needs them: resolve() waits until they come.
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    promise.set_value({env.path("venv/site-packages")});
  });
  CHECK(resolver.resolve("/opt/conda/lib/python3.12/site-packages/transformers/models/bert/modeling_bert.py")
            .path == env.path("venv/site-packages/transformers/models/bert/modeling_bert.py"));
  later.join();
  CHECK(resolver.usedImportRoots());

  // A path nothing else settles needs them too (step 5), and so does its failure.
  std::promise<std::vector<std::string>> promise2;
  PathResolver checkout({}, {env.path("ws")});
  checkout.setImportRootsLater(promise2.get_future().share());
  promise2.set_value({env.path("src")});
  CHECK(checkout.resolve("/cluster/home/u/mylib/mylib/sub/mod.py").path == env.path("src/mylib/sub/mod.py"));
  CHECK(checkout.usedImportRoots());
  PathResolver none({}, {env.path("ws")});
  CHECK_FALSE(none.resolve("/cluster/elsewhere/missing.py").exists);
  CHECK(none.usedImportRoots()); // Unresolved because there were none: other roots could change that.
}
