// bench/Workload.h: synthetic TORCH_TRACE workloads made from the real fixture logs, at trace scale.
//
// Input: every `traces/<case>/trace/*.log` of the fixtures (../shared/fixtures, see its README): real logs
// written by PyTorch 2.11, every path in them starting with `/tmp/work/<case>/`.
// Output: a directory `<root>/<name>/` holding
//   trace/dedicated_log_torch_trace_rank_<r>_bench.log   (R rank files; one `..._bench.log` for single-file)
//   src/u<NNNNN>/<case>/*.py                              (the user files of each copy: model.py)
//   manifest.json                                         (what is where; see Unit)
// A workload is a sequence of units. A unit is one fixture log copied record by record, rewritten so that it
// is a distinct compile of distinct user code:
//   - every `/tmp/work/` (metadata and payloads) becomes `<root>/<name>/src/u<NNNNN>/`, whose user files
//   exist;
//   - `frame_id` is shifted by kFrameStride * unit id (compile ids never collide across units or ranks);
//   - `rank` becomes the rank of the file the unit lands in;
//   - `str` table ids (and the `"filename": N` references to them) are shifted past the ids already used in
//     that file, as one process interning more file names would;
//   - `has_payload` is recomputed (md5 of the rewritten payload) when the payload changed and the original
//     digest was right.
// Units go round-robin over the rank files, cycling through the fixture logs in path order, until the target
// size is reached. Generation is deterministic: the same spec gives the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace inductor::bench {

/// Frame ids of unit N are the fixture's plus N * kFrameStride (fixture frame ids are all below it).
constexpr int kFrameStride = 100;

/// One fixture log, loaded whole and cut into records.
struct FixtureLog {
  std::string path;     ///< traces/<case>/trace/<file>.log
  std::string caseName; ///< <case>
  std::string caseDir;  ///< traces/<case>
  std::string text;
  struct Record {
    size_t begin = 0, envelopeEnd = 0,
           end = 0; ///< Envelope [begin, envelopeEnd), payload (envelopeEnd+1, end)
    bool pathInEnvelope = false, pathInPayload = false;
    bool chromium = false; ///< A chromium_event: its payload's `"ts"` values are moved (renderUnit).
    bool digestOk = false; ///< has_payload matches the original payload.
  };
  std::vector<Record> records;
  int maxStrId = -1;
  uint64_t lines = 0;
  /// The first chromium event's `"ts"` (epoch µs, UTC), 0 when none. renderUnit moves every time of a copy
  /// so that this one is kUnitStartUs: the files of a workload are the ranks of one run (index/files/Runs.h
  /// groups logs by time), however far apart the fixtures were recorded.
  int64_t firstTsUs = 0;
  int64_t yearOfFirstTs = 1970; ///< Its UTC year: the glog prefix (`V1127 14:32:52.870000`) has none.
};

/// Where renderUnit puts the first chromium event of every copy: 2026-11-18 00:00:00 UTC.
inline constexpr int64_t kUnitStartUs = 1795046400000000;

/// Loads every fixture log, sorted by path. Errors go to `error` (empty list then).
std::vector<FixtureLog> loadFixtures(const std::string &fixturesDir, std::string &error);
/// Loads one log and cuts it into records; `caseDir` holds its user files (*.py). Errors go to `error`.
std::optional<FixtureLog> loadLog(const std::string &path, const std::string &caseDir, std::string &error);

/// How to rewrite one copy.
struct UnitRewrite {
  uint32_t id = 0;
  std::string prefix; ///< Replaces "/tmp/work/".
  int rank = -1;      ///< New value of `rank` fields; -1 keeps them.
  int strBase = 0;    ///< Added to `str` ids and `"filename": N` references.
};

/// Renders one rewritten copy of `log`.
std::string renderUnit(const FixtureLog &log, const UnitRewrite &rewrite);
/// The source prefix of unit `id` in a workload directory: "<dir>/src/u<NNNNN>/".
std::string unitPrefix(const std::string &workloadDir, uint32_t id);
/// Copies the user files of `log`'s case (top-level *.py of the case directory) under `prefix`.
bool writeUnitSources(const FixtureLog &log, const std::string &prefix, std::string &error);

/// One copy of a fixture log inside a workload file.
struct Unit {
  uint32_t id = 0;
  uint32_t fixture = 0; ///< Index into the fixture list.
  uint32_t file = 0;    ///< Index into Workload::files.
  uint64_t firstLine = 0, lines = 0, offset = 0, bytes = 0;
  std::string prefix;
  int device = 0; ///< The CUDA device its payloads name (real-shaped `-x<N>d<G>`: rank % G); see onDevice.
};

/// What to generate, from a spec:
///   - the fixture mix by size: "10M", "100M", "1G" (8 rank files) or "1G-single" (one file);
///   - a real-shaped workload: "<source>" (one real log as it is), "<source>-x<N>" (N ranks of it, every
///     rank writing the same payloads) or "<source>-x<N>d<G>" (N ranks on hosts of G GPUs: rank r's payloads
///     name its device, r % G, as ranks of a real multi-GPU job do), where <source> is "llama"
///     (bench/llama/llama8l.log.xz) or a fixture case ("hf_bert"). See RealSource.
struct WorkloadSpec {
  std::string name;
  uint64_t targetBytes = 0;    ///< Fixture mix only.
  unsigned ranks = 8;          ///< 0: a single file without a rank in its name.
  unsigned devicesPerHost = 0; ///< Real-shaped ranks: 0, every rank on device 0; G, rank r on r % G.
  std::string source;          ///< Real-shaped workloads: the source log's name; empty for the fixture mix.
  static std::optional<WorkloadSpec> parse(const std::string &spec);
};

/// The log a real-shaped workload is made of.
///
/// Replicas per rank keep every byte of their records except what ranks of a data-parallel job really vary:
/// the rank (`"rank": N` after the record's first key, as distributed runs write it; `str` records have
/// none), the pid of the glog prefix (base pid + rank) and the file name
/// (`dedicated_log_torch_trace_rank_<r>_<random>.log`). Payloads, digests, compile ids and recorded paths are
/// the source's: all ranks write the same output code, graphs and provenance, as ranks on one device each of
/// several hosts do. On one host, ranks run on different devices, and every payload that names the device
/// differs (seen in a real 2-GPU DDP trace, tests/traces/ddp_gpt2: no output code, graph or kernel of rank 1
/// is byte-identical to rank 0's): `-x<N>d<G>` puts rank r on device r % G (onDevice) and recomputes the
/// digests of the payloads that changed.
///
/// Recorded paths are not rewritten: the server is given `pathMappings` (Workload::mappings), as a user with
/// a trace from a cluster would: `/tmp/work/` -> `<dir>/src/` (the case's model files) and the recorded
/// `.../site-packages/` -> `<dir>/site-packages/` (library files: copied from the fixture's `site-packages/`
/// where it has them, else rebuilt from the lines the trace recorded, so that every recorded line is where
/// the trace says; see writeLibrarySources).
struct RealSource {
  std::string name;    ///< "llama", "hf_bert".
  std::string logPath; ///< The log as PyTorch wrote it (decompressed for llama).
  std::string caseDir; ///< Its model files (*.py) and, for fixtures, `site-packages/`.
};

struct Workload {
  WorkloadSpec spec;
  std::string dir;
  /// Real-shaped workloads: recorded path prefix -> local prefix (sent as `pathMappings`). Units of these
  /// have an empty Unit::prefix: their paths are mapped, not rewritten.
  std::vector<std::pair<std::string, std::string>> mappings;
  std::vector<std::string> files; ///< Absolute paths of the trace logs.
  std::vector<uint64_t> fileBytes;
  std::vector<uint64_t> fileLines;
  std::vector<int> nextStrId; ///< Per file: the first `str` id not used yet (for appends).
  std::vector<Unit> units;
  uint64_t bytes = 0;

  std::string traceDir() const { return dir + "/trace"; }
  std::string srcDir() const { return dir + "/src"; }
  /// The unit whose lines of file `file` include the 0-based `line`; null if none.
  const Unit *unitAt(uint32_t file, uint64_t line) const;
  /// Index of a file by base name; -1 if none.
  int fileByBaseName(const std::string &name) const;
  /// Where a path recorded in the source log is in this workload for `unit`: rewritten to its prefix
  /// (fixture mix), or through `mappings` (real-shaped); unchanged when neither applies.
  std::string localPath(const Unit &unit, const std::string &recorded) const;
  /// The units whose user files are `unit`'s (itself, or every rank of a real-shaped workload).
  std::vector<const Unit *> sameSources(const Unit &unit) const;
};

/// Returns the workload under `root`/spec.name, generating it when missing or stale (manifest from another
/// generator version or other fixtures, a file of the wrong size). A file that grew (an append test that did
/// not finish) is truncated back. `generated` says whether it was (re)written.
std::optional<Workload> ensureWorkload(const WorkloadSpec &spec, const std::vector<FixtureLog> &fixtures,
                                       const std::string &root, bool &generated, std::string &error);

/// The same for a real-shaped workload of `source` (loaded as `log`, index `logIndex` in the caller's list of
/// logs, which Unit::fixture refers to). `sitePackages` is the recorded `.../site-packages/` prefix of its
/// library frames (empty when it has none).
std::optional<Workload> ensureRealWorkload(const WorkloadSpec &spec, const RealSource &source,
                                           const FixtureLog &log, uint32_t logIndex,
                                           const std::string &sitePackages, const std::string &root,
                                           bool &generated, std::string &error);

/// A replica of `log` as rank `rank` on CUDA device `device` wrote it (see RealSource).
std::string renderReplica(const FixtureLog &log, int rank, int device = 0);

/// `text` as PyTorch writes it for CUDA device `device` (0-9) instead of device 0: `cuda:0`, `index=0`,
/// `_DeviceGuard(0)`, `get_raw_stream(0)` and the wrapper's `stream0` name the device (the forms a real
/// 2-GPU trace differs in, besides the kernels' cache paths). Lengths are kept, so positions stay.
std::string onDevice(std::string text, int device);

/// Writes the library file of `recorded` (a path under the recorded site-packages prefix) at `local`, unless
/// it exists: a copy of `<caseDir>/site-packages/<relative>` when the fixture has one, else a file with each
/// recorded line's text at its 1-based line (`lines`: line -> text) and blank lines elsewhere.
bool writeLibrarySource(const std::string &caseDir, const std::string &relative, const std::string &local,
                        const std::vector<std::pair<uint32_t, std::string>> &lines, std::string &error);

/// The compile-count workload (issue 33): `compiles-<N>` (e.g. "compiles-100k", "compiles-20000"), one log
/// of N compiles by one process that names no rank (neither its file name nor its records), as a long job
/// recompiling or compiling many frames writes. Each compile is what PyTorch 2.11 writes for a frame that
/// Dynamo compiles (torch/_dynamo/convert_frame.py, utils.py): `dynamo_start` with a stack, the
/// `dynamo_cpp_guards_str` payload (with its md5 `has_payload`), and `compilation_metrics`; frame i has
/// frame id i, its own line in `src/model.py` (user code that exists). No output code: what is measured is
/// the per-compile cost of the index (reading, compile health), which was quadratic in N when the log named
/// no rank (TraceLog::rank() scanned every record, once per compile).
/// Output: `<root>/compiles-<N>/trace/dedicated_log_torch_trace_bench.log` and `src/model.py`.
/// Deterministic; regenerated when missing or of the wrong size.
struct CompilesWorkload {
  std::string name, dir, log;
  unsigned compiles = 0;
  uint64_t bytes = 0;
};
/// Parses "compiles-<N>" (N a count, or with a `k` suffix for thousands); nullopt for other names.
std::optional<unsigned> parseCompilesSpec(const std::string &spec);
std::optional<CompilesWorkload> ensureCompilesWorkload(unsigned compiles, const std::string &root,
                                                       bool &generated, std::string &error);

} // namespace inductor::bench
