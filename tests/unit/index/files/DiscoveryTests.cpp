// Tests for index/files/Discovery.h: what discoverInputs() finds in the real fixture cases (logs,
// TORCH_COMPILE_DEBUG graph directories, the cache's `.debug/` directories and sources, AOTI wrappers with
// kernel_information.json), what it ignores, explicitly named files, missing inputs, skipped directories and
// normalization.
#include "index/files/Discovery.h"

#include "index/files/PathResolver.h"
#include "index/files/ReadPolicy.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace inductor::index;
namespace fs = std::filesystem;

namespace {

// Discovery answers with normalized paths; the configured directory may hold `..`.
const std::string kFixtures = normalizePath(INDUCTOR_FIXTURES_DIR);
const std::string kTraces = kFixtures + "/traces";
const std::string kTlparse = kFixtures + "/tlparse-inputs";
const std::string kMlpDebug =
    kTraces + "/mlp_train/torch_compile_debug/run_2026_11_22_10_29_20_480419-pid_431/torchinductor";
const std::string kAotiDebug =
    kTraces + "/aoti_conv/torch_compile_debug/run_2026_11_22_10_33_22_026028-pid_1586/torchinductor";
const std::string kAotiCache =
    kTraces + "/aoti_conv/inductor_cache/c2bzv6oivjinsfxmfxlrqoa2ekultm3abbpz45cm2zonrxxrmhpz";

std::string baseName(const std::string &p) {
  return fs::path(p).filename().string();
}

std::vector<std::string> baseNames(const std::vector<std::string> &paths) {
  std::vector<std::string> out;
  out.reserve(paths.size());
  for (const std::string &p : paths)
    out.push_back(baseName(p));
  return out;
}

const CompileFiles *findCompile(const DiscoveredInputs &d, std::string_view outputCode) {
  for (const CompileFiles &c : d.compiles)
    if (c.outputCode == outputCode) return &c;
  return nullptr;
}

/// Every path of the result (for "absolute, normalized, listed once").
std::vector<std::string> allPaths(const DiscoveredInputs &d) {
  std::vector<std::string> out = d.traceLogs;
  for (const CompileFiles &c : d.compiles) {
    out.push_back(c.outputCode);
    out.insert(out.end(), c.graphs.begin(), c.graphs.end());
    for (const std::string *s : {&c.nodeMappings, &c.stackTraces, &c.kernelInformation})
      if (!s->empty()) out.push_back(*s);
  }
  out.insert(out.end(), d.cacheSources.begin(), d.cacheSources.end());
  out.insert(out.end(), d.standaloneProvenance.begin(), d.standaloneProvenance.end());
  return out;
}

void checkWellFormed(const DiscoveredInputs &d) {
  std::vector<std::string> paths = allPaths(d);
  for (const std::string &p : paths) {
    CAPTURE(p);
    CHECK(p.front() == '/');
    CHECK(p.find("//") == std::string::npos);
    CHECK(p.find("/./") == std::string::npos);
    CHECK(fs::is_regular_file(p));
  }
  std::sort(paths.begin(), paths.end());
  CHECK(std::adjacent_find(paths.begin(), paths.end()) == paths.end());
}

/// A temporary directory holding `files` (relative paths, one line each); removed at the end.
struct TempTree {
  std::string root;
  explicit TempTree(const std::vector<std::string> &files) {
    std::string name = (fs::temp_directory_path() / "inductor-discovery-XXXXXX").string();
    REQUIRE(::mkdtemp(name.data()) != nullptr);
    root = name;
    for (const std::string &f : files) {
      fs::create_directories(fs::path(path(f)).parent_path());
      std::ofstream(path(f)) << "x\n";
    }
  }
  std::string path(std::string_view rel) const { return root + "/" + std::string(rel); }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

} // namespace

TEST_CASE("isTraceLogName") {
  CHECK(isTraceLogName("dedicated_log_torch_trace_9bvvd8es.log"));
  CHECK(isTraceLogName("dedicated_log_torch_trace_rank_0_rjwfigso.log"));
  CHECK(isTraceLogName("dedicated_log_torch_trace_rank_1.log"));
  CHECK_FALSE(isTraceLogName("another.log"));
  CHECK_FALSE(isTraceLogName("dedicated_log_torch_trace_9bvvd8es.log.gz"));
  CHECK_FALSE(isTraceLogName("dedicated_log_torch_trace_9bvvd8es.txt"));
  CHECK_FALSE(isTraceLogName("x_dedicated_log_torch_trace_1.log"));
  CHECK_FALSE(isTraceLogName(""));
}

TEST_CASE("mlp_train: the log, the debug directories as compile units, the cache sources") {
  DiscoveredInputs d = discoverInputs({kTraces + "/mlp_train"});
  checkWellFormed(d);
  CHECK(d.errors.empty());
  CHECK(d.traceLogs ==
        std::vector<std::string>{kTraces + "/mlp_train/trace/dedicated_log_torch_trace_9bvvd8es.log"});

  // Two TORCH_COMPILE_DEBUG graph directories and the two `c<hash>.debug/` directories of the cache.
  REQUIRE(d.compiles.size() == 4);
  const CompileFiles *forward = findCompile(d, kMlpDebug + "/model__0_forward_1.0/output_code.py");
  REQUIRE(forward != nullptr);
  CHECK(forward->graphName == "model__0_forward_1.0");
  // The post-grad graph first, then the graph Inductor was given and its repro script.
  CHECK(forward->graphs ==
        std::vector<std::string>{kMlpDebug + "/model__0_forward_1.0/fx_graph_transformed.py",
                                 kMlpDebug + "/model__0_forward_1.0/fx_graph_readable.py",
                                 kMlpDebug + "/model__0_forward_1.0/fx_graph_runnable.py"});
  CHECK(forward->nodeMappings ==
        kMlpDebug + "/model__0_forward_1.0/inductor_provenance_tracking_node_mappings.json");
  CHECK(forward->stackTraces.empty());
  CHECK(forward->kernelInformation.empty());

  const CompileFiles *backward = findCompile(d, kMlpDebug + "/model__0_backward_3.1/output_code.py");
  REQUIRE(backward != nullptr);
  CHECK(backward->graphName == "model__0_backward_3.1");
  CHECK(baseNames(backward->graphs) ==
        std::vector<std::string>{"fx_graph_transformed.py", "fx_graph_readable.py", "fx_graph_runnable.py"});
  CHECK(backward->nodeMappings.empty()); // This run dumped node mappings for the forward graph only.

  const std::string cacheDebug =
      kTraces + "/mlp_train/inductor_cache/7p/c7prel2gvbou5svw5a6auzgvj5kzzkonx7oj6h7q7lmngczv4rcq.debug";
  const CompileFiles *fromCache = findCompile(d, cacheDebug + "/output_code.py");
  REQUIRE(fromCache != nullptr);
  CHECK(fromCache->graphName == "c7prel2gvbou5svw5a6auzgvj5kzzkonx7oj6h7q7lmngczv4rcq.debug");
  CHECK(fromCache->graphs.size() == 3);

  // Every `c<hash>.py` of the cache (wrappers and Triton kernels alike; the index tells them apart), and
  // nothing from the `.debug/` directories or `.best_config` files.
  CHECK(d.cacheSources.size() == 13);
  for (const std::string &s : d.cacheSources) {
    CAPTURE(s);
    CHECK(s.find("/inductor_cache/") != std::string::npos);
    CHECK(s.find(".debug/") == std::string::npos);
    CHECK(baseName(s).size() == 55); // `c` + 51 characters + `.py`.
  }
  CHECK(std::count(
            d.cacheSources.begin(), d.cacheSources.end(),
            kTraces +
                "/mlp_train/inductor_cache/7p/c7prel2gvbou5svw5a6auzgvj5kzzkonx7oj6h7q7lmngczv4rcq.py") == 1);
  CHECK(d.standaloneProvenance.empty());
}

TEST_CASE("aoti_conv: the AOTI wrapper with its kernel_information.json") {
  DiscoveredInputs d = discoverInputs({kTraces + "/aoti_conv"});
  checkWellFormed(d);
  CHECK(d.errors.empty());
  CHECK(baseNames(d.traceLogs) == std::vector<std::string>{"dedicated_log_torch_trace_qlxq8bkd.log"});
  const CompileFiles *wrapper =
      findCompile(d, kAotiCache + "/cezivekmmdb43rjvanjcd26zvga4mf5md324glnrruqq6p3yumjd.wrapper.cpp");
  REQUIRE(wrapper != nullptr);
  CHECK(wrapper->kernelInformation == kAotiCache + "/kernel_information.json");
  CHECK(wrapper->graphs.empty());
  CHECK(wrapper->graphName.empty());
  const CompileFiles *debug = findCompile(d, kAotiDebug + "/model___0.0/output_code.cpp");
  REQUIRE(debug != nullptr);
  CHECK(debug->graphName == "model___0.0");
  CHECK(debug->nodeMappings == kAotiDebug + "/model___0.0/inductor_provenance_tracking_node_mappings.json");
  CHECK(debug->graphs.size() == 3);
  CHECK(d.compiles.size() == 2);
  // The `*.kernel_metadata.json` / `*.wrapper_metadata.json` files are not provenance; the kernel
  // information is claimed by its wrapper, so nothing stands alone.
  CHECK(d.standaloneProvenance.empty());
  // The cache's `c<hash>.cpp` kernels are not sources the index reads; its Triton `c<hash>.py` files are.
  CHECK(d.cacheSources.size() == 7);
}

TEST_CASE("multi_rank_messy_input: the two rank logs; other files in a searched directory are ignored") {
  const std::string dir = kTlparse + "/multi_rank_messy_input";
  DiscoveredInputs d = discoverInputs({dir});
  checkWellFormed(d);
  CHECK(d.errors.empty());
  CHECK(d.traceLogs == std::vector<std::string>{dir + "/dedicated_log_torch_trace_rank_0.log",
                                                dir + "/dedicated_log_torch_trace_rank_1.log"});
  // `another.log` and `some_other_file.txt` are in no list: within a directory only trace-log names count.
  std::vector<std::string> paths = allPaths(d);
  CHECK(std::none_of(paths.begin(), paths.end(), [](const std::string &p) {
    return p.find("another.log") != std::string::npos || p.find("some_other_file.txt") != std::string::npos;
  }));
  CHECK(d.compiles.empty());
  CHECK(d.cacheSources.empty());
  CHECK(d.standaloneProvenance.empty());

  // Named explicitly, the same files are taken as logs whatever their names (both are empty).
  DiscoveredInputs named = discoverInputs({dir + "/another.log", dir + "/some_other_file.txt"});
  CHECK(named.traceLogs == std::vector<std::string>{dir + "/another.log", dir + "/some_other_file.txt"});
  CHECK(named.errors.empty());
}

TEST_CASE("explicitly named files: a .txt log, a provenance .json, an output code") {
  DiscoveredInputs d = discoverInputs({kTlparse + "/inductor_provenance_jit_log.txt"});
  CHECK(d.traceLogs == std::vector<std::string>{kTlparse + "/inductor_provenance_jit_log.txt"});
  CHECK(d.errors.empty());

  // A JSON file named explicitly stands alone as provenance.
  const std::string mappings =
      kMlpDebug + "/model__0_forward_1.0/inductor_provenance_tracking_node_mappings.json";
  DiscoveredInputs json = discoverInputs({mappings});
  CHECK(json.standaloneProvenance == std::vector<std::string>{mappings});
  CHECK(json.traceLogs.empty());

  // An output_code.py named alone is a compile unit with only its output code and graph name.
  DiscoveredInputs code = discoverInputs({kMlpDebug + "/model__0_forward_1.0/output_code.py"});
  REQUIRE(code.compiles.size() == 1);
  CHECK(code.compiles[0].outputCode == kMlpDebug + "/model__0_forward_1.0/output_code.py");
  CHECK(code.compiles[0].graphName == "model__0_forward_1.0");
  CHECK(code.compiles[0].graphs.empty());

  // A file of no known kind named explicitly is ignored, not an error.
  DiscoveredInputs other = discoverInputs({kTraces + "/mlp_train/model.py"});
  CHECK(allPaths(other).empty());
  CHECK(other.errors.empty());
}

TEST_CASE("a missing input is an error; the others are still discovered") {
  const std::string missing = kFixtures + "/does-not-exist";
  DiscoveredInputs d = discoverInputs({missing, kTlparse + "/multi_rank_messy_input"});
  CHECK(d.errors == std::vector<std::string>{missing + ": no such file or directory"});
  CHECK(d.traceLogs.size() == 2);
  DiscoveredInputs none = discoverInputs({});
  CHECK(allPaths(none).empty());
  CHECK(none.errors.empty());
}

TEST_CASE("inputs are normalized and each file is listed once") {
  // The same directory three ways, and a file inside it.
  const std::string dir = kTlparse + "/multi_rank_messy_input";
  DiscoveredInputs d = discoverInputs({kTlparse + "//multi_rank_messy_input/.", dir,
                                       kTlparse + "/../tlparse-inputs/multi_rank_messy_input/",
                                       dir + "/dedicated_log_torch_trace_rank_0.log"});
  checkWellFormed(d);
  CHECK(d.traceLogs == std::vector<std::string>{dir + "/dedicated_log_torch_trace_rank_0.log",
                                                dir + "/dedicated_log_torch_trace_rank_1.log"});
  // A relative input becomes absolute.
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  fs::current_path(kTlparse, ec);
  REQUIRE(!ec);
  DiscoveredInputs relative = discoverInputs({"multi_rank_messy_input"});
  fs::current_path(cwd, ec);
  CHECK(relative.traceLogs == d.traceLogs);
}

TEST_CASE("walks skip hidden, node_modules, __pycache__ and build directories, but not a named root") {
  TempTree tree({".hidden/dedicated_log_torch_trace_a.log", "node_modules/dedicated_log_torch_trace_b.log",
                 "__pycache__/dedicated_log_torch_trace_c.log", "build/dedicated_log_torch_trace_d.log",
                 "build-x/dedicated_log_torch_trace_e.log", "ok/dedicated_log_torch_trace_f.log",
                 "ok/deeper/dedicated_log_torch_trace_g.log"});
  DiscoveredInputs d = discoverInputs({tree.root});
  CHECK(d.traceLogs == std::vector<std::string>{tree.path("ok/dedicated_log_torch_trace_f.log"),
                                                tree.path("ok/deeper/dedicated_log_torch_trace_g.log")});
  // A skipped name as the input itself is walked.
  DiscoveredInputs hidden = discoverInputs({tree.path(".hidden"), tree.path("build")});
  CHECK(hidden.traceLogs == std::vector<std::string>{tree.path(".hidden/dedicated_log_torch_trace_a.log"),
                                                     tree.path("build/dedicated_log_torch_trace_d.log")});
}

TEST_CASE("directoryListed: each directory walked, before its entries are read; a file input's directory") {
  TempTree tree({"a/dedicated_log_torch_trace_x.log", "a/b/output_code.py", "node_modules/c/x.txt",
                 "file/dedicated_log_torch_trace_y.log"});
  std::vector<std::pair<std::string, bool>> listed;
  // A log created in each directory as it is told: discovery must list it (it reads the directory after).
  DiscoveredInputs d = discoverInputs({tree.root, tree.path("file/dedicated_log_torch_trace_y.log")}, 200000,
                                      nullptr, [&](const std::string &dir, bool recursive) {
                                        listed.emplace_back(dir, recursive);
                                        if (recursive)
                                          std::ofstream(dir + "/dedicated_log_torch_trace_new.log") << "\n";
                                      });
  std::vector<std::pair<std::string, bool>> want = {{tree.root, true},
                                                    {tree.path("a"), true},
                                                    {tree.path("a/b"), true},
                                                    {tree.path("file"), true},
                                                    {tree.path("file"), false}};
  std::sort(listed.begin(), listed.end());
  std::sort(want.begin(), want.end());
  CHECK(listed == want); // Never node_modules (skipped), nor below it.
  for (const std::string &dir : {tree.root, tree.path("a"), tree.path("a/b"), tree.path("file")})
    CHECK(std::count(d.traceLogs.begin(), d.traceLogs.end(), dir + "/dedicated_log_torch_trace_new.log") ==
          1);
}

TEST_CASE("provenance outside a graph directory, and a graph directory without output code") {
  TempTree tree({"g/fx_graph_readable.py", "g/inductor_provenance_tracking_node_mappings.json",
                 "loose/inductor_provenance_tracking_kernel_stack_traces_1.json",
                 "loose/kernel_information.json", "w/x.wrapper.cpp", "w/kernel_information.json",
                 "cache/cabcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop.py", "cache/cshort.py"});
  DiscoveredInputs d = discoverInputs({tree.root});
  // `g/` has graphs but no output code: not a compile; its provenance stands alone.
  REQUIRE(d.compiles.size() == 1);
  CHECK(d.compiles[0].outputCode == tree.path("w/x.wrapper.cpp"));
  CHECK(d.compiles[0].kernelInformation == tree.path("w/kernel_information.json"));
  std::vector<std::string> standalone = d.standaloneProvenance;
  std::sort(standalone.begin(), standalone.end());
  CHECK(standalone ==
        std::vector<std::string>{tree.path("g/inductor_provenance_tracking_node_mappings.json"),
                                 tree.path("loose/inductor_provenance_tracking_kernel_stack_traces_1.json"),
                                 tree.path("loose/kernel_information.json")});
  // Only names shaped like a cache hash are cache sources.
  CHECK(d.cacheSources == std::vector<std::string>{
                              tree.path("cache/cabcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop.py")});
}

TEST_CASE("symbolic links: followed into the roots only, directories never walked, each file listed once") {
  // Findings 4 and 7 of issue 11: `output_code.py -> /etc/passwd` was read; a directory reached through a
  // link (or named twice) was indexed twice.
  TempTree tree({"real/dedicated_log_torch_trace_a.log", "real/g/output_code.py"});
  TempTree outside({"dedicated_log_torch_trace_secret.log", "secret.py"});
  fs::create_symlink(outside.path("secret.py"), tree.path("real/g/fx_graph_readable.py"));
  fs::create_symlink(outside.path("dedicated_log_torch_trace_secret.log"),
                     tree.path("real/dedicated_log_torch_trace_link.log"));
  fs::create_symlink(outside.root, tree.path("outside_dir"));
  fs::create_symlink(tree.path("real"), tree.path("latest"));
  fs::create_symlink(tree.path("real/dedicated_log_torch_trace_a.log"),
                     tree.path("dedicated_log_torch_trace_z.log"));
  ReadPolicy policy({tree.root});

  DiscoveredInputs d = discoverInputs({tree.root}, 200000, &policy);
  CHECK(d.traceLogs == std::vector<std::string>{tree.path("real/dedicated_log_torch_trace_a.log")});
  REQUIRE(d.compiles.size() == 1);
  CHECK(d.compiles[0].graphs.empty());
  // The three links out of the roots are reported, not read.
  std::vector<std::string> notes;
  for (const auto &n : d.notes)
    notes.push_back(n.path);
  std::sort(notes.begin(), notes.end());
  CHECK(notes == std::vector<std::string>{tree.path("outside_dir"),
                                          tree.path("real/dedicated_log_torch_trace_link.log"),
                                          tree.path("real/g/fx_graph_readable.py")});

  // The same directory named twice, once through a link: one copy of each file.
  DiscoveredInputs twice = discoverInputs({tree.path("real"), tree.path("latest")}, 200000, &policy);
  CHECK(twice.traceLogs.size() == 1);
  CHECK(twice.compiles.size() == 1);

  // Without a policy, no link is followed.
  DiscoveredInputs none = discoverInputs({tree.root});
  CHECK(none.traceLogs == std::vector<std::string>{tree.path("real/dedicated_log_torch_trace_a.log")});
}

TEST_CASE("the file cap is reported, not silent") {
  // Finding 7 of issue 11: a workspace of `/` stopped at 200,000 files without a word.
  TempTree tree({"a/1.txt", "a/2.txt", "a/3.txt", "b/dedicated_log_torch_trace_x.log"});
  DiscoveredInputs d = discoverInputs({tree.root}, 2);
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].path == tree.root);
  CHECK(d.notes[0].message.find("stopped looking for traces after 2 files and directories") !=
        std::string::npos);
  CHECK(discoverInputs({tree.root}, 10).notes.empty());
}

TEST_CASE("directories count toward the file cap (issue 33)") {
  // Finding 7 of issue 33: a tree of empty directories was walked without limit, only files were counted.
  TempTree tree(std::vector<std::string>{});
  for (int i = 0; i < 5; ++i)
    fs::create_directories(tree.path("empty" + std::to_string(i)));
  DiscoveredInputs d = discoverInputs({tree.root}, 3);
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].message.find("stopped looking for traces after 3 files and directories") !=
        std::string::npos);
  CHECK(discoverInputs({tree.root}, 5).notes.empty());
}

TEST_CASE("the walk stops kMaxWalkDepth levels below an input, and says so (issue 33)") {
  // Finding 7 of issue 33: 6,000 nested directories cost 3.8 GB (an open directory and a path per level).
  TempTree tree(std::vector<std::string>{});
  std::string deep = tree.root, shallow;
  for (size_t level = 1; level <= kMaxWalkDepth + 6; ++level) {
    deep += "/d";
    if (level == kMaxWalkDepth - 1) shallow = deep;
  }
  fs::create_directories(deep);
  std::ofstream(shallow + "/dedicated_log_torch_trace_shallow.log") << "x\n"; // kMaxWalkDepth levels down.
  std::ofstream(deep + "/dedicated_log_torch_trace_deep.log") << "x\n";
  DiscoveredInputs d = discoverInputs({tree.root});
  CHECK(d.traceLogs == std::vector<std::string>{shallow + "/dedicated_log_torch_trace_shallow.log"});
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].path == shallow + "/d");
  CHECK(d.notes[0].message.find("more than " + std::to_string(kMaxWalkDepth) + " levels below") !=
        std::string::npos);
  // A smaller cap, as a parameter.
  DiscoveredInputs capped = discoverInputs({tree.root}, 200000, nullptr, {}, 3);
  CHECK(capped.traceLogs.empty());
  REQUIRE(capped.notes.size() == 1);
  CHECK(capped.notes[0].path == tree.root + "/d/d/d");
}

TEST_CASE("a chain of 6,000 nested directories is walked to the depth cap only (issue 33)") {
  // Made level by level relative to the last one (mkdirat): the full path is longer than PATH_MAX.
  TempTree tree(std::vector<std::string>{});
  constexpr int kLevels = 6000;
  std::vector<int> fds{::open(tree.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  REQUIRE(fds.back() >= 0);
  for (int i = 0; i < kLevels; ++i) {
    REQUIRE(::mkdirat(fds.back(), "d", 0700) == 0);
    int next = ::openat(fds.back(), "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(next >= 0);
    fds.push_back(next);
  }
  DiscoveredInputs d = discoverInputs({tree.root});
  CHECK(d.traceLogs.empty());
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].message.find("levels below") != std::string::npos);
  // Removed from the bottom up, relative again (fs::remove_all would meet ENAMETOOLONG).
  for (size_t i = fds.size() - 1; i > 0; --i) {
    ::close(fds[i]);
    CHECK(::unlinkat(fds[i - 1], "d", AT_REMOVEDIR) == 0);
  }
  ::close(fds[0]);
}

TEST_CASE("an input that is a FIFO is reported as such, never opened (issue 33)") {
  TempTree tree({"trace/dedicated_log_torch_trace_a.log"});
  std::string fifo = tree.path("trace/dedicated_log_torch_trace_fifo.log");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  DiscoveredInputs d = discoverInputs({fifo, tree.path("trace")});
  REQUIRE(d.errors.size() == 1);
  CHECK(d.errors[0] == fifo + ": not read: not a regular file or directory (a FIFO)");
  // Found by the walk, it is not taken either.
  CHECK(d.traceLogs == std::vector<std::string>{tree.path("trace/dedicated_log_torch_trace_a.log")});
}
