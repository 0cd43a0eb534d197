// index/files/TritonCache.h: the Triton cache entries beside a trace, and their join to Inductor's kernels.
//
// Triton keeps every compiled kernel in a cache entry directory `<cache>/<hash>/` (triton/runtime/cache.py,
// FileCacheManager; `<hash>` is the base32 of a sha256, 52 characters, or hex in older versions). Inductor
// points Triton's cache inside its own: `<TORCHINDUCTOR_CACHE_DIR>/triton/<rank>/<hash>/`
// (torch/_inductor/runtime/cache_dir_utils.py, triton_cache_dir). An entry holds, for a kernel NAME:
//   - `NAME.json`: the compile metadata (triton/compiler/compiler.py: num_warps, num_stages, num_ctas,
//     shared (bytes), target, name, triton_version...), and `__grp__NAME.json` listing the entry's files;
//   - the IR of each stage: `NAME.source` (the first MLIR, Triton >= 3.5), `NAME.ttir`, `NAME.ttgir`,
//     `NAME.llir`, `NAME.ptx`, and the `NAME.cubin` (unless removed). Their `loc(...)`/`.file` lines name
//     the kernel's Python file: Inductor's `<cache>/<xy>/c<hash>.py`, whose name is a hash of its code.
// Inductor's autotuner records the winning config of a kernel in a `<hash>.best_config` JSON beside the
// kernel's Python file (torch/_inductor/runtime/autotune_cache.py), with the `triton_cache_hash` of the
// entry it chose.
//
// Cost: nothing at index time but the names discovery's walk saw (TritonCacheSources). On the first request
// that needs the cache (Index::tritonCache()): a listing of each root and entry, each entry's metadata JSON
// (at most 1 MiB), the first 4 KB of one IR file (read as a head: never the whole file, whatever its size)
// and the `.best_config` files of the kernel files' directories (at most 64 KiB each). IR is parsed only on
// request (index/analysis/TritonIR.h). An autotuned cache holds an entry per config tried (81 for one
// max-autotune template), so reading it at index time made the first answer of every request, Triton's or
// not, a third slower (bench/README.md, "Kernel internals").
//
// Memory kept per entry is bounded: every string kept from a metadata JSON is at most kMaxMetadataString
// (4 KB; a longer one makes the metadata unreadable, said as the entry's note), and a `.best_config` is kept
// once, shared by the entries of its hash (one per rank), with at most kMaxBestConfigValues members.
//
// Thread-safety: TritonCacheCollector is called from discovery's one thread; the rest are pure functions.
#pragma once

#include "index/files/ReadPolicy.h"
#include "index/support/Expected.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

/// The files of a cache entry, in compile order; Cubin last.
enum class TritonStage : uint8_t { Source, Ttir, Ttgir, Llir, Ptx, Cubin };
constexpr size_t kTritonStages = 6;
/// "source", "ttir", "ttgir", "llir", "ptx", "cubin": the file extensions, and the stage names of
/// `inductor/lowered`.
std::string_view tritonStageName(TritonStage stage);
/// The stage of a file extension (without the dot), nullopt for others.
std::optional<TritonStage> tritonStageOfExtension(std::string_view extension);

/// What a cache entry's `NAME.json` says (the members read; absent ones stay nullopt/empty).
struct TritonKernelMetadata {
  std::string name;
  std::optional<uint32_t> numWarps, numStages, numCtas;
  std::optional<uint64_t> sharedBytes; ///< `shared`: bytes of shared memory per block.
  std::string arch;                    ///< `arch` ("sm90") or `target.arch` as a number ("90").
  std::string tritonVersion;
};

/// Longest string kept from a metadata JSON (`name`, `arch`, `triton_version`), as for trace metadata
/// (SECURITY.md): a kernel name is ~60 bytes.
constexpr size_t kMaxMetadataString = 4096;
/// Members kept of a `.best_config` (Inductor writes ~6), and the longest member name.
constexpr size_t kMaxBestConfigValues = 64;
constexpr size_t kMaxBestConfigKey = 256;

/// Parses a metadata JSON. Errors: not one object with a string `name`; a kept string longer than
/// kMaxMetadataString (the member named).
Expected<TritonKernelMetadata> parseTritonMetadata(std::string_view json);

/// The autotuner's choice, from a `.best_config` file: the kernel's config (`XBLOCK`, `R0_BLOCK`...,
/// `num_warps`, `num_stages`) and the Triton cache entry it compiled to.
struct TritonBestConfig {
  std::string path;                                    ///< The .best_config file.
  std::vector<std::pair<std::string, int64_t>> values; ///< Integer members, in file order.
  std::string tritonCacheHash;                         ///< `triton_cache_hash`, empty when absent.
};
/// Parses a `.best_config`. Errors: not a JSON object; more than kMaxBestConfigValues integer members, a
/// member name longer than kMaxBestConfigKey or a hash longer than kMaxMetadataString.
Expected<TritonBestConfig> parseBestConfig(std::string_view json);

/// One kernel compiled by Triton.
struct TritonCacheEntry {
  std::string dir;         ///< Local path of the entry directory.
  std::string hash;        ///< The directory's name.
  std::optional<int> rank; ///< N of `triton/N/<hash>` (Inductor's per-device cache), else nullopt.
  std::string metadataPath;
  TritonKernelMetadata metadata;
  /// Local path of each stage's file, empty when the entry has none (indexed by TritonStage).
  std::array<std::string, kTritonStages> files;
  /// The kernel's Python file as its IR records it (the first `loc("...")` of the first MLIR stage); empty
  /// when no MLIR stage names one.
  std::string recordedKernelFile;
  /// The autotuner's record naming this entry as the winner, if any: a `.best_config` beside the kernel file
  /// this entry was compiled from (recordedKernelFile), never one beside another rank's kernel file of the
  /// same name (ranks whose kernel sources name their device autotune, and may choose, each on their own).
  /// One object, shared by the entries it names (every rank's copy of one kernel file's entry).
  std::shared_ptr<const TritonBestConfig> bestConfig;
};

/// An entry directory whose metadata could not be read: what is known of it, for the kernels it may be.
struct TritonUnreadEntry {
  std::string dir, hash;
  std::string name;               ///< The stem of its `NAME.json`.
  std::string recordedKernelFile; ///< As TritonCacheEntry's (read from its IR's head), empty when unknown.
  std::string message;            ///< Why: "Triton metadata: its name is longer than 4 KB".
  std::string chosenBy; ///< The `.best_config` beside its kernel file naming it as the winner, if any.
};

/// Every entry found, sorted by kernel name then directory; with what could not be read.
struct TritonCache {
  std::vector<TritonCacheEntry> entries;
  /// Entries whose metadata could not be read, sorted by name then directory (each also has a note).
  std::vector<TritonUnreadEntry> unread;
  struct Note {
    std::string path, message;
  };
  std::vector<Note> notes;
  /// Indices of the entries of a kernel name (empty when none).
  std::vector<uint32_t> entriesNamed(std::string_view name) const;
  /// The unread entries of a kernel name (a range of `unread`).
  std::pair<const TritonUnreadEntry *, const TritonUnreadEntry *> unreadNamed(std::string_view name) const;
  /// Why the entries of a kernel name could not be read: the first unread entry's message, empty when none.
  std::string unreadEntryOf(std::string_view name) const;
};

/// Where a build found, or may find, a Triton cache: what the discovery walk saw, kept in the index until the
/// cache is first needed (findTritonCache reads it then).
struct TritonCacheSources {
  std::vector<std::string> entryDirs; ///< Hash-named directories the walk listed (TritonCacheCollector).
  std::vector<std::string> roots;     ///< `triton` directories and configured tritonCacheDirs.
  /// Directories the walk listed kernel files in, each with the `.best_config` files it saw there.
  std::map<std::string, std::vector<std::string>> walkedConfigs;
  bool empty() const { return entryDirs.empty() && roots.empty(); }
};

/// How a kernel of the output code was joined to its cache entries.
struct TritonJoin {
  enum class Status {
    NoEntry,   ///< No entry of this name.
    Joined,    ///< `entries` holds the one entry (or the copies per rank) of this kernel.
    Ambiguous, ///< Several entries could be it and nothing tells them apart: `entries` lists them all.
  } status = Status::NoEntry;
  std::vector<uint32_t> entries;
  /// How: "kernel file", "kernel file, autotuned", "name"; or why not, for hovers.
  std::string how;
};

/// Joins a kernel (its name, the kernel file its output code names in `# kernel path:` or the kernel file
/// itself, empty when unknown, and its rank when known) to the cache's entries: those of the same name whose
/// IR names a kernel file of the same file name (Inductor names the file by a hash of its code, so the same
/// name is the same source text); of several (autotuning compiled each config), the one the autotuner's
/// `.best_config` chose; of several ranks, the kernel's rank's. By name alone only when one entry has the
/// name and its IR names no kernel file. Never picks one of several silently: Ambiguous lists them. Never
/// joins another config's entry when the autotuner's choice is an entry that could not be read: NoEntry,
/// `how` naming it and why.
TritonJoin joinTritonKernel(const TritonCache &cache, std::string_view name, std::string_view kernelFile,
                            std::optional<int> rank);

/// Whether a directory name looks like a Triton cache key: 52 characters of base32 ([A-Z2-7]), or 32 or 64
/// lowercase hex digits.
bool isTritonHashName(std::string_view name);
/// Whether a directory name is the cache key of Triton >= 3.0 (triton/runtime/cache.py: the base32 of a
/// SHA-256, 52 characters of [A-Z2-7]). Such a directory holds one kernel's compiled files and nothing a
/// trace names or a path resolves into, so discovery and the path resolver's suffix index do not walk into it
/// (the hex forms of older Triton are too common a name to skip).
bool isTritonCacheKeyName(std::string_view name);

/// Collects, from discovery's walk (DirectoryListed), the directories that may be cache entries (a hash name)
/// and the Triton cache roots (`triton` directories).
struct TritonCacheCollector {
  std::vector<std::string> entryDirs, roots;
  void operator()(const std::string &directory);
};

/// Finds the entries: each of `entryDirs` that holds a `NAME.json` with a `NAME.ptx`, `.cubin`, `.ttir` or
/// `__grp__NAME.json` beside it, and such entries up to two levels below each of `roots` (an Inductor
/// cache's `triton/`, a configured tritonCacheDirs: `<root>/<rank>/<hash>` and `<root>/<hash>`), reading
/// only through `policy` (`entryDirs` are directories that a walk inside the roots listed: their files are
/// read with ReadPolicy::readListed, which still refuses a file that is not inside). `resolve` maps a
/// recorded kernel file to a local path ("" when not here), for the
/// `.best_config` files beside it. Entries reached twice are listed once. `walkedConfigs`: directories the
/// discovery walk listed (inside the roots), each with the `.best_config` files it saw there; another
/// kernel file's directory is judged by `policy` and listed here.
TritonCache findTritonCache(const std::vector<std::string> &entryDirs, const std::vector<std::string> &roots,
                            const ReadPolicy &policy,
                            const std::function<std::string(std::string_view)> &resolve,
                            const std::map<std::string, std::vector<std::string>> &walkedConfigs = {});

// ---------------------------------------------------------------------------------------------------------
// Cubin resources.

/// What a cubin (an ELF file of ptxas) says of a kernel in its `.nv.info` attributes (EIATTR_REGCOUNT 0x2f,
/// EIATTR_FRAME_SIZE 0x11, each `{symbol index u32, value u32}` in the `.nv.info` section, by the kernel's
/// symbol). nullopt members were not found. Linear in the file: sections that repeat another's bytes are
/// walked once, and the symbols and attributes walked in all never exceed what the file holds.
struct CubinResources {
  std::optional<uint32_t> registers;  ///< Registers per thread.
  std::optional<uint32_t> frameBytes; ///< Local memory per thread (bytes): spills and local arrays.
  /// Triton's "n_spills": the local memory in 4-byte words (triton/backends/nvidia/driver.c divides
  /// CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES by 4).
  std::optional<uint32_t> spills() const {
    return frameBytes ? std::optional<uint32_t>(*frameBytes / 4) : std::nullopt;
  }
};
/// Reads the resources of `kernel` from a cubin's bytes; an empty result (both nullopt) when the bytes are
/// not a 64-bit little-endian ELF or have no such attributes. Bounds-checked: never reads outside `elf`.
CubinResources readCubinResources(std::string_view elf, std::string_view kernel);

} // namespace inductor::index
