// Tests of index/files/TritonCache.h: finding the entries of kernel_ir's Triton cache, their metadata
// (against the JSON read by the test itself), the autotuner's choice, the join, and the cubin's resources.
#include "index/files/TritonCache.h"
#include "index/model/Index.h"
#include "index/model/TritonQueries.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <stdlib.h>
#include <thread>

using namespace inductor::index;
using inductor::test::peakRss;
using inductor::test::readFile;
using inductor::test::TempDir;

namespace {

const std::filesystem::path kCase = std::filesystem::path(INDUCTOR_FIXTURES_DIR) / "traces/kernel_ir";

std::string canonicalPath(const std::filesystem::path &p) {
  return std::filesystem::canonical(p).string();
}

/// The number after `"key": ` in a JSON text, by the test's own regex.
std::optional<long> jsonNumber(const std::string &text, const std::string &key) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("\"" + key + "\": (\\d+)"))) return std::stol(m[1]);
  return std::nullopt;
}

TritonCache fixtureCache() {
  std::string root = canonicalPath(kCase);
  ReadPolicy policy(std::vector<std::string>{root});
  // The Inductor cache's kernel files are here under the same names as recorded under /tmp/work/kernel_ir.
  auto resolve = [root](std::string_view recorded) -> std::string {
    const std::string prefix = "/tmp/work/kernel_ir";
    if (recorded.rfind(prefix, 0) != 0) return "";
    return root + std::string(recorded.substr(prefix.size()));
  };
  return findTritonCache({}, {root + "/inductor_cache/triton"}, policy, resolve);
}

} // namespace

TEST_CASE("TritonCache: metadata JSON and best_config parsing") {
  auto m = parseTritonMetadata(R"({"hash": "x", "target": {"backend": "cuda", "arch": 90, "warp_size": 32},
    "num_warps": 8, "num_ctas": 1, "num_stages": 3, "shared": 1024, "name": "k", "triton_version": "3.6.0"})");
  REQUIRE(m);
  CHECK(m->name == "k");
  CHECK(m->numWarps == 8u);
  CHECK(m->numStages == 3u);
  CHECK(m->sharedBytes == 1024u);
  CHECK(m->arch == "90");
  CHECK_FALSE(parseTritonMetadata(R"({"num_warps": 4})"));
  CHECK_FALSE(parseTritonMetadata("[1]"));
  CHECK_FALSE(parseTritonMetadata(R"({"name": "k", )"));
  auto b = parseBestConfig(R"({"XBLOCK": 1024, "num_warps": 4, "num_stages": 1, "configs_hash": "ab",
    "found_by_coordesc": false, "time_taken_ms": 20, "triton_cache_hash": "HASH"})");
  REQUIRE(b);
  CHECK(b->tritonCacheHash == "HASH");
  REQUIRE(b->values.size() == 3);
  CHECK(b->values[0] == std::pair<std::string, int64_t>{"XBLOCK", 1024});
}

TEST_CASE("TritonCache: hash names") {
  CHECK(isTritonHashName("RW5YFMZOX5GM4FCDKUWGTBPTW7W6WJBNBD2ELN4K5XSNO25XGEVQ"));
  CHECK(isTritonHashName("0123456789abcdef0123456789abcdef"));
  CHECK_FALSE(isTritonHashName("RW5YFMZOX5GM4FCDKUWGTBPTW7W6WJBNBD2ELN4K5XSNO25XGEV1"));
  CHECK_FALSE(isTritonHashName("triton"));
  TritonCacheCollector c;
  c("/a/triton");
  c("/a/triton/0");
  c("/a/triton/0/RW5YFMZOX5GM4FCDKUWGTBPTW7W6WJBNBD2ELN4K5XSNO25XGEVQ");
  CHECK(c.roots == std::vector<std::string>{"/a/triton"});
  CHECK(c.entryDirs.size() == 1);
}

TEST_CASE("TritonCache: every entry of kernel_ir, its metadata equal to the JSON") {
  TritonCache cache = fixtureCache();
  size_t dirs = 0;
  for (auto &d : std::filesystem::directory_iterator(kCase / "inductor_cache/triton/0")) {
    (void)d;
    ++dirs;
  }
  REQUIRE(cache.entries.size() == dirs);
  CHECK(cache.notes.empty());
  for (const TritonCacheEntry &e : cache.entries) {
    INFO(e.dir);
    CHECK(e.rank == 0);
    std::string json = readFile(e.metadataPath);
    CHECK(json.find("\"name\": \"" + e.metadata.name + "\"") != std::string::npos);
    CHECK(e.metadata.numWarps == jsonNumber(json, "num_warps"));
    CHECK(e.metadata.numStages == jsonNumber(json, "num_stages"));
    CHECK(e.metadata.sharedBytes == jsonNumber(json, "shared"));
    for (size_t s = 0; s < kTritonStages; ++s) {
      std::string want = e.dir + "/" + e.metadata.name + "." + std::string(tritonStageName(TritonStage(s)));
      CHECK(e.files[s] == want);
    }
    // The kernel file its IR names: the first `loc("...":` of its `.source`, as the test reads it.
    std::smatch m;
    std::string source = readFile(e.files[0]);
    REQUIRE(std::regex_search(source, m, std::regex("loc\\(\"([^\"]+)\":")));
    CHECK(e.recordedKernelFile == m[1].str());
  }
}

TEST_CASE("TritonCache: autotuned kernels join to the entry the .best_config names") {
  TritonCache cache = fixtureCache();
  size_t configs = 0;
  for (auto &f : std::filesystem::recursive_directory_iterator(kCase / "inductor_cache")) {
    if (f.path().extension() != ".best_config") continue;
    ++configs;
    std::smatch m;
    std::string text = readFile(f.path());
    REQUIRE(std::regex_search(text, m, std::regex("\"triton_cache_hash\": \"([A-Z0-9]+)\"")));
    std::string hash = m[1];
    auto it = std::find_if(cache.entries.begin(), cache.entries.end(),
                           [&](const TritonCacheEntry &e) { return e.hash == hash; });
    REQUIRE(it != cache.entries.end());
    REQUIRE(it->bestConfig);
    CHECK(it->bestConfig->path == canonicalPath(f.path()));
    // Several entries compiled the same source (one per config): the join picks the chosen one.
    std::vector<uint32_t> named = cache.entriesNamed(it->metadata.name);
    CHECK(named.size() >= 2);
    TritonJoin j = joinTritonKernel(cache, it->metadata.name, it->recordedKernelFile, 0);
    CHECK(j.status == TritonJoin::Status::Joined);
    REQUIRE(j.entries.size() == 1);
    CHECK(cache.entries[j.entries[0]].hash == hash);
    CHECK(j.how == "kernel file, autotuned");
  }
  CHECK(configs == 2);
}

TEST_CASE("TritonCache: a .best_config chooses among the entries of the kernel file it sits beside") {
  // Four ranks' caches hold entries of the same two names (a cache key does not hash the device), but each
  // rank's kernel file names its device, so each rank autotuned its own copy: rank 0 chose one config, rank 1
  // the other (fsdp_ranks). Ranks 2 and 3 share one kernel file (DDP: kernel_ranks), so its one .best_config
  // chooses for both.
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "inductor-triton-best-XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  auto write = [](const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  const std::string h1(52, 'A'), h2(52, 'B');
  const std::map<int, std::string> fileOfRank = {
      {0, "c0/c0aaaa.py"}, {1, "c1/c1bbbb.py"}, {2, "c2/c2cccc.py"}, {3, "c2/c2cccc.py"}};
  for (const auto &[rank, file] : fileOfRank)
    for (const std::string &h : {h1, h2}) {
      fs::path entry = fs::path(dir) / "triton" / std::to_string(rank) / h;
      write(entry / "k.json", R"({"name": "k", "num_warps": )" + std::string(h == h1 ? "4" : "8") + "}");
      write(entry / "k.ttir", "loc(\"/remote/cache/" + file + "\":1:1)\n");
    }
  write(fs::path(dir) / "cache/c0/c0aaaa.py", "");
  write(fs::path(dir) / "cache/c0/x.best_config", R"({"XBLOCK": 256, "triton_cache_hash": ")" + h1 + "\"}");
  write(fs::path(dir) / "cache/c1/c1bbbb.py", "");
  write(fs::path(dir) / "cache/c1/y.best_config", R"({"XBLOCK": 128, "triton_cache_hash": ")" + h2 + "\"}");
  write(fs::path(dir) / "cache/c2/c2cccc.py", "");
  write(fs::path(dir) / "cache/c2/z.best_config", R"({"XBLOCK": 64, "triton_cache_hash": ")" + h1 + "\"}");
  std::string root = canonicalPath(fs::path(dir));
  ReadPolicy policy(std::vector<std::string>{root});
  auto resolve = [root](std::string_view recorded) -> std::string {
    const std::string prefix = "/remote/cache";
    return recorded.rfind(prefix, 0) == 0 ? root + "/cache" + std::string(recorded.substr(prefix.size()))
                                          : "";
  };
  TritonCache cache = findTritonCache({}, {root + "/triton"}, policy, resolve);
  REQUIRE(cache.entries.size() == 8);
  for (const auto &[rank, file] : fileOfRank) {
    const int capturedRank = rank; // clang 14 cannot capture a structured binding in CAPTURE's lambda
    CAPTURE(capturedRank);
    TritonJoin j = joinTritonKernel(cache, "k", "/remote/cache/" + file, rank);
    REQUIRE(j.status == TritonJoin::Status::Joined);
    const TritonCacheEntry &e = cache.entries[j.entries.front()];
    CHECK(e.rank == rank);
    CHECK(e.hash == (rank == 1 ? h2 : h1));
    CHECK(e.metadata.numWarps == (rank == 1 ? 8u : 4u));
    REQUIRE(e.bestConfig);
    CHECK(e.bestConfig->values.front().second == (rank == 0 ? 256 : rank == 1 ? 128 : 64));
  }
  // The entries no .best_config beside their own kernel file names are no one's choice.
  for (const TritonCacheEntry &e : cache.entries)
    CHECK((e.bestConfig != nullptr) == (e.hash == (e.rank == 1 ? h2 : h1)));
}

TEST_CASE("TritonCache: the join never guesses") {
  TritonCache cache;
  auto entry = [](std::string name, std::string file, std::string hash, std::optional<int> rank) {
    TritonCacheEntry e;
    e.metadata.name = std::move(name);
    e.recordedKernelFile = std::move(file);
    e.hash = std::move(hash);
    e.rank = rank;
    return e;
  };
  cache.entries = {entry("a", "/c/xy/cA.py", "H1", 0), entry("a", "/c/xy/cB.py", "H2", 0),
                   entry("b", "/c/xy/cC.py", "H3", 0), entry("b", "/c/xy/cC.py", "H4", 1),
                   entry("c", "", "H5", std::nullopt), entry("d", "/c/xy/cD.py", "H6", 0),
                   entry("d", "/c/xy/cD.py", "H7", 0)};
  // The source text (the kernel file's hash name) tells a recompile apart.
  TritonJoin j = joinTritonKernel(cache, "a", "/other/machine/xy/cB.py", std::nullopt);
  CHECK(j.status == TritonJoin::Status::Joined);
  CHECK(cache.entries[j.entries[0]].hash == "H2");
  CHECK(joinTritonKernel(cache, "a", "", std::nullopt).status == TritonJoin::Status::Ambiguous);
  CHECK(joinTritonKernel(cache, "a", "/c/xy/cZ.py", std::nullopt).status == TritonJoin::Status::NoEntry);
  // Ranks: the kernel's own rank's entry.
  j = joinTritonKernel(cache, "b", "/c/xy/cC.py", 1);
  CHECK(j.status == TritonJoin::Status::Joined);
  CHECK(cache.entries[j.entries[0]].hash == "H4");
  CHECK(joinTritonKernel(cache, "b", "/c/xy/cC.py", std::nullopt).status == TritonJoin::Status::Ambiguous);
  // By name only when one entry names no file.
  j = joinTritonKernel(cache, "c", "/c/xy/cQ.py", std::nullopt);
  CHECK(j.status == TritonJoin::Status::Joined);
  CHECK(j.how == "name");
  // Two configs, no autotuner's record: ambiguous, both listed.
  j = joinTritonKernel(cache, "d", "/c/xy/cD.py", 0);
  CHECK(j.status == TritonJoin::Status::Ambiguous);
  CHECK(j.entries.size() == 2);
  CHECK(joinTritonKernel(cache, "zz", "", std::nullopt).status == TritonJoin::Status::NoEntry);
  // An entry whose metadata could not be read: the kernel says why it has none.
  cache.unread.push_back(
      {"/c/triton/0/H9", "H9", "zz", "", "Triton metadata: not a metadata object with a kernel name", ""});
  cache.unread.push_back({"/c/triton/0/H8", "H8", "zzz", "", "Triton metadata: other", ""});
  j = joinTritonKernel(cache, "zz", "", std::nullopt);
  CHECK(j.status == TritonJoin::Status::NoEntry);
  CHECK(j.how == "its Triton cache entry could not be read (Triton metadata: not a metadata object with a "
                 "kernel name)");
}

TEST_CASE("TritonCache: an index reads its Triton cache on first use, not while it is built") {
  // A copy of kernel_ir (trace and Inductor cache) whose entries change after the build: what the index
  // serves is what the files hold when the cache is first asked for.
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "inductor-triton-lazy-XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};
  fs::copy(kCase / "trace", dir + "/trace", fs::copy_options::recursive);
  fs::copy(kCase / "inductor_cache", dir + "/inductor_cache", fs::copy_options::recursive);
  IndexOptions options;
  options.inputs = {dir};
  auto index = Index::build(options);
  REQUIRE(index);
  // Every entry's metadata now says 7 warps, which no kernel of the fixture has.
  size_t rewritten = 0;
  for (auto &e : fs::directory_iterator(dir + "/inductor_cache/triton/0"))
    for (auto &f : fs::directory_iterator(e.path())) {
      std::string name = f.path().filename().string();
      if (f.path().extension() != ".json" || name.rfind("__grp__", 0) == 0) continue;
      std::string text = readFile(f.path());
      REQUIRE(std::regex_search(text, std::regex("\"num_warps\": \\d+")));
      CHECK(jsonNumber(text, "num_warps") != 7);
      std::ofstream(f.path(), std::ios::trunc)
          << std::regex_replace(text, std::regex("\"num_warps\": \\d+"), "\"num_warps\": 7");
      ++rewritten;
    }
  REQUIRE(rewritten > 0);
  const TritonCache &cache = index->tritonCache();
  CHECK(cache.entries.size() == rewritten);
  for (const TritonCacheEntry &e : cache.entries)
    CHECK(e.metadata.numWarps == 7u);
  CHECK(&index->tritonCache() == &cache); // Read once, then kept.
}

TEST_CASE("TritonQueries: an IR file is parsed once per version, and requests asking at once share it") {
  // Before: every request (definition, inlay hints, document symbols, up to 4 at once) read and parsed the
  // file again: four definitions on a 32 MiB .ptx of newlines held 3.7 GB.
  namespace fs = std::filesystem;
  TempDir dir("triton-parse-once");
  fs::copy(kCase / "trace", dir.path + "/trace", fs::copy_options::recursive);
  fs::copy(kCase / "inductor_cache", dir.path + "/inductor_cache", fs::copy_options::recursive);
  for (auto &f : fs::recursive_directory_iterator(dir.path))
    fs::permissions(f.path(), fs::perms::owner_write, fs::perm_options::add);
  IndexOptions options;
  options.inputs = {dir.path};
  auto index = Index::build(options);
  REQUIRE(index);
  const TritonCache &cache = index->tritonCache();
  REQUIRE(!cache.entries.empty());
  const TritonCacheEntry &e = cache.entries.front();
  const std::string &ptx = e.files[static_cast<size_t>(TritonStage::Ptx)];
  auto first = readTritonIr(*index, e, TritonStage::Ptx);
  REQUIRE(first);
  auto again = readTritonIr(*index, e, TritonStage::Ptx);
  REQUIRE(again);
  CHECK(first->get() == again->get()); // Kept, not parsed again.
  // Another version of the file (longer): parsed again.
  std::ofstream(ptx, std::ios::app) << "// one more line\n";
  auto changed = readTritonIr(*index, e, TritonStage::Ptx);
  REQUIRE(changed);
  CHECK(changed->get() != first->get());
  CHECK((*changed)->lineCount == (*first)->lineCount + 1);
  // 16 MiB of newlines asked for by four requests at once: one parse, nothing kept per line.
  std::ofstream(ptx, std::ios::trunc) << std::string(size_t{16} << 20, '\n');
  std::vector<std::shared_ptr<const IrLineMap>> got(4);
  uint64_t before = peakRss(true);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] {
      auto m = readTritonIr(*index, e, TritonStage::Ptx);
      if (m) got[i] = *m;
    });
  for (std::thread &t : threads)
    t.join();
  uint64_t grew = peakRss(false) - before;
  for (const auto &m : got) {
    REQUIRE(m);
    CHECK(m.get() == got[0].get());
    CHECK(m->code.empty());
  }
  CHECK(grew < (uint64_t{48} << 20));
  MESSAGE("peak RSS grew by ", grew >> 20, " MiB for four requests on a 16 MiB .ptx of newlines");
  // A file past IrLimits is refused, saying which limit.
  std::string files;
  for (int i = 0; i < 5000; ++i)
    files += "\t.file\t" + std::to_string(i) + " \"f" + std::to_string(i) + ".py\"\n";
  std::ofstream(ptx, std::ios::trunc) << files;
  auto refused = readTritonIr(*index, e, TritonStage::Ptx);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == ptx + " not read: more than 4,096 .file directives");
  // Over kTritonFileBytes (sparse): refused before it is read.
  fs::resize_file(ptx, kTritonFileBytes + 1);
  auto huge = readTritonIr(*index, e, TritonStage::Ptx);
  REQUIRE_FALSE(huge);
  CHECK(huge.error().message.find("over the limit of 64 MB: not read") != std::string::npos);
}

TEST_CASE("TritonCache: cubin resources from .nv.info") {
  TritonCache cache = fixtureCache();
  for (const TritonCacheEntry &e : cache.entries) {
    INFO(e.dir);
    std::string elf = readFile(e.files[static_cast<size_t>(TritonStage::Cubin)]);
    CubinResources r = readCubinResources(elf, e.metadata.name);
    REQUIRE(r.registers);
    CHECK(*r.registers >= 1);
    CHECK(*r.registers <= 255);
    CHECK(r.spills() == 0u);
    CHECK_FALSE(readCubinResources(elf, "no_such_kernel").registers);
    // Truncated or damaged bytes: nothing read outside them, no crash.
    for (size_t cut : {size_t{0}, size_t{16}, size_t{64}, elf.size() / 2, elf.size() - 1})
      (void)readCubinResources(std::string_view(elf).substr(0, cut), e.metadata.name);
    std::string damaged = elf;
    for (size_t i = 0x28; i < damaged.size(); i += 97)
      damaged[i] = static_cast<char>(0xff);
    (void)readCubinResources(damaged, e.metadata.name);
  }
}

TEST_CASE("TritonCache: a hand-made ELF with REGCOUNT and FRAME_SIZE") {
  // Sections: null, .shstrtab, .strtab, .symtab (2 symbols), .nv.info.
  std::string shstr = std::string("\0.shstrtab\0.strtab\0.symtab\0.nv.info\0\0", 37);
  std::string str = std::string("\0k\0", 3);
  std::string sym(48, '\0');
  uint32_t nameK = 1;
  std::memcpy(&sym[24], &nameK, 4);
  std::string info;
  auto attr = [&](uint8_t a, uint32_t symbol, uint32_t value) {
    info += char(4);
    info += char(a);
    uint16_t size = 8;
    info.append(reinterpret_cast<const char *>(&size), 2);
    info.append(reinterpret_cast<const char *>(&symbol), 4);
    info.append(reinterpret_cast<const char *>(&value), 4);
  };
  info += char(1); // An NVAL attribute first.
  info += char(0x04);
  attr(0x2f, 0, 99); // Another symbol's.
  attr(0x2f, 1, 40); // k: 40 registers.
  attr(0x11, 1, 16); // k: 16 bytes of frame.
  std::string elf(64, '\0');
  elf[0] = 0x7f;
  elf[1] = 'E';
  elf[2] = 'L';
  elf[3] = 'F';
  elf[4] = 2;
  elf[5] = 1;
  std::vector<std::pair<size_t, size_t>> at;
  for (const std::string *s : {&shstr, &str, &sym, &info}) {
    at.emplace_back(elf.size(), s->size());
    elf += *s;
  }
  uint64_t shoff = elf.size();
  std::memcpy(&elf[0x28], &shoff, 8);
  uint16_t shentsize = 64, shnum = 5, shstrndx = 1;
  std::memcpy(&elf[0x3a], &shentsize, 2);
  std::memcpy(&elf[0x3c], &shnum, 2);
  std::memcpy(&elf[0x3e], &shstrndx, 2);
  auto header = [&](uint32_t name, uint32_t type, uint32_t link, std::pair<size_t, size_t> where,
                    uint64_t entsize) {
    std::string h(64, '\0');
    uint64_t off = where.first, size = where.second;
    std::memcpy(&h[0], &name, 4);
    std::memcpy(&h[4], &type, 4);
    std::memcpy(&h[24], &off, 8);
    std::memcpy(&h[32], &size, 8);
    std::memcpy(&h[40], &link, 4);
    std::memcpy(&h[56], &entsize, 8);
    elf += h;
  };
  header(0, 0, 0, {0, 0}, 0);
  header(1, 3, 0, at[0], 0);
  header(11, 3, 0, at[1], 0);
  header(19, 2, 2, at[2], 24);
  header(27, 0x70000000, 0, at[3], 0);
  CubinResources r = readCubinResources(elf, "k");
  CHECK(r.registers == 40u);
  CHECK(r.frameBytes == 16u);
  CHECK(r.spills() == 4u);
  CHECK_FALSE(readCubinResources(elf, "j").registers);
}

// Issue 43: a Triton cache is outside input, read by requests editors send by themselves (hovers). What an
// entry keeps is bounded, shared values are shared, heads are read as heads, the cubin reader is linear, and
// no kernel joins another config's entry for want of its own.

namespace {

/// A Triton cache key (52 characters of base32) made from `n`.
std::string hashName(size_t n) {
  std::string h(52, 'A');
  for (size_t i = 0; i < 8; ++i, n /= 32)
    h[51 - i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[n % 32];
  return h;
}

/// Seconds `f` takes.
template <typename F> double secondsOf(F &&f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A cache under `root`: `triton/<rank>/<hash>/NAME.{json,ptx,source}` whose source's first location names
/// `/rec/xy/<kernelFile>`; `json` is the metadata text.
void writeEntry(const TempDir &root, int rank, const std::string &hash, const std::string &name,
                const std::string &json, const std::string &kernelFile) {
  std::string dir = "triton/" + std::to_string(rank) + "/" + hash + "/";
  root.write(dir + name + ".json", json);
  root.write(dir + name + ".ptx", "// ptx\n");
  root.write(dir + name + ".source", "#loc = loc(\"/rec/xy/" + kernelFile + "\":18:0)\nmodule {\n}\n");
}

std::string metadata(const std::string &name, int warps) {
  return R"({"name": ")" + name + R"(", "num_warps": )" + std::to_string(warps) + R"(, "num_stages": 1})";
}

TritonCache readCache(const TempDir &root) {
  ReadPolicy policy(std::vector<std::string>{root.path});
  auto resolve = [&](std::string_view recorded) -> std::string {
    if (recorded.rfind("/rec/", 0) != 0) return "";
    return root.path + "/" + std::string(recorded.substr(5));
  };
  return findTritonCache({}, {root.path + "/triton"}, policy, resolve);
}

} // namespace

TEST_CASE("TritonCache: a metadata string over 4 KB makes the entry unreadable, and its kernel says so") {
  // Before: a 1 MB name was kept whole by every entry sharing the file (4,000 entries: 3.8 GB).
  CHECK(parseTritonMetadata(R"({"name": ")" + std::string(5000, 'k') + R"("})").error().message ==
        "its name is longer than 4 KB");
  CHECK(parseTritonMetadata(R"({"name": "k", "triton_version": ")" + std::string(5000, '3') + R"("})")
            .error()
            .message == "its triton_version is longer than 4 KB");
  CHECK(parseTritonMetadata(R"({"name": "k", "target": {"arch": ")" + std::string(5000, '9') + R"("}})")
            .error()
            .message == "its target.arch is longer than 4 KB");
  CHECK(parseTritonMetadata(R"({"name": ")" + std::string(4096, 'k') + R"("})"));
  TempDir root("triton-long-name");
  writeEntry(root, 0, hashName(1), "k", R"({"name": ")" + std::string(1000000, 'k') + R"("})", "cK.py");
  writeEntry(root, 0, hashName(2), "j", metadata("j", 4), "cJ.py");
  TritonCache cache = readCache(root);
  REQUIRE(cache.entries.size() == 1);
  CHECK(cache.entries[0].metadata.name == "j");
  REQUIRE(cache.unread.size() == 1);
  CHECK(cache.unread[0].name == "k");
  CHECK(cache.unread[0].message == "Triton metadata: its name is longer than 4 KB");
  TritonJoin j = joinTritonKernel(cache, "k", "/rec/xy/cK.py", 0);
  CHECK(j.status == TritonJoin::Status::NoEntry);
  CHECK(j.how == "its Triton cache entry could not be read (Triton metadata: its name is longer than 4 KB)");
}

TEST_CASE("TritonCache: one .best_config is kept once for the entries of its hash, and bounded") {
  // Before: its values were copied into every entry of its hash (a 64 KB config over 9,999 rank folders:
  // 2.0 GB).
  TempDir root("triton-best-config");
  const std::string h = hashName(7);
  for (int rank = 0; rank < 3; ++rank)
    writeEntry(root, rank, h, "k", metadata("k", 4), "cK.py");
  writeEntry(root, 0, hashName(8), "k", metadata("k", 8), "cK.py");
  root.write("xy/cK.py", "# kernel\n");
  root.write("xy/a.best_config", R"({"XBLOCK": 1024, "num_warps": 4, "triton_cache_hash": ")" + h + R"("})");
  std::string many = "{";
  for (int i = 0; i < 100; ++i)
    many += "\"K" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  root.write("xy/b.best_config", many + R"("triton_cache_hash": ")" + hashName(8) + R"("})");
  TritonCache cache = readCache(root);
  std::vector<const TritonCacheEntry *> chosen;
  for (const TritonCacheEntry &e : cache.entries)
    if (e.hash == h) chosen.push_back(&e);
  REQUIRE(chosen.size() == 3);
  for (const TritonCacheEntry *e : chosen) {
    REQUIRE(e->bestConfig);
    CHECK(&*e->bestConfig == &*chosen[0]->bestConfig); // One object, not a copy per rank.
    CHECK(e->bestConfig->values.size() == 2);
  }
  // A config of 100 members is no config the autotuner writes (about 6): refused, and said.
  auto other = std::find_if(cache.entries.begin(), cache.entries.end(),
                            [&](const TritonCacheEntry &e) { return e.hash == hashName(8); });
  REQUIRE(other != cache.entries.end());
  CHECK_FALSE(other->bestConfig);
  bool said = false;
  for (const TritonCache::Note &n : cache.notes)
    said |= n.path == root.path + "/xy/b.best_config" &&
            n.message == "autotuner's .best_config: more than 64 integer members";
  CHECK(said);
  CHECK(parseBestConfig(R"({")" + std::string(300, 'K') + R"(": 1})").error().message ==
        "a member name is longer than 256 bytes");
}

TEST_CASE("TritonCache: when the autotuner's winner cannot be read, its kernel joins no other config") {
  // Two configs of one kernel source: the winner's metadata is unreadable, the loser's (8 warps) is fine.
  // Before: the loser was the only candidate and joined, silently (num_warps 8 instead of 4).
  TempDir root("triton-winner");
  const std::string winner = hashName(1), loser = hashName(2);
  writeEntry(root, 0, winner, "k", "{not json", "cK.py");
  writeEntry(root, 0, loser, "k", metadata("k", 8), "cK.py");
  root.write("xy/cK.py", "# kernel\n");
  root.write("xy/k.best_config",
             R"({"XBLOCK": 64, "num_warps": 4, "triton_cache_hash": ")" + winner + R"("})");
  TritonCache cache = readCache(root);
  REQUIRE(cache.entries.size() == 1);
  REQUIRE(cache.unread.size() == 1);
  CHECK(cache.unread[0].chosenBy == root.path + "/xy/k.best_config");
  TritonJoin j = joinTritonKernel(cache, "k", "/rec/xy/cK.py", 0);
  CHECK(j.status == TritonJoin::Status::NoEntry);
  CHECK(j.entries.empty());
  CHECK(j.how ==
        "the autotuner chose its Triton cache entry " + winner +
            " (k.best_config), which could not be read (Triton metadata: not a metadata object with a "
            "kernel name); the 1 read compiled other configs");
  // Without the autotuner's record, the one entry read is the kernel's, as before.
  std::filesystem::remove(root.path + "/xy/k.best_config");
  TritonCache plain = readCache(root);
  j = joinTritonKernel(plain, "k", "/rec/xy/cK.py", 0);
  CHECK(j.status == TritonJoin::Status::Joined);
  CHECK(plain.entries[j.entries[0]].hash == loser);
}

TEST_CASE("TritonCache: the first read takes each IR file's head, whatever the file's size") {
  // 100 entries whose .source, .ttir and .ttgir hard-link one sparse 63 MiB file (no disk): before, each was
  // read whole for its first 4 KB (200 entries: 53 s before the first Triton hover).
  TempDir root("triton-heads");
  const std::string big = root.path + "/big";
  {
    std::ofstream(big) << "";
    std::filesystem::resize_file(big, size_t{63} << 20);
  }
  for (size_t i = 0; i < 100; ++i) {
    std::string name = "k" + std::to_string(i);
    std::string stem = "triton/0/" + hashName(i) + "/" + name;
    root.write(stem + ".json", metadata(name, 4));
    root.write(stem + ".ptx", "// ptx\n");
    for (const char *ext : {".source", ".ttir", ".ttgir"})
      std::filesystem::create_hard_link(big, root.path + "/" + stem + ext);
  }
  TritonCache cache;
  uint64_t before = peakRss(true);
  double seconds = secondsOf([&] { cache = readCache(root); });
  uint64_t grew = peakRss(false) - before;
  CHECK(cache.entries.size() == 100);
  CHECK_MESSAGE(seconds < 3.0, "findTritonCache took " << seconds << " s");
  CHECK(grew < (uint64_t{32} << 20));
  MESSAGE("peak RSS grew by ", grew >> 20, " MiB");
  // A head is read even of a file over any whole-file limit (100 MiB here, sparse): its first location
  // names the kernel file. Before, such a file was refused, and its entry named no kernel file.
  TempDir huge("triton-huge-head");
  writeEntry(huge, 0, hashName(3), "k", metadata("k", 4), "cK.py");
  std::string source = huge.path + "/triton/0/" + hashName(3) + "/k.source";
  std::filesystem::resize_file(source, size_t{100} << 20);
  TritonCache one = readCache(huge);
  REQUIRE(one.entries.size() == 1);
  CHECK(one.entries[0].recordedKernelFile == "/rec/xy/cK.py");
}

namespace {

/// An ELF of `shnum` section headers: null, .shstrtab, .strtab ("j", and "k" when `withKernel`), a symbol
/// table of `symbols` symbols (the first named k when `withKernel`, the others j) repeated by every header of
/// type `repeated` (SHT_SYMTAB 2, or .nv.info 0x70000000 over one attribute area of REGCOUNT records for
/// symbol 0).
std::string repeatedSectionsElf(size_t symbols, uint16_t shnum, uint32_t repeated, bool withKernel) {
  std::string shstr = std::string("\0.shstrtab\0.strtab\0.symtab\0.nv.info\0\0", 37);
  std::string str = std::string("\0j\0k\0", 5);
  std::string sym(24 * symbols, '\0');
  for (size_t i = 0; i < symbols; ++i) {
    uint32_t name = withKernel && i == 0 ? 3 : 1;
    std::memcpy(&sym[24 * i], &name, 4);
  }
  std::string info;
  for (size_t i = 0; i < symbols; ++i) {
    info += char(4);
    info += char(0x2f);
    uint16_t size = 8;
    uint32_t symbol = 0, value = 40;
    info.append(reinterpret_cast<const char *>(&size), 2);
    info.append(reinterpret_cast<const char *>(&symbol), 4);
    info.append(reinterpret_cast<const char *>(&value), 4);
  }
  std::string elf(64, '\0');
  elf[0] = 0x7f;
  elf[1] = 'E';
  elf[2] = 'L';
  elf[3] = 'F';
  elf[4] = 2;
  elf[5] = 1;
  std::vector<std::pair<size_t, size_t>> at;
  for (const std::string *s : {&shstr, &str, &sym, &info}) {
    at.emplace_back(elf.size(), s->size());
    elf += *s;
  }
  uint64_t shoff = elf.size();
  std::memcpy(&elf[0x28], &shoff, 8);
  uint16_t shentsize = 64, shstrndx = 1;
  std::memcpy(&elf[0x3a], &shentsize, 2);
  std::memcpy(&elf[0x3c], &shnum, 2);
  std::memcpy(&elf[0x3e], &shstrndx, 2);
  auto header = [&](uint32_t name, uint32_t type, uint32_t link, std::pair<size_t, size_t> where,
                    uint64_t entsize) {
    std::string h(64, '\0');
    uint64_t off = where.first, size = where.second;
    std::memcpy(&h[0], &name, 4);
    std::memcpy(&h[4], &type, 4);
    std::memcpy(&h[24], &off, 8);
    std::memcpy(&h[32], &size, 8);
    std::memcpy(&h[40], &link, 4);
    std::memcpy(&h[56], &entsize, 8);
    elf += h;
  };
  header(0, 0, 0, {0, 0}, 0);
  header(1, 3, 0, at[0], 0);
  header(11, 3, 0, at[1], 0);
  for (size_t i = 3; i < shnum; ++i) {
    if (repeated == 2 || i == 3)
      header(19, 2, 2, at[2], 24); // The symbol table, once or again and again.
    else
      header(27, 0x70000000, 0, at[3], 0); // .nv.info over the same attributes, again and again.
  }
  return elf;
}

} // namespace

TEST_CASE("TritonCache: a cubin of 65,535 symbol tables or .nv.info sections over one's bytes is read in "
          "linear time") {
  // Before: every section header's symbols were compared, every .nv.info's attributes walked (65,535 x
  // 20,000 here): 40 s per hover, 52 s per explain.
  std::string elf = repeatedSectionsElf(20000, 65535, 2, false);
  REQUIRE(elf.size() > (size_t{4} << 20));
  CubinResources r;
  double seconds = secondsOf([&] { r = readCubinResources(elf, "k"); });
  CHECK_FALSE(r.registers);
  CHECK_MESSAGE(seconds < 2.0, "readCubinResources took " << seconds << " s");
  elf = repeatedSectionsElf(20000, 65535, 0x70000000, true);
  seconds = secondsOf([&] { r = readCubinResources(elf, "k"); });
  CHECK(r.registers == 40u);
  CHECK_MESSAGE(seconds < 2.0, "readCubinResources took " << seconds << " s");
  // The same layout with each section once reads as before.
  CHECK(readCubinResources(repeatedSectionsElf(20000, 5, 0x70000000, true), "k").registers == 40u);
  CHECK_FALSE(readCubinResources(repeatedSectionsElf(20000, 5, 0x70000000, true), "j").registers);
}
