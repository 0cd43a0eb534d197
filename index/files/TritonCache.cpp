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

Expected<TritonKernelMetadata> parseTritonMetadata(std::string_view json) {
  TritonKernelMetadata m;
  std::string scratch;
  std::string tooLong; // The first kept member over kMaxMetadataString.
  auto keep = [&](std::string_view key, std::string_view value, std::string &into) {
    if (value.size() > kMaxMetadataString) {
      if (tooLong.empty()) tooLong = std::string(key);
      return;
    }
    into = std::string(value);
  };
  auto count = [](std::string_view raw) -> std::optional<uint32_t> {
    std::optional<double> v = json_scan::number(raw);
    if (!v || *v < 0 || *v > 4294967295.0 || *v != static_cast<double>(static_cast<uint64_t>(*v)))
      return std::nullopt;
    return static_cast<uint32_t>(*v);
  };
  bool ok = json_scan::walkObject(json, [&](std::string_view key, std::string_view raw) {
    if (key == "name") {
      if (auto s = json_scan::string(raw, scratch)) keep("name", *s, m.name);
    } else if (key == "num_warps") {
      m.numWarps = count(raw);
    } else if (key == "num_stages") {
      m.numStages = count(raw);
    } else if (key == "num_ctas") {
      m.numCtas = count(raw);
    } else if (key == "shared") {
      if (auto v = count(raw)) m.sharedBytes = *v;
    } else if (key == "arch") {
      if (auto s = json_scan::string(raw, scratch)) keep("arch", *s, m.arch);
    } else if (key == "triton_version") {
      if (auto s = json_scan::string(raw, scratch)) keep("triton_version", *s, m.tritonVersion);
    } else if (key == "target" && m.arch.empty()) {
      json_scan::walkObject(raw, [&](std::string_view k, std::string_view v) {
        if (k == "arch") {
          if (auto n = json_scan::integer(v))
            m.arch = std::to_string(*n);
          else if (auto s = json_scan::string(v, scratch))
            keep("target.arch", *s, m.arch);
        }
      });
    }
  });
  if (!tooLong.empty())
    return Error{"its " + tooLong + " is longer than " + std::to_string(kMaxMetadataString / 1024) + " KB"};
  if (!ok || m.name.empty()) return Error{"not a metadata object with a kernel name"};
  return m;
}

Expected<TritonBestConfig> parseBestConfig(std::string_view json) {
  TritonBestConfig c;
  std::string scratch, keyScratch, problem;
  bool ok = json_scan::walkObject(json, [&](std::string_view key, std::string_view raw) {
    auto k = json_scan::decodeKey(key, keyScratch);
    if (!k || !problem.empty()) return;
    if (*k == "triton_cache_hash") {
      if (auto s = json_scan::string(raw, scratch)) {
        if (s->size() > kMaxMetadataString)
          problem =
              "its triton_cache_hash is longer than " + std::to_string(kMaxMetadataString / 1024) + " KB";
        else
          c.tritonCacheHash = std::string(*s);
      }
    } else if (*k != "time_taken_ms") {
      auto v = json_scan::integer(raw);
      if (!v) return;
      if (k->size() > kMaxBestConfigKey)
        problem = "a member name is longer than " + std::to_string(kMaxBestConfigKey) + " bytes";
      else if (c.values.size() >= kMaxBestConfigValues)
        problem = "more than " + std::to_string(kMaxBestConfigValues) + " integer members";
      else
        c.values.emplace_back(std::string(*k), *v);
    }
  });
  if (!ok) return Error{"not a JSON object"};
  if (!problem.empty()) return Error{problem};
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

std::pair<const TritonUnreadEntry *, const TritonUnreadEntry *>
TritonCache::unreadNamed(std::string_view name) const {
  struct ByName {
    bool operator()(const TritonUnreadEntry &a, std::string_view b) const { return a.name < b; }
    bool operator()(std::string_view a, const TritonUnreadEntry &b) const { return a < b.name; }
  };
  auto [lo, hi] = std::equal_range(unread.begin(), unread.end(), name, ByName{});
  return {unread.data() + (lo - unread.begin()), unread.data() + (hi - unread.begin())};
}

std::string TritonCache::unreadEntryOf(std::string_view name) const {
  auto [first, last] = unreadNamed(name);
  return first == last ? std::string() : first->message;
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
  if (chosen.empty()) {
    // The winner may be an entry whose metadata could not be read: then the entries read are the configs
    // that lost, and taking one (its num_warps, its PTX) would answer for code that did not run.
    auto [first, last] = cache.unreadNamed(name);
    for (const TritonUnreadEntry *u = first; u != last; ++u)
      if (!u->chosenBy.empty() && baseName(u->recordedKernelFile) == file) {
        join.how = "the autotuner chose its Triton cache entry " + u->hash + " (" +
                   std::string(baseName(u->chosenBy)) + "), which could not be read (" + u->message +
                   "); the " + std::to_string(candidates.size()) + " read compiled other configs";
        return join;
      }
  }
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
    if (cache.entries.size() + cache.unread.size() >= kMaxEntries) {
      cache.notes.push_back({dir, "Triton cache: more than " + std::to_string(kMaxEntries) +
                                      " entries; the rest were not read"});
      break;
    }
    // Each dir was listed by the discovery walk (which reads only inside the roots) or under an allowed root
    // (no links followed): its listed files are read without canonicalising their paths again (readListed).
    std::vector<std::string> files = listFiles(dir);
    std::set<std::string_view> names(files.begin(), files.end());
    TritonCacheEntry e;
    std::optional<TritonUnreadEntry> unread;
    for (const std::string &f : files) {
      if (f.size() <= 5 || f.compare(f.size() - 5, 5, ".json") != 0 || f.rfind("__grp__", 0) == 0) continue;
      std::string stem = f.substr(0, f.size() - 5);
      if (!names.count("__grp__" + f) && !names.count(stem + ".ptx") && !names.count(stem + ".cubin") &&
          !names.count(stem + ".ttir"))
        continue;
      std::array<std::string, kTritonStages> stageFiles;
      for (size_t s = 0; s < kTritonStages; ++s) {
        std::string file = stem + "." + std::string(tritonStageName(static_cast<TritonStage>(s)));
        if (names.count(file)) stageFiles[s] = joinPath(dir, file);
      }
      std::string path = joinPath(dir, f);
      auto text = policy.readListed(path, kMetadataBytes);
      Expected<TritonKernelMetadata> meta =
          text ? parseTritonMetadata(*text) : Expected<TritonKernelMetadata>(text.error());
      if (!meta) {
        std::string message = "Triton metadata: " + meta.error().message;
        cache.notes.push_back({path, message});
        // Kept by what the directory says of it, for the kernel whose autotuned choice it may be.
        if (!unread) {
          unread =
              TritonUnreadEntry{dir, std::string(baseName(dir)), std::move(stem), "", std::move(message), ""};
          e.files = stageFiles;
        }
        continue;
      }
      e.files = std::move(stageFiles);
      e.metadataPath = std::move(path);
      e.metadata = std::move(*meta);
      unread.reset();
      break;
    }
    if (e.metadataPath.empty() && !unread) continue;
    e.dir = dir;
    e.hash = std::string(baseName(dir));
    std::string_view parent = dirName(dir);
    if (allDigits(baseName(parent)) && baseName(dirName(parent)) == "triton")
      e.rank = std::stoi(std::string(baseName(parent)));
    for (TritonStage s : {TritonStage::Source, TritonStage::Ttir, TritonStage::Ttgir}) {
      const std::string &ir = e.files[static_cast<size_t>(s)];
      if (ir.empty()) continue;
      // Only the head: the file itself may be any size (a hostile cache can hard-link one huge sparse file
      // into every entry).
      auto text = policy.readListedHead(ir, kIrHeadBytes);
      if (!text) continue;
      e.recordedKernelFile = firstLocFile(*text);
      if (!e.recordedKernelFile.empty()) break;
    }
    if (unread) {
      unread->recordedKernelFile = std::move(e.recordedKernelFile);
      cache.unread.push_back(std::move(*unread));
      continue;
    }
    cache.entries.push_back(std::move(e));
  }
  // The autotuner's choices: the .best_config files beside each kernel file, by the entry hash they name,
  // each kept once and shared by the entries it names. A .best_config is the choice for the kernel file it
  // sits beside (autotune_cache.py writes it into that file's directory), so it names the entries compiled
  // from that file only: ranks that share one kernel file (kernel_ranks: the same cache key in triton/0 and
  // triton/1) share its choice, but a rank with a kernel file of its own (FSDP2 on several GPUs: the source
  // names its device) has its own, which may name another config's entry (rank 0 chose one XBLOCK, ranks 1-3
  // another).
  using Configs = std::map<std::string, std::shared_ptr<const TritonBestConfig>>; // Hash -> its config.
  std::map<std::string, Configs> configsByDir;
  auto configsOf = [&](const std::string &recorded) -> const Configs * {
    if (recorded.empty() || !resolve) return nullptr;
    std::string local = resolve(recorded);
    if (local.empty()) return nullptr;
    std::string dir(dirName(local));
    auto [slot, fresh] = configsByDir.try_emplace(dir);
    Configs &configs = slot->second;
    if (!fresh) return &configs;
    // The walk saw this directory's files already (no second listing, no canonical path of it).
    std::vector<std::string> files;
    if (auto walked = walkedConfigs.find(dir); walked != walkedConfigs.end()) {
      files = walked->second;
    } else {
      if (!policy.allows(dir)) return &configs;
      for (const std::string &f : listFiles(dir))
        files.push_back(joinPath(dir, f));
    }
    for (const std::string &file : files) {
      std::string_view f = file;
      if (f.size() <= 12 || f.compare(f.size() - 12, 12, ".best_config") != 0) continue;
      auto text = policy.readListed(file, kBestConfigBytes);
      if (!text) continue;
      Expected<TritonBestConfig> c = parseBestConfig(*text);
      if (!c) {
        cache.notes.push_back({file, "autotuner's .best_config: " + c.error().message});
        continue;
      }
      if (c->tritonCacheHash.empty()) continue;
      c->path = file;
      std::string hash = c->tritonCacheHash;
      // Of two naming one hash, the first listed.
      configs.emplace(std::move(hash), std::make_shared<const TritonBestConfig>(std::move(*c)));
    }
    return &configs;
  };
  for (TritonCacheEntry &e : cache.entries)
    if (const Configs *configs = configsOf(e.recordedKernelFile))
      if (auto c = configs->find(e.hash); c != configs->end()) e.bestConfig = c->second;
  for (TritonUnreadEntry &u : cache.unread)
    if (const Configs *configs = configsOf(u.recordedKernelFile))
      if (auto c = configs->find(u.hash); c != configs->end()) u.chosenBy = c->second->path;
  std::sort(cache.unread.begin(), cache.unread.end(),
            [](const TritonUnreadEntry &a, const TritonUnreadEntry &b) {
              return std::tie(a.name, a.dir) < std::tie(b.name, b.dir);
            });
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
  // Whether the NUL-terminated string at `offset` of a string table is `want`: compares |want| + 1 bytes,
  // never scans for the NUL (a table without one would make each comparison a scan of the table).
  auto stringIs = [&](const Section &table, uint64_t offset, std::string_view want) {
    if (offset >= table.size || table.size - offset < want.size() + 1) return false;
    std::string_view s = elf.substr(table.offset + offset, want.size() + 1);
    return s.substr(0, want.size()) == want && s.back() == '\0';
  };
  const Section &shstr = sections[*shstrndx];
  // What a hostile file can repeat: many section headers over the same bytes (65,535 symbol tables of one
  // table's bytes). A real cubin's tables do not overlap, so the symbols and attributes walked in all never
  // exceed the file's bytes; past that the walk stops.
  uint64_t budget = elf.size();
  // The kernel's symbol index, in the symbol table.
  std::optional<uint32_t> symbol;
  for (const Section &s : sections) {
    if (symbol) break;
    if (s.type != 2 /* SHT_SYMTAB */ || s.link >= sections.size() || s.entsize < 24) continue;
    if (s.size > budget) return r;
    budget -= s.size;
    const Section &strtab = sections[s.link];
    for (uint64_t i = 0; i < s.size / s.entsize && !symbol; ++i) {
      auto name = load<uint32_t>(elf, s.offset + i * s.entsize);
      if (name && stringIs(strtab, *name, kernel)) symbol = static_cast<uint32_t>(i);
    }
  }
  if (!symbol) return r;
  budget = elf.size();
  for (const Section &s : sections) {
    if (!stringIs(shstr, s.name, ".nv.info")) continue;
    if (s.size > budget) break;
    budget -= s.size;
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
