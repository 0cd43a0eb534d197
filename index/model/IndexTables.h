// index/model/IndexTables.h: the frozen lookup tables behind an Index (Index.h), shared by the build that
// fills them (index/builder/IndexBuilder::freeze) and the queries that read them (Index.cpp,
// HealthQueries.cpp). Internal to index/: nothing outside index/ includes it. Immutable once built, so
// queries read it without locks (the *Once flags guard the tables made on first use; the Triton files parsed
// on request, tritonFiles, are the one part that changes, behind its own locks: TritonQueries.cpp).
#pragma once

#include "index/model/Index.h"
#include "index/trace/TraceLog.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace inductor::index {

// The frozen lookup tables of an Index (see Index.h). Built once by IndexBuilder::freeze.
struct Index::Tables {
  std::vector<std::shared_ptr<const TraceLog>> logs;
  std::unordered_map<std::string, ArtifactId> byPath;
  /// byPath by each path's weakly_canonical form, made on first use (findByPath of a path through a link):
  /// canonicalising every indexed path per lookup was a syscall per artifact file for each user file a
  /// request touched.
  mutable std::once_flag canonicalOnce;
  mutable std::unordered_map<std::string, ArtifactId> byCanonical;
  /// Paths shared by several artifacts: path -> all of them (the first is also in byPath).
  std::unordered_map<std::string, std::vector<ArtifactId>> sharedPaths;
  std::unordered_map<std::string, ArtifactId> byVirtual;
  /// Artifact::contentHash -> the artifacts with that text, in index order.
  std::unordered_map<uint64_t, std::vector<ArtifactId>> byContent;
  /// Local user source path -> 1-based line -> launches, lines in order.
  std::unordered_map<std::string, std::map<uint32_t, std::vector<LaunchRef>>> byUserLine;
  /// Local user source path -> the distinct lines recorded for it (see Index::recordedLines).
  std::unordered_map<std::string, std::vector<RecordedLine>> recordedLines;
  std::vector<KernelSymbol> symbols;
  /// Distinct kernel names (the same kernel recurs in every compile and rank) and, per symbol, its name's
  /// index: a search scores each name once.
  std::vector<std::string_view> symbolNames;
  std::vector<uint32_t> symbolNameIds;
  /// Per artifact, the first one that is a copy of the same log payload (see Index::firstCopy); empty when no
  /// artifact has one.
  std::vector<uint32_t> firstCopy;
  /// Per artifact, the first one that is the same code up to its device (see Index::firstEquivalent); empty
  /// when no artifact has one.
  std::vector<uint32_t> firstEquivalent;
  /// Index::ranks(), made on first use.
  mutable std::once_flag ranksOnce;
  mutable std::shared_ptr<const RankReport> ranks;
  /// Index::entryPoints(), by normalized local path, made on first use.
  mutable std::once_flag entryPointsOnce;
  mutable std::unordered_map<std::string, std::vector<UserEntryPoint>> entryPoints;
  /// Index::tritonCache(): where the build saw one, read on first use.
  TritonCacheSources tritonSources;
  mutable std::once_flag tritonOnce;
  mutable std::shared_ptr<const TritonCache> triton;
  /// The parsed IR and cubin resources of the cache's files, kept between requests (TritonQueries.cpp):
  /// made on first use.
  mutable std::once_flag tritonFilesOnce;
  mutable std::shared_ptr<TritonFileCache> tritonFiles;
  /// The resolver the build used for origins, kept for Index::resolvePath.
  std::shared_ptr<const PathResolver> resolver;
};

namespace detail {

/// Identity of a text across its copies (log payload, cache file, debug-dir copy), hashed line by line so a
/// payload needs no joining. Combines per-line std::hash values (8 bytes at a time, where byte-wise FNV-1a
/// was a measurable share of a 1 GB build). Only compared within one process; both sides hash the same lines.
struct ContentHash {
  uint64_t h = 1469598103934665603ull;
  void update(std::string_view s) { h = (h ^ std::hash<std::string_view>{}(s)) * 1099511628211ull; }
};

/// Identity of generated code across its copies (log payload, cache file, debug-dir copy), the key of
/// Tables::byContent and Artifact::contentHash: see Index.cpp.
uint64_t identityHash(const std::vector<std::string_view> &lines);

} // namespace detail

} // namespace inductor::index
