// index/files/TritonCache.cpp: finding Triton cache entries, reading their metadata, joining them to kernels;
// the cubin's resource attributes. See TritonCache.h.
#include "index/files/TritonCache.h"

#include "index/support/PathNames.h"
#include "index/trace/JsonScan.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

namespace inductor::index {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMetadataBytes = size_t{1} << 20;    // NAME.json: ~1.5 KB.
constexpr size_t kBestConfigBytes = size_t{64} << 10; // .best_config: ~300 B.
constexpr size_t kIrHeadBytes = 4096;                 // The first loc("...") is on the first line.
constexpr size_t kMaxEntries = 100000;                // Entries per build, at most.
constexpr size_t kMaxListed = 10000;                  // Names per listed directory, at most.

/// `dir/name`, built in one allocation.
std::string joinPath(std::string_view dir, std::string_view name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out.append(dir).append(1, '/').append(name);
  return out;
}

bool allDigits(std::string_view s) {
  return !s.empty() && s.size() < 6 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Names of the regular files of a directory (no links followed), at most kMaxListed.
std::vector<std::string> listFiles(const std::string &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && names.size() < kMaxListed;
       it.increment(ec)) {
    std::error_code sec;
    if (it->is_regular_file(sec) && !it->is_symlink(sec)) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> listDirs(const std::string &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && names.size() < kMaxListed;
       it.increment(ec)) {
    std::error_code sec;
    if (it->is_directory(sec) && !it->is_symlink(sec)) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// The path of the first `loc("PATH":` in an MLIR text's head.
std::string firstLocFile(std::string_view head) {
  size_t at = head.find("loc(\"");
  while (at != std::string_view::npos) {
    size_t start = at + 5, end = head.find('"', start);
    if (end == std::string_view::npos) return {};
    // A file location is followed by `:line:col`; a name location `loc("x"(#loc))` is not.
    if (end + 1 < head.size() && head[end + 1] == ':') return std::string(head.substr(start, end - start));
    at = head.find("loc(\"", end);
  }
  return {};
}

} // namespace

std::string_view tritonStageName(TritonStage stage) {
  static constexpr std::string_view kNames[] = {"source", "ttir", "ttgir", "llir", "ptx", "cubin"};
  return kNames[static_cast<size_t>(stage)];
}

std::optional<TritonStage> tritonStageOfExtension(std::string_view extension) {
  for (size_t i = 0; i < kTritonStages; ++i)
    if (tritonStageName(static_cast<TritonStage>(i)) == extension) return static_cast<TritonStage>(i);
  return std::nullopt;
}

std::optional<TritonKernelMetadata> parseTritonMetadata(std::string_view json) {
  TritonKernelMetadata m;
  std::string scratch;
  auto count = [](std::string_view raw) -> std::optional<uint32_t> {
    std::optional<double> v = json_scan::number(raw);
    if (!v || *v < 0 || *v > 4294967295.0 || *v != static_cast<double>(static_cast<uint64_t>(*v)))
      return std::nullopt;
    return static_cast<uint32_t>(*v);
  };
  bool ok = json_scan::walkObject(json, [&](std::string_view key, std::string_view raw) {
    if (key == "name") {
      if (auto s = json_scan::string(raw, scratch)) m.name = std::string(*s);
    } else if (key == "num_warps") {
      m.numWarps = count(raw);
    } else if (key == "num_stages") {
      m.numStages = count(raw);
    } else if (key == "num_ctas") {
      m.numCtas = count(raw);
    } else if (key == "shared") {
      if (auto v = count(raw)) m.sharedBytes = *v;
    } else if (key == "arch") {
      if (auto s = json_scan::string(raw, scratch)) m.arch = std::string(*s);
    } else if (key == "triton_version") {
      if (auto s = json_scan::string(raw, scratch)) m.tritonVersion = std::string(*s);
    } else if (key == "target" && m.arch.empty()) {
      json_scan::walkObject(raw, [&](std::string_view k, std::string_view v) {
        if (k == "arch") {
          if (auto n = json_scan::integer(v))
            m.arch = std::to_string(*n);
          else if (auto s = json_scan::string(v, scratch))
            m.arch = std::string(*s);
        }
      });
    }
  });
  if (!ok || m.name.empty()) return std::nullopt;
  return m;
}

std::optional<TritonBestConfig> parseBestConfig(std::string_view json) {
  TritonBestConfig c;
  std::string scratch, keyScratch;
  bool ok = json_scan::walkObject(json, [&](std::string_view key, std::string_view raw) {
    auto k = json_scan::decodeKey(key, keyScratch);
    if (!k) return;
    if (*k == "triton_cache_hash") {
      if (auto s = json_scan::string(raw, scratch)) c.tritonCacheHash = std::string(*s);
    } else if (*k != "time_taken_ms") {
      if (auto v = json_scan::integer(raw)) c.values.emplace_back(std::string(*k), *v);
    }
  });
  if (!ok) return std::nullopt;
  return c;
}

std::vector<uint32_t> TritonCache::entriesNamed(std::string_view name) const {
  auto lo =
      std::lower_bound(entries.begin(), entries.end(), name,
                       [](const TritonCacheEntry &e, std::string_view n) { return e.metadata.name < n; });
  std::vector<uint32_t> out;
  for (auto it = lo; it != entries.end() && it->metadata.name == name; ++it)
    out.push_back(static_cast<uint32_t>(it - entries.begin()));
  return out;
}

std::string TritonCache::unreadEntryOf(std::string_view name) const {
  for (const Note &n : notes) {
    std::string_view file = baseName(n.path);
    if (file.size() == name.size() + 5 && file.substr(0, name.size()) == name &&
        file.substr(name.size()) == ".json")
      return n.message;
  }
  return {};
}

TritonJoin joinTritonKernel(const TritonCache &cache, std::string_view name, std::string_view kernelFile,
                            std::optional<int> rank) {
  TritonJoin join;
  std::vector<uint32_t> named = cache.entriesNamed(name);
  if (named.empty()) {
    std::string unread = cache.unreadEntryOf(name);
    join.how = unread.empty() ? "no Triton cache entry of this kernel"
                              : "its Triton cache entry could not be read (" + unread + ")";
    return join;
  }
  std::vector<uint32_t> candidates;
  std::string_view file = baseName(kernelFile);
  if (!file.empty())
    for (uint32_t i : named)
      if (baseName(cache.entries[i].recordedKernelFile) == file) candidates.push_back(i);
  if (candidates.empty()) {
    // By name alone only when nothing could contradict it: one entry, naming no kernel file.
    if (named.size() == 1 && cache.entries[named[0]].recordedKernelFile.empty()) {
      join.status = TritonJoin::Status::Joined;
      join.entries = named;
      join.how = "name";
      return join;
    }
    join.how = file.empty() ? "the kernel's file is unknown and " + std::to_string(named.size()) +
                                  " cache entries have its name"
                            : "no cache entry compiled this kernel's source (" +
                                  std::to_string(named.size()) + " of its name compiled other sources)";
    if (file.empty() && named.size() > 1) {
      join.status = TritonJoin::Status::Ambiguous;
      join.entries = named;
    }
    return join;
  }
  join.how = "kernel file";
  // Autotuning compiles one entry per config: the winner is the one a .best_config names.
  std::vector<uint32_t> chosen;
  for (uint32_t i : candidates)
    if (cache.entries[i].bestConfig) chosen.push_back(i);
  if (!chosen.empty() && chosen.size() < candidates.size()) {
    candidates = chosen;
    join.how = "kernel file, autotuned";
  }
  if (candidates.size() > 1 && rank) {
    std::vector<uint32_t> ofRank;
    for (uint32_t i : candidates)
      if (cache.entries[i].rank == rank) ofRank.push_back(i);
    if (!ofRank.empty()) candidates = ofRank;
  }
  join.entries = candidates;
  join.status = candidates.size() == 1 ? TritonJoin::Status::Joined : TritonJoin::Status::Ambiguous;
  if (join.status == TritonJoin::Status::Ambiguous)
    join.how =
        chosen.empty()
            ? "the autotuner recorded no choice among the " + std::to_string(candidates.size()) +
                  " cache entries compiled from this kernel's source (no .best_config beside its kernel "
                  "file names one: it may never have run)"
            : std::to_string(candidates.size()) + " cache entries compiled this kernel's source and "
                                                  "nothing records which one ran";
  return join;
}

bool isTritonCacheKeyName(std::string_view name) {
  return name.size() == 52 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7');
         });
}

bool isTritonHashName(std::string_view name) {
  if (name.size() == 52) return isTritonCacheKeyName(name);
  if (name.size() == 32 || name.size() == 64)
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  return false;
}

void TritonCacheCollector::operator()(const std::string &directory) {
  std::string_view name = baseName(directory);
  if (name == "triton")
    roots.push_back(directory);
  else if (isTritonHashName(name))
    entryDirs.push_back(directory);
}

TritonCache findTritonCache(const std::vector<std::string> &entryDirs, const std::vector<std::string> &roots,
                            const ReadPolicy &policy,
                            const std::function<std::string(std::string_view)> &resolve,
                            const std::map<std::string, std::vector<std::string>> &walkedConfigs) {
  TritonCache cache;
  std::set<std::string> dirs(entryDirs.begin(), entryDirs.end());
  for (const std::string &root : roots) {
    if (!policy.allows(root)) continue;
    for (const std::string &sub : listDirs(root)) {
      std::string path = joinPath(root, sub);
      if (isTritonHashName(sub)) {
        dirs.insert(path);
      } else if (allDigits(sub)) {
        for (const std::string &h : listDirs(path))
          if (isTritonHashName(h)) dirs.insert(joinPath(path, h));
      }
      if (dirs.size() > kMaxEntries) break;
    }
  }
  for (const std::string &dir : dirs) {
    if (cache.entries.size() >= kMaxEntries) {
      cache.notes.push_back({dir, "Triton cache: more than " + std::to_string(kMaxEntries) +
                                      " entries; the rest were not read"});
      break;
    }
    // Each dir was listed by the discovery walk (which reads only inside the roots) or under an allowed root
    // (no links followed): its listed files are read without canonicalising their paths again (readListed).
    std::vector<std::string> files = listFiles(dir);
    std::set<std::string_view> names(files.begin(), files.end());
    TritonCacheEntry e;
    for (const std::string &f : files) {
      if (f.size() <= 5 || f.compare(f.size() - 5, 5, ".json") != 0 || f.rfind("__grp__", 0) == 0) continue;
      std::string stem = f.substr(0, f.size() - 5);
      if (!names.count("__grp__" + f) && !names.count(stem + ".ptx") && !names.count(stem + ".cubin") &&
          !names.count(stem + ".ttir"))
        continue;
      std::string path = joinPath(dir, f);
      auto text = policy.readListed(path, kMetadataBytes);
      if (!text) {
        cache.notes.push_back({path, "Triton metadata: " + text.error().message});
        continue;
      }
      auto meta = parseTritonMetadata(*text);
      if (!meta) {
        cache.notes.push_back({path, "Triton metadata: not a metadata object with a kernel name"});
        continue;
      }
      e.metadataPath = std::move(path);
      e.metadata = std::move(*meta);
      for (size_t s = 0; s < kTritonStages; ++s) {
        std::string file = stem + "." + std::string(tritonStageName(static_cast<TritonStage>(s)));
        if (names.count(file)) e.files[s] = joinPath(dir, file);
      }
      break;
    }
    if (e.metadataPath.empty()) continue;
    e.dir = dir;
    e.hash = std::string(baseName(dir));
    std::string_view parent = dirName(dir);
    if (allDigits(baseName(parent)) && baseName(dirName(parent)) == "triton")
      e.rank = std::stoi(std::string(baseName(parent)));
    for (TritonStage s : {TritonStage::Source, TritonStage::Ttir, TritonStage::Ttgir}) {
      const std::string &ir = e.files[static_cast<size_t>(s)];
      if (ir.empty()) continue;
      // Only the head: policy.read takes a whole file, so a file larger than the head is read through a
      // bounded prefix of its own (IR files are small, ~100 KB at most in practice).
      auto text = policy.readListed(ir, size_t{64} << 20);
      if (!text) continue;
      e.recordedKernelFile = firstLocFile(std::string_view(*text).substr(0, kIrHeadBytes));
      if (!e.recordedKernelFile.empty()) break;
    }
    cache.entries.push_back(std::move(e));
  }
  // The autotuner's choices: the .best_config files beside each kernel file, by the entry hash they name. A
  // .best_config is the choice for the kernel file it sits beside (autotune_cache.py writes it into that
  // file's directory), so it names the entries compiled from that file only: ranks that share one kernel file
  // (kernel_ranks: the same cache key in triton/0 and triton/1) share its choice, but a rank with a kernel
  // file of its own (FSDP2 on several GPUs: the source names its device) has its own, which may name another
  // config's entry (rank 0 chose one XBLOCK, ranks 1-3 another).
  std::map<std::string, std::map<std::string, TritonBestConfig>> configsByDir; // dir -> hash -> its config.
  std::vector<std::string> kernelDir(cache.entries.size());
  for (uint32_t i = 0; i < cache.entries.size(); ++i) {
    const TritonCacheEntry &e = cache.entries[i];
    if (e.recordedKernelFile.empty() || !resolve) continue;
    std::string local = resolve(e.recordedKernelFile);
    if (local.empty()) continue;
    std::string dir(dirName(local));
    kernelDir[i] = dir;
    if (configsByDir.count(dir)) continue;
    std::map<std::string, TritonBestConfig> &configs = configsByDir[dir];
    // The walk saw this directory's files already (no second listing, no canonical path of it).
    std::vector<std::string> files;
    if (auto walked = walkedConfigs.find(dir); walked != walkedConfigs.end()) {
      files = walked->second;
    } else {
      if (!policy.allows(dir)) continue;
      for (const std::string &f : listFiles(dir))
        files.push_back(joinPath(dir, f));
    }
    for (const std::string &file : files) {
      std::string_view f = file;
      if (f.size() <= 12 || f.compare(f.size() - 12, 12, ".best_config") != 0) continue;
      auto text = policy.readListed(file, kBestConfigBytes);
      if (!text) continue;
      if (auto c = parseBestConfig(*text); c && !c->tritonCacheHash.empty()) {
        c->path = file;
        std::string hash = c->tritonCacheHash;
        configs.emplace(std::move(hash), std::move(*c)); // Of two naming one hash, the first listed.
      }
    }
  }
  for (uint32_t i = 0; i < cache.entries.size(); ++i) {
    if (kernelDir[i].empty()) continue;
    const std::map<std::string, TritonBestConfig> &configs = configsByDir[kernelDir[i]];
    if (auto it = configs.find(cache.entries[i].hash); it != configs.end())
      cache.entries[i].bestConfig = it->second;
  }
  std::sort(cache.entries.begin(), cache.entries.end(),
            [](const TritonCacheEntry &a, const TritonCacheEntry &b) {
              return std::tie(a.metadata.name, a.dir) < std::tie(b.metadata.name, b.dir);
            });
  return cache;
}

// ---------------------------------------------------------------------------------------------------------
// Cubin.

namespace {

template <typename T> std::optional<T> load(std::string_view bytes, uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v; // ELF64 little-endian only (checked by the caller); the hosts here are little-endian.
}

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
};

} // namespace

CubinResources readCubinResources(std::string_view elf, std::string_view kernel) {
  CubinResources r;
  if (elf.size() < 64 ||
      elf.substr(0, 4) != "\x7f"
                          "ELF" ||
      elf[4] != 2 || elf[5] != 1)
    return r;
  auto shoff = load<uint64_t>(elf, 0x28);
  auto shentsize = load<uint16_t>(elf, 0x3a), shnum = load<uint16_t>(elf, 0x3c),
       shstrndx = load<uint16_t>(elf, 0x3e);
  if (!shoff || !shentsize || !shnum || !shstrndx || *shentsize < 64 || *shstrndx >= *shnum) return r;
  std::vector<Section> sections;
  for (uint32_t i = 0; i < *shnum; ++i) {
    uint64_t at = *shoff + uint64_t{i} * *shentsize;
    auto name = load<uint32_t>(elf, at), type = load<uint32_t>(elf, at + 4),
         link = load<uint32_t>(elf, at + 40);
    auto off = load<uint64_t>(elf, at + 24), size = load<uint64_t>(elf, at + 32),
         entsize = load<uint64_t>(elf, at + 56);
    if (!name || !type || !link || !off || !size || !entsize) return r;
    if (*off > elf.size() || *size > elf.size() - *off) return r;
    sections.push_back({*name, *type, *link, *off, *size, *entsize});
  }
  auto stringAt = [&](const Section &table, uint32_t offset) -> std::string_view {
    if (offset >= table.size) return {};
    std::string_view s = elf.substr(table.offset + offset, table.size - offset);
    return s.substr(0, s.find('\0'));
  };
  const Section &shstr = sections[*shstrndx];
  // The kernel's symbol index, in the symbol table.
  std::optional<uint32_t> symbol;
  for (const Section &s : sections) {
    if (s.type != 2 /* SHT_SYMTAB */ || s.link >= sections.size() || s.entsize < 24) continue;
    const Section &strtab = sections[s.link];
    for (uint64_t i = 0; i < s.size / s.entsize && !symbol; ++i) {
      auto name = load<uint32_t>(elf, s.offset + i * s.entsize);
      if (name && stringAt(strtab, *name) == kernel) symbol = static_cast<uint32_t>(i);
    }
  }
  if (!symbol) return r;
  for (const Section &s : sections) {
    if (stringAt(shstr, s.name) != ".nv.info") continue;
    // Attributes: {u8 format, u8 attribute}, then by format nothing (NVAL 1), one byte (BVAL 2), a u16 (HVAL
    // 3) or a u16 size and that many bytes (SVAL 4).
    uint64_t p = s.offset, end = s.offset + s.size;
    while (p + 2 <= end) {
      uint8_t format = static_cast<uint8_t>(elf[p]), attribute = static_cast<uint8_t>(elf[p + 1]);
      p += 2;
      if (format == 1) continue;
      if (format == 2) {
        p += 1;
        continue;
      }
      if (format == 3) {
        p += 2;
        continue;
      }
      if (format != 4 || p + 2 > end) break;
      uint16_t size = *load<uint16_t>(elf, p);
      p += 2;
      if (size > end - p) break;
      if (size == 8 && (attribute == 0x2f || attribute == 0x11) && *load<uint32_t>(elf, p) == *symbol) {
        uint32_t value = *load<uint32_t>(elf, p + 4);
        (attribute == 0x2f ? r.registers : r.frameBytes) = value;
      }
      p += size;
    }
  }
  return r;
}

} // namespace inductor::index
