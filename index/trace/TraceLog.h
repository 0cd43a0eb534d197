// index/trace/TraceLog.h: reader for TORCH_TRACE structured logs, the files
// `dedicated_log_torch_trace[_rank_N]_<rnd>.log` that torch.compile writes when TORCH_TRACE=<dir> is set
// (format: TorchLogsFormatter and trace_structured in torch/_logging/_internal.py; tlparse reads the same
// files).
//
// A log is a sequence of records. A record is
//   * one envelope line: a glog-style prefix `V1122 10:29:20.476000 431 torch/_dynamo/utils.py:2126] ` (level
//     letter + MMDD, time with microseconds, pid, file:line; distributed runs may prefix `[rank0]:`), then
//     the metadata, a one-line JSON object whose first key is the record's kind (`{"inductor_output_code":
//     {...}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "<md5>"}`);
//   * zero or more payload lines, each starting with a TAB. The payload is those lines without the tab,
//   joined
//     with "\n"; `has_payload` is its md5 hex digest.
//
// Scanning: TraceLog::open memory-maps the file and makes one sequential pass (SSE2 over the payload lines,
// in 8 MB windows prefetched ahead and released behind, so the resident set stays small). Only records that
// matter for navigation and compile health are kept (see TraceKind); the metadata JSON is parsed only for
// those. Every other kind (chromium_event, describe_*, ...) is recognised by its first key with a string
// compare and only counted. Payloads are never copied or parsed during the scan: a record holds byte offsets
// into the mapping, and payloadLines()/payloadText() read them on demand. Artifacts with `"encoding": "json"`
// carry JSON payloads; parsing them is the caller's business.
//
// Errors: a log that cannot be opened is an Error. A malformed log is not: corrupted records (a line that is
// neither an envelope nor a payload line, an envelope whose metadata is not valid JSON, a payload that fails
// its md5 when verified) are counted, reported as diagnostics and skipped; the rest of the log still serves.
//
// A log cut short (its last record's payload fails its md5) is reported like a corrupted record (verifyAll,
// verifyLast). A log truncated while it is mapped never faults (see MappedFile.h): a scan that met the cut is
// redone on the file as it is now; payloads served later go through readPayload(), which refuses a log that
// was truncated, deleted or rewritten since.
//
// Units: lines are 0-based; offsets are byte offsets into text(); nothing here knows about UTF-16 or URIs.
//
// Growth: a log that is still being written can be followed in two ways. refresh() updates a TraceLog in
// place (cheap, but it invalidates views and needs exclusive access). resume() leaves the TraceLog alone and
// makes a new one over a new mapping of the same file, starting from the old one's state and scanning only
// the bytes after it, so readers of the old TraceLog (an index snapshot serving requests) are undisturbed.
//
// Ownership and lifetimes: TraceRecord string_views (kind, name, filename, ...) point into a string pool that
// the TraceLog shares with the TraceLogs resumed from it (and they with theirs): it lives as long as the last
// of them (moves included). The pool only grows, under its own mutex, so a resume() on one thread never
// disturbs views held by readers of another TraceLog of the same lineage. Views returned by text(),
// payloadLines() and metadataText() point into this TraceLog's mapping and are invalidated by
// refresh()/finalize(); record offsets stay valid. Thread-safety: const members (resume() included, which
// only reads `previous`) may be called concurrently; refresh() and finalize() need exclusive access.
#pragma once

#include "index/support/Expected.h"
#include "index/trace/CompileId.h"
#include "index/trace/MappedFile.h"
#include "index/trace/Md5.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace inductor::index {

/// The record kinds TraceLog keeps, named after the metadata key that PyTorch writes.
enum class TraceKind : uint8_t {
  Str,                   ///< `str`: one entry of the interned file-name table used by `stack` frames.
  DynamoStart,           ///< `dynamo_start`: a frame starts compiling; metadata holds the user stack.
  DynamoOutputGraph,     ///< `dynamo_output_graph`: the FX graph Dynamo captured (payload: readable graph).
  AotForwardGraph,       ///< `aot_forward_graph`
  AotBackwardGraph,      ///< `aot_backward_graph`
  AotInferenceGraph,     ///< `aot_inference_graph`
  AotJointGraph,         ///< `aot_joint_graph`
  InductorPreGradGraph,  ///< `inductor_pre_grad_graph` (older PyTorch writes it top-level, not as artifact).
  InductorPostGradGraph, ///< `inductor_post_grad_graph` (same).
  OtherGraph,            ///< Any other key ending in `_graph`.
  InductorOutputCode,    ///< `inductor_output_code`: the generated Python wrapper (payload: its source).
  GraphDump,             ///< `graph_dump`: e.g. `inductor_aot_wrapper_code`, the AOTI C++ wrapper.
  Artifact,              ///< `artifact`: named payloads, e.g. `inductor_provenance_tracking_node_mappings`.
  CompilationMetrics,    ///< `compilation_metrics`
  BwdCompilationMetrics, ///< `bwd_compilation_metrics`
  // Compile health (index/health/CompileHealth.h): guards, runtime cost and dynamic shapes of each compile.
  CompilationMetricsRuntime,             ///< `[bwd_]compilation_metrics_runtime`: cost at the first run.
  AotAutogradBackwardCompilationMetrics, ///< `aot_autograd_backward_compilation_metrics` (older PyTorch).
  DynamoCppGuardsStr,                    ///< `dynamo_cpp_guards_str`: the guard tree (payload: text).
  CreateSymbol,                          ///< `create_symbol`: a dimension or scalar became a symbol.
  CreateUnbackedSymbol,                  ///< `create_unbacked_symbol`: a data-dependent symbol.
  SymbolicShapeSpecialization,           ///< `symbolic_shape_specialization`: a symbol became a constant.
  GuardAddedFast,                        ///< `guard_added_fast`: a shape guard with its user stack.
  GuardAdded,                            ///< `guard_added`: the same on the slow path (export traces).
};

/// The metadata key of a kind, e.g. "inductor_output_code"; "<graph>" for OtherGraph (see
/// TraceRecord::kindKey).
std::string_view kindName(TraceKind kind);

/// An artifact's `encoding` (torch/_logging/_internal.py: "string" or "json").
enum class PayloadEncoding : uint8_t { None, String, Json, Other };

/// Result of checking a payload against its `has_payload` md5.
enum class PayloadCheck : uint8_t { Unchecked, Ok, Mismatch };

/// An id in the `str` table (`{"str": ["/path/file.py", 1]}`), as used by stack frames' `"filename": 1`.
struct InternedStringId {
  int value = 0;
  friend bool operator==(InternedStringId, InternedStringId) = default;
};

/// One kept record: 176 bytes on x86-64, offsets instead of copies, so a 1 GB log (about 50k kept records
/// among 300k) costs a few MB.
struct TraceRecord {
  uint64_t envelopeOffset = 0; ///< Offset of the envelope line (start of the glog prefix).
  uint64_t metadataOffset = 0; ///< Offset of the metadata JSON (its '{').
  /// The payload lines, tab prefixes included: [payloadBegin, payloadEnd), ends after the last payload line's
  /// '\n' (or at the end of the file). Empty when the record has no payload.
  uint64_t payloadBegin = 0;
  uint64_t payloadEnd = 0;
  uint32_t metadataLength = 0;   ///< Bytes of metadata JSON (without "\r\n").
  uint32_t line = 0;             ///< 0-based line of the envelope.
  uint32_t payloadLineCount = 0; ///< Payload lines (the first is on line + 1).
  /// Where the kind's value (the metadata member named kindKey, its first if repeated) is in the metadata:
  /// [kindValueOffset, kindValueOffset + kindValueLength) of metadataText(). Found by the scan, which
  /// checked the whole metadata, so that readers of a few members need not walk a large line again.
  uint32_t kindValueOffset = 0, kindValueLength = 0;
  TraceKind kind = TraceKind::Str;
  PayloadEncoding encoding = PayloadEncoding::None; ///< Artifact `encoding`.
  PayloadCheck check = PayloadCheck::Unchecked;     ///< Set when TraceLogOptions::verifyPayloads is on.
  CompileId compileId;                              ///< Top-level frame_id/frame_compile_id/attempt/ca id.
  std::optional<int> rank;                          ///< Top-level `rank`, or the `[rankN]:` prefix.
  std::optional<Md5Digest> payloadHash;             ///< `has_payload`.
  std::string_view kindKey;  ///< The metadata key as written, e.g. "aot_forward_graph". Interned.
  std::string_view name;     ///< artifact/graph_dump `name`, e.g. "inductor_aot_wrapper_code". Interned.
  std::string_view filename; ///< inductor_output_code `filename` (else `file_path`), graph_dump `filename`.
  std::string_view dumpType; ///< graph_dump `type`, e.g. "cpp". Interned.

  bool hasPayload() const { return payloadEnd > payloadBegin; }
};

/// Counters of a scan. All counts cover the committed part of the log (see TraceLog::refresh).
struct TraceScanStats {
  uint64_t bytes = 0;             ///< Bytes scanned and committed.
  uint64_t lines = 0;             ///< Lines in those bytes (a last line without '\n' counts).
  uint64_t records = 0;           ///< Envelope lines, every kind.
  uint64_t keptRecords = 0;       ///< Records in records().
  uint64_t skippedRecords = 0;    ///< Valid records of kinds not kept (see TraceLog::skippedKinds()).
  uint64_t corruptedRecords = 0;  ///< Garbage lines, invalid metadata, md5 mismatches (if verified).
  uint64_t payloadsVerified = 0;  ///< Payloads checked against has_payload (TraceLogOptions::verifyPayloads).
  uint64_t payloadMismatches = 0; ///< Of those, how many failed.
  uint64_t diagnostics = 0;       ///< Diagnostics produced, including those not stored.
};

/// A problem found in the log. `line` is the 0-based line of the offending envelope or garbage line.
struct TraceDiagnostic {
  uint32_t line = 0;
  std::string message;
};

/// How many records of a skipped kind were seen.
struct SkippedKindCount {
  std::string_view kind; ///< Interned; lives as long as the TraceLog.
  uint64_t count = 0;
};

/// Result of TraceLog::verifyAll().
struct PayloadVerification {
  uint64_t checked = 0;    ///< Records with has_payload, every kind.
  uint64_t mismatched = 0; ///< Of those, how many have a payload that does not hash to has_payload.
  std::vector<TraceDiagnostic> diagnostics; ///< One per mismatch, capped like TraceLog::diagnostics().
};

/// Payloads already found to match their has_payload md5, shared by the verification of several logs: the
/// ranks of a data-parallel job, and recompiles that generated the same code, write byte-identical payloads.
/// A payload whose digest and length are those of a verified one, and whose bytes (as in the file, tabs
/// included) are equal to it, is verified by comparing bytes (memcmp, an order of magnitude faster than MD5)
/// instead of hashing; equal bytes cannot hide a mismatch, so no corrupted payload passes this way.
///
/// Ownership: holds views into the mappings of the logs that verified the payloads: it must not outlive them
/// (an IndexBuilder keeps one for the duration of reading the logs). Thread-safety: every member may be
/// called concurrently.
class VerifiedPayloads {
public:
  /// The bytes of a verified payload with this digest and byte length, if any.
  std::optional<std::string_view> find(const Md5Digest &digest, uint64_t bytes) const;
  /// Records `bytes` (a payload's lines as in the file) as verified against `digest`. The first one is kept.
  void add(const Md5Digest &digest, std::string_view bytes);
  /// Payloads verified by comparison with one found here (for logs and tests).
  uint64_t reused() const { return reused_.load(std::memory_order_relaxed); }
  void countReuse() { reused_.fetch_add(1, std::memory_order_relaxed); }

private:
  struct Key {
    Md5Digest digest;
    uint64_t bytes = 0;
    friend bool operator==(const Key &, const Key &) = default;
  };
  struct KeyHash {
    size_t operator()(const Key &k) const {
      uint64_t h;
      std::memcpy(&h, k.digest.bytes.data(), sizeof h); // An MD5 is uniformly distributed already.
      return static_cast<size_t>(h ^ k.bytes);
    }
  };
  mutable std::mutex mutex_;
  std::unordered_map<Key, std::string_view, KeyHash> verified_;
  std::atomic<uint64_t> reused_{0};
};

struct TraceLogOptions {
  /// Follow a log that is still being written: the last record stays pending (out of records() and stats)
  /// until the next envelope line arrives (refresh()), the writer has been quiet (quietPeriod), or finalize()
  /// is called, because its payload may still grow; an unterminated last line is not read either. Default
  /// false: the log is complete as it is.
  bool follow = false;
  /// Follow mode: open() and refresh() commit the pending last record when the file ends with a newline and
  /// has not been modified for this long (PyTorch writes a record in one logging call, so a quiet file ends
  /// on a complete record). Default 2 s.
  std::chrono::milliseconds quietPeriod{2000};
  /// Check every payload (all kinds) against its has_payload md5 during the scan; mismatches become
  /// diagnostics and corruptedRecords, and kept records get PayloadCheck::Mismatch but are still kept (their
  /// text is the best there is). Costs MD5 over every payload byte (roughly 0.5 GB/s). Default false.
  bool verifyPayloads = false;
  /// How many diagnostics are stored; all are counted in TraceScanStats::diagnostics. Default 100.
  size_t maxDiagnostics = 100;
  /// Threads one scan may use. With 2 or more, a scan of at least splitBytes (open() of a large log) reads
  /// its two halves at once, split at a record; the result is the same as one pass. Default 1.
  unsigned jobs = 1;
  /// The least a scan reads for jobs > 1 to split it. Default 64 MB (tests use less).
  uint64_t splitBytes = uint64_t{64} << 20;
  /// Called by open() while it scans, from the scanning thread, about every 8 MB with the bytes of the file
  /// scanned so far (for progress reports on large logs). Not kept: the TraceLog open() returns has none, so
  /// later scans (refresh(), resume()) never call it. Default: none.
  std::function<void(uint64_t scannedBytes)> progress;
};

class TraceLog {
public:
  /// Limits on what one record may make the reader keep (a trace is outside input; see SECURITY.md).
  /// Metadata lines of kept records longer than this are skipped as corrupted (walking them is cheap, but
  /// nothing PyTorch writes comes near: the largest seen, a bwd_compilation_metrics line, is 7 MB).
  static constexpr size_t kMaxMetadataBytes = size_t{64} << 20;
  /// Strings kept from metadata (file names, artifact names, `str` table entries) longer than this are
  /// ignored: they are paths and identifiers, and keeping one copies it.
  static constexpr size_t kMaxMetadataString = 4096;

  /// Maps and scans `path`. Errors: only when the file cannot be opened or mapped; an empty or non-trace file
  /// gives a TraceLog without records (and, for a non-trace file, corrupted-record diagnostics).
  static Expected<TraceLog> open(const std::string &path, const TraceLogOptions &options = {});
  /// Scans an in-memory log (tests, virtual documents). `path` is only reported back (and used for rank()).
  static TraceLog fromText(std::string text, std::string path = "", const TraceLogOptions &options = {});
  /// The log at `previous.path()` as it is now, without touching `previous`: maps the file again and, when it
  /// is the same file grown (same device and inode, not smaller than what `previous` scanned, the same bytes
  /// where the scan resumes), copies `previous`'s records, stats, diagnostics and interned strings (shared,
  /// not copied) and scans only from the start of `previous`'s last record (which may have grown) to the end;
  /// records already in `previous` keep their index. A file that shrank or was replaced is scanned from
  /// scratch (resumed() is then false). The result is the same as open() with `previous`'s options would
  /// give. Cost: the copy of records() (176 bytes per kept record) plus the scan of the new bytes, see
  /// bytesRead(). Errors: `previous` has no file (fromText()), or the file cannot be opened or mapped.
  static Expected<TraceLog> resume(const TraceLog &previous);

  TraceLog(TraceLog &&) noexcept;
  TraceLog &operator=(TraceLog &&) noexcept;
  ~TraceLog();

  const std::string &path() const { return file_.path(); }
  /// The whole log as mapped (bytes past stats().bytes may belong to a pending record).
  std::string_view text() const { return file_.text(); }
  /// Kept records, in file order.
  const std::vector<TraceRecord> &records() const { return records_; }
  const TraceScanStats &stats() const { return stats_; }
  /// The first TraceLogOptions::maxDiagnostics diagnostics, in file order.
  const std::vector<TraceDiagnostic> &diagnostics() const { return diagnostics_; }
  /// Counts of skipped kinds, most frequent first (for logging what the log holds).
  std::vector<SkippedKindCount> skippedKinds() const;

  /// The rank that wrote this log: from the file name (`..._rank_1_xxx.log`), else from the first record
  /// carrying a `rank` or `[rankN]:` prefix; nullopt for single-process runs. O(1): the first ranked record
  /// is remembered by the scan.
  std::optional<int> rank() const;

  /// The metadata JSON of a record (parse it with nlohmann::json::parse(s, nullptr, false) when needed).
  std::string_view metadataText(const TraceRecord &record) const;
  /// The raw JSON of the kind's value within metadataText() (TraceRecord::kindValueOffset): a view into the
  /// mapping, well-formed as the scan found it; empty when out of range.
  std::string_view kindValueText(const TraceRecord &record) const;
  /// The payload lines without their leading tab (and without a '\r' of CRLF files): views into the mapping.
  std::vector<std::string_view> payloadLines(const TraceRecord &record) const;
  /// The payload, lines joined with "\n". The only copying accessor: meant for small JSON payloads and
  /// virtual documents; for large payloads prefer payloadLines().
  std::string payloadText(const TraceRecord &record) const;
  /// Whether md5(payloadText) equals has_payload, computed while walking the lines (no copy). A record
  /// without has_payload verifies when it has no payload either.
  bool verifyPayload(const TraceRecord &record) const;
  /// Checks the md5 of every record with has_payload in the committed part of the log, all kinds included
  /// (unlike records()). Cost: one more pass over the file plus MD5 of every payload byte (roughly 0.5 GB/s,
  /// single-threaded); meant for a background task. Does not modify the TraceLog.
  /// With `shared`, payloads byte-identical to one verified before (by this log or another) are checked by
  /// comparing bytes instead (see VerifiedPayloads), and those verified here are added to it.
  PayloadVerification verifyAll(VerifiedPayloads *shared = nullptr) const;
  /// The same for the last record of the committed part only (any kind): where a log that was cut short, or
  /// is still being written, shows. Its diagnostic says "cut short". Cheap: one payload.
  PayloadVerification verifyLast() const;

  /// What became of the file since it was mapped (see MappedFile::state()): Truncated and Deleted logs must
  /// not be served from any more. Unchanged for fromText() logs.
  FileState fileState() const;
  /// A record's payload for serving it long after the scan (payloadText() with checks): an Error when the
  /// file was deleted or truncated since it was read, or changed so that the record no longer matches its
  /// has_payload md5. Never faults, even if the file is cut during the read (MappedFile's guard).
  Expected<std::string> readPayload(const TraceRecord &record) const;

  /// The file name interned under `id` by a `str` record, if any.
  std::optional<std::string_view> internedFilename(InternedStringId id) const;

  /// Picks up bytes appended since the last scan: re-maps the file and scans from the start of the last
  /// (pending or possibly incomplete) record. Returns how many records were appended to records(); records
  /// already there stay (same index), though the last one's payload may have grown. Invalidates views into
  /// text(). Errors: the file cannot be re-mapped, or it shrank (re-open it instead).
  Expected<size_t> refresh();
  /// Commits the pending record and an unterminated last line (follow mode: the writer is done). A record
  /// committed this way stays in records() if the file grows later (its payload may grow).
  void finalize();
  /// Bytes consumed by scans so far, pending record included (>= stats().bytes).
  uint64_t scannedBytes() const { return scannedBytes_; }
  /// Returns the mapping's resident pages to the page cache (MADV_DONTNEED): after the index has analysed the
  /// payloads it needs, nothing of the log is kept in this process's memory; later reads (a virtual
  /// document's text) fault the pages they touch back in. Safe while other threads read the log: views stay
  /// valid.
  void releasePages() const { file_.dropPages(0, file_.size()); }
  /// The same for the whole pages of [offset, offset + length): what a reader going through the log in
  /// order has left behind.
  void releasePages(uint64_t offset, uint64_t length) const { file_.dropPages(offset, length); }
  /// The same for the pages of one record's payload (whole pages only), after its text was copied out.
  void releasePayloadPages(const TraceRecord &record) const {
    file_.dropPages(record.payloadBegin, record.payloadEnd - record.payloadBegin);
  }
  /// Bytes of the file this object's own scans went through: the whole file after open(), only the bytes
  /// from the resume point after resume() (refresh() adds what it scans). For measuring incremental work.
  uint64_t bytesRead() const { return bytesRead_; }
  /// Whether resume() made this log by continuing from the previous one (false: scanned from scratch).
  bool resumed() const { return resumed_; }
  /// Whether the file at path() is no longer what this log mapped: another size, modification time, device
  /// or inode, or it cannot be stat'ed. Always false for fromText() logs. A log that is not stale has nothing
  /// to gain from resume() (except a follow-mode log whose pending record became quiet).
  bool stale() const;

  /// Whether `head` (the first bytes of a file) looks like a TORCH_TRACE log: its first non-empty line is a
  /// record envelope. Cheap; for picking trace files out of a directory.
  static bool looksLikeTrace(std::string_view head);
  /// The N of `_rank_N` in a file name (directories ignored), e.g. "dedicated_log_torch_trace_rank_1_ab.log";
  /// nullopt when there is none or N does not fit an int (never its first digits only).
  static std::optional<int> rankFromFileName(std::string_view path);

private:
  struct Checkpoint {
    uint64_t offset = 0;
    uint64_t line = 0;
    TraceScanStats stats;
    size_t records = 0;
    size_t diagnostics = 0;
    std::string_view skippedKind; // The last unit's skipped kind, to un-count on rollback.
  };

  struct StringPool;

  TraceLog(MappedFile file, const TraceLogOptions &options);
  void scan(bool final);
  /// scan() from the checkpoint up to `limit` (at most the file's size).
  void scanRange(bool final, uint64_t limit);
  /// Appends what `part` scanned from where this scan stopped (a record start) to this log's state.
  void append(TraceLog &&part);
  void saveResumePoint();
  bool canResumeIn(const MappedFile &file) const;
  void rollback();
  void commitIfQuiet();
  void diagnose(uint64_t line, std::string message);
  PayloadVerification verifyFrom(uint64_t offset, uint64_t line, VerifiedPayloads *shared) const;
  std::string_view intern(std::string_view s);

  MappedFile file_;
  TraceLogOptions options_;
  std::vector<TraceRecord> records_;
  std::vector<TraceDiagnostic> diagnostics_;
  TraceScanStats stats_;
  Checkpoint checkpoint_;          // State before the last unit (record or garbage run) scanned.
  bool lastUnitCommitted_ = false; // Whether that unit is counted (false: pending, or none yet).
  bool lastUnitSticky_ = false;    // It was committed by finalize(): never make it pending again.
  uint64_t scannedBytes_ = 0;
  uint64_t bytesRead_ = 0;
  bool resumed_ = false;
  // Bytes of the file just before checkpoint_.offset and at its start, as scanned: resume() checks that
  // the file still holds them there before it trusts the old records.
  std::string resumeTail_, resumeHead_;
  std::optional<int> envelopeRank_;
  // Index in records_ of the first record carrying a rank, maintained as records are added and rolled back,
  // so that rank() is O(1) (it is asked once per compile; a search made indexing quadratic).
  static constexpr size_t kNoRecord = size_t(-1);
  size_t firstRanked_ = kNoRecord;
  // Interned strings, shared along resume() lineages (see the file comment).
  std::shared_ptr<StringPool> strings_;
  std::unordered_map<std::string_view, uint64_t> skipped_;
  std::unordered_map<int, std::string_view> strTable_;
};

} // namespace inductor::index
