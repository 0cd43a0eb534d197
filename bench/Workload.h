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
    bool digestOk = false; ///< has_payload matches the original payload.
  };
  std::vector<Record> records;
  int maxStrId = -1;
  uint64_t lines = 0;
};

/// Loads every fixture log, sorted by path. Errors go to `error` (empty list then).
std::vector<FixtureLog> loadFixtures(const std::string &fixturesDir, std::string &error);

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
};

/// What to generate, from a size spec: "10M", "100M", "1G" (8 rank files) or "1G-single" (one file).
struct WorkloadSpec {
  std::string name;
  uint64_t targetBytes = 0;
  unsigned ranks = 8; ///< 0: a single file without a rank in its name.
  static std::optional<WorkloadSpec> parse(const std::string &spec);
};

struct Workload {
  WorkloadSpec spec;
  std::string dir;
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
};

/// Returns the workload under `root`/spec.name, generating it when missing or stale (manifest from another
/// generator version or other fixtures, a file of the wrong size). A file that grew (an append test that did
/// not finish) is truncated back. `generated` says whether it was (re)written.
std::optional<Workload> ensureWorkload(const WorkloadSpec &spec, const std::vector<FixtureLog> &fixtures,
                                       const std::string &root, bool &generated, std::string &error);

} // namespace inductor::bench
