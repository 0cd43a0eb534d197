// index/trace/TraceLog.cpp: the TORCH_TRACE scanner. The hot loop is skipPayload(), which runs over the
// payload lines that make up most of a log; everything else runs once per record, and the JSON work once per
// kept record.
#include "index/trace/TraceLog.h"

#include "index/trace/JsonScan.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace inductor::index {
namespace {

// The scan works through the mapping in windows of this many bytes: pages behind the scan position are
// dropped from the process (see MappedFile::dropPages), and the next windows are prefetched so that a cold
// file is read ahead asynchronously while this one is scanned.
constexpr uint64_t kWindow = 8u << 20;
constexpr uint64_t kPrefetch = 4 * kWindow;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view stripCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// A run of lines that belong together: an envelope (or a garbage line) plus the payload lines after it.
struct Unit {
  uint64_t begin = 0;        // First byte of the first line.
  uint64_t firstLineEnd = 0; // End of the first line's content (its '\n' or the limit).
  uint64_t end = 0;          // Past the last line consumed.
  uint64_t payloadBegin = 0, payloadEnd = 0;
  uint64_t lines = 0;            // Lines consumed.
  uint32_t payloadLineCount = 0; // Lines from the first to the last payload line.
};

const char *findNewline(const char *p, const char *end) {
  const void *nl = std::memchr(p, '\n', size_t(end - p));
  return nl ? static_cast<const char *>(nl) : end;
}

// Bits set in a 16-bit mask, without a library call.
inline unsigned popcount16(unsigned x) {
  x = x - ((x >> 1) & 0x5555u);
  x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
  x = (x + (x >> 4)) & 0x0f0fu;
  return (x + (x >> 8)) & 0x1fu;
}

// Whether the line starting at `p` continues a record's payload: a payload line ('\t') or a blank line.
inline bool continuesPayload(const char *p, const char *end) {
  return *p == '\t' || *p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n');
}

// From `p`, a line start, skips the lines that continue a payload and returns the start of the first line
// that does not (or `end`), adding the newlines skipped to `newlines`. This is the hot loop of a scan: most
// bytes of a log are payload lines of skipped records. With SSE2 it looks at 16 line ends at a time for a
// '\n' whose next byte is neither '\t' nor '\n', instead of calling memchr once per (short) line.
const char *skipPayload(const char *p, const char *end, uint64_t &newlines) {
  while (p < end && continuesPayload(p, end)) {
#if defined(__SSE2__)
    // Newlines are counted in per-byte SIMD counters (flushed before they can overflow), because
    // __builtin_popcount is a library call unless the build targets a CPU with POPCNT.
    const __m128i newline = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t'), zero = _mm_setzero_si128();
    __m128i counts = zero;
    int pending = 0;
    auto flush = [&] {
      __m128i sums = _mm_sad_epu8(counts, zero);
      newlines += uint64_t(_mm_cvtsi128_si32(sums)) + uint64_t(_mm_extract_epi16(sums, 4));
      counts = zero;
      pending = 0;
    };
    bool found = false;
    while (p + 17 <= end) {
      __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
      __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 1));
      __m128i isNewline = _mm_cmpeq_epi8(here, newline);
      unsigned lineEnds = unsigned(_mm_movemask_epi8(isNewline));
      unsigned continued =
          unsigned(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(next, tab), _mm_cmpeq_epi8(next, newline))));
      if (unsigned stops = lineEnds & ~continued) {
        int i = __builtin_ctz(stops);
        newlines += popcount16(lineEnds & ((2u << i) - 1));
        p += i + 1; // A line start that may end the run ('\r' is decided by continuesPayload).
        found = true;
        break;
      }
      counts = _mm_sub_epi8(counts, isNewline); // isNewline is -1 per newline byte.
      if (++pending == 255) flush();
      p += 16;
    }
    flush();
    if (found) continue;
#endif
    const char *nl = findNewline(p, end);
    if (nl == end) return end;
    ++newlines;
    p = nl + 1;
  }
  return p < end ? p : end;
}

// Reads the unit that starts at `pos` (a non-blank line) within [pos, limit). Payload lines start with a tab.
// Blank lines between payload lines are tolerated as empty payload lines (editors strip a lone "\t"), but
// blank lines after the last payload line are not part of the payload.
Unit readUnit(const char *base, uint64_t pos, uint64_t limit) {
  const char *end = base + limit;
  const char *p = base + pos;
  Unit u;
  u.begin = pos;
  const char *nl = findNewline(p, end);
  u.firstLineEnd = uint64_t(nl - base);
  p = nl < end ? nl + 1 : end;
  uint64_t newlines = 0;
  const char *q = skipPayload(p, end, newlines);
  // A last line without '\n' at the end of the range counts as a line.
  uint64_t lines = 1 + newlines + (q == end && q > p && q[-1] != '\n' ? 1 : 0);
  // Trailing blank lines are consumed (so the next unit starts at a record) but are not payload.
  const char *payloadEnd = q;
  uint64_t trailingBlanks = 0;
  while (payloadEnd > p && payloadEnd[-1] == '\n') {
    const char *lineStart = payloadEnd - 1;
    if (lineStart > p && lineStart[-1] == '\r') --lineStart;
    if (lineStart != p && lineStart[-1] != '\n') break;
    payloadEnd = lineStart;
    ++trailingBlanks;
  }
  u.payloadBegin = uint64_t(p - base);
  u.payloadEnd = uint64_t(payloadEnd - base);
  u.end = uint64_t(q - base);
  u.lines = lines;
  u.payloadLineCount = uint32_t(lines - 1 - trailingBlanks);
  return u;
}

struct Envelope {
  size_t metadataBegin = 0; // Offset of the metadata in the line.
  std::optional<int> rank;  // From a `[rankN]:` prefix.
};

// Recognises `[rankN]:` (optional) + `V1122 10:29:20.476000 <pid> <file>:<line>] ` and returns where the
// metadata starts. The time is checked digit by digit so that ordinary text is rarely taken for a record.
std::optional<Envelope> parseEnvelope(std::string_view line) {
  Envelope env;
  size_t i = 0;
  if (line.starts_with("[rank")) {
    i = 5;
    int rank = 0;
    size_t digits = 0;
    for (; i < line.size() && isDigit(line[i]) && digits < 9; ++i, ++digits)
      rank = rank * 10 + (line[i] - '0');
    if (digits == 0 || i + 1 >= line.size() || line[i] != ']' || line[i + 1] != ':') return std::nullopt;
    env.rank = rank;
    i += 2;
  }
  // "V1122 10:29:20.476000" is 21 characters.
  std::string_view s = line.substr(i);
  if (s.size() < 24 || s[0] < 'A' || s[0] > 'Z') return std::nullopt;
  static constexpr char kShape[] = "X0000 00:00:00.";
  for (size_t k = 1; k < sizeof(kShape) - 1; ++k) {
    if (kShape[k] == '0' ? !isDigit(s[k]) : s[k] != kShape[k]) return std::nullopt;
  }
  // The metadata follows the first "] " that precedes a '{'; a record whose metadata was cut right after
  // the prefix still counts as an envelope (with invalid metadata).
  size_t close = s.find("] {", 15);
  if (close == std::string_view::npos) close = s.find("] ", 15);
  if (close == std::string_view::npos) return std::nullopt;
  env.metadataBegin = i + close + 2;
  return env;
}

// The first key of the metadata object, without a JSON parse: PyTorch writes json.dumps(record) with the kind
// first, as `{"kind": ...`. Empty when the metadata does not start that way.
std::string_view peekKind(std::string_view metadata) {
  if (metadata.size() < 4 || metadata[0] != '{' || metadata[1] != '"') return {};
  size_t close = metadata.find('"', 2);
  if (close == std::string_view::npos || close + 1 >= metadata.size() || metadata[close + 1] != ':')
    return {};
  std::string_view key = metadata.substr(2, close - 2);
  if (key.find('\\') != std::string_view::npos) return {};
  return key;
}

bool isCommonKey(std::string_view key) {
  return key == "frame_id" || key == "frame_compile_id" || key == "attempt" ||
         key == "compiled_autograd_id" || key == "rank" || key == "has_payload" || key == "stack";
}

/// The one table of the kinds kept (torch/_logging/structured.py and the trace_structured calls of Dynamo,
/// AOTAutograd and Inductor write them): the record key that names each, the first key of a kind being its
/// name (kindName). Kinds not here are skipped, but for other `*_graph` dumps (TraceKind::OtherGraph).
struct KindEntry {
  std::string_view key;
  TraceKind kind;
};
constexpr KindEntry kKinds[] = {
    {"str", TraceKind::Str},
    {"artifact", TraceKind::Artifact},
    {"graph_dump", TraceKind::GraphDump},
    {"dynamo_start", TraceKind::DynamoStart},
    {"inductor_output_code", TraceKind::InductorOutputCode},
    {"dynamo_output_graph", TraceKind::DynamoOutputGraph},
    {"aot_forward_graph", TraceKind::AotForwardGraph},
    {"aot_backward_graph", TraceKind::AotBackwardGraph},
    {"aot_inference_graph", TraceKind::AotInferenceGraph},
    {"aot_joint_graph", TraceKind::AotJointGraph},
    {"inductor_pre_grad_graph", TraceKind::InductorPreGradGraph},
    {"inductor_post_grad_graph", TraceKind::InductorPostGradGraph},
    {"compilation_metrics", TraceKind::CompilationMetrics},
    {"bwd_compilation_metrics", TraceKind::BwdCompilationMetrics},
    {"compilation_metrics_runtime", TraceKind::CompilationMetricsRuntime},
    {"bwd_compilation_metrics_runtime", TraceKind::CompilationMetricsRuntime},
    {"aot_autograd_backward_compilation_metrics", TraceKind::AotAutogradBackwardCompilationMetrics},
    {"dynamo_cpp_guards_str", TraceKind::DynamoCppGuardsStr},
    {"create_symbol", TraceKind::CreateSymbol},
    {"create_unbacked_symbol", TraceKind::CreateUnbackedSymbol},
    {"symbolic_shape_specialization", TraceKind::SymbolicShapeSpecialization},
    {"guard_added_fast", TraceKind::GuardAddedFast},
    {"guard_added", TraceKind::GuardAdded},
};

std::optional<TraceKind> keptKind(std::string_view key) {
  // The skipped kinds dominate (chromium_event alone is most records); most fail on the first character.
  for (const KindEntry &e : kKinds)
    if (e.key.size() == key.size() && e.key[0] == key[0] && e.key == key) return e.kind;
  if (key.ends_with("_graph")) return TraceKind::OtherGraph;
  return std::nullopt;
}

// What a record's `has_payload` member says: absent, a digest, or malformed (anything but a string of 32 hex
// digits, which is what torch/_logging/_internal.py writes: the payload's md5 hexdigest). A malformed one
// cannot vouch for its payload, so the record is reported as corrupted rather than served unchecked.
struct HasPayload {
  bool present = false;
  std::optional<Md5Digest> digest; // nullopt with `present`: malformed.
  bool malformed() const { return present && !digest; }
};

// The digest of a raw JSON value (with its quotes); nullopt unless it is "<32 hex digits>".
std::optional<Md5Digest> digestOfRaw(std::string_view raw) {
  if (raw.size() != 34 || raw.front() != '"' || raw.back() != '"') return std::nullopt;
  return Md5Digest::fromHex(raw.substr(1, 32));
}

// `"has_payload": <value>` without a JSON parse (used for skipped kinds and by the verification pass). The
// last occurrence: PyTorch writes the member last; a quote inside a string value is escaped, so the pattern
// cannot start inside one.
HasPayload peekHasPayload(std::string_view metadata) {
  static constexpr std::string_view kKey = "\"has_payload\"";
  HasPayload out;
  size_t at = metadata.rfind(kKey);
  if (at == std::string_view::npos) return out;
  out.present = true;
  size_t pos = at + kKey.size();
  auto skipSpace = [&] {
    while (pos < metadata.size() && (metadata[pos] == ' ' || metadata[pos] == '\t'))
      ++pos;
  };
  skipSpace();
  if (pos >= metadata.size() || metadata[pos] != ':') return out;
  ++pos;
  skipSpace();
  out.digest = digestOfRaw(metadata.substr(pos, 34));
  return out;
}

std::string malformedHasPayload(std::string_view kind) {
  return "malformed has_payload (" + std::string(kind) +
         " record): not a 32-digit hex md5, so its payload cannot be checked; record skipped";
}

using json_scan::walkObject;

// Limits on what one record may make the scan keep (documented in TraceLog.h).
constexpr size_t kMaxMetadataString = TraceLog::kMaxMetadataString;

// An integer value; nullopt for null or anything else.
std::optional<int> jsonInt(std::string_view raw) {
  return json_scan::integer(raw);
}

// A string value's text, decoded (see json_scan::string); nullopt for anything else and for strings longer
// than kMaxMetadataString, which nothing in PyTorch writes (file paths, names): interning one would copy it.
std::optional<std::string_view> jsonString(std::string_view raw, std::string &scratch) {
  if (raw.size() > kMaxMetadataString + 2) return std::nullopt;
  return json_scan::string(raw, scratch);
}

// A short, printable excerpt of a bad line for a diagnostic.
std::string excerpt(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 60))
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (line.size() > 60) out += "...";
  return out;
}

template <typename F> void forEachPayloadLine(std::string_view text, const TraceRecord &r, F &&f) {
  const char *base = text.data();
  const char *p = base + r.payloadBegin, *end = base + std::min<uint64_t>(r.payloadEnd, text.size());
  while (p < end) {
    const char *nl = findNewline(p, end);
    std::string_view line(p, size_t(nl - p));
    if (!line.empty() && line.front() == '\t') line.remove_prefix(1);
    f(stripCr(line));
    p = nl < end ? nl + 1 : end;
  }
}

bool payloadMatches(std::string_view text, const TraceRecord &r, const Md5Digest &expected) {
  Md5 md5;
  bool first = true;
  forEachPayloadLine(text, r, [&](std::string_view line) {
    if (!first) md5.update("\n", 1);
    first = false;
    md5.update(line);
  });
  return md5.digest() == expected;
}

} // namespace

std::string_view kindName(TraceKind kind) {
  if (kind == TraceKind::OtherGraph) return "<graph>";
  for (const KindEntry &e : kKinds) // The first key of a kind is its name.
    if (e.kind == kind) return e.key;
  return "";
}

// The interned strings of a lineage of TraceLogs (open() and the logs resumed from it). Append-only: a deque
// never moves its elements, so the views handed out stay valid while others are added.
struct TraceLog::StringPool {
  std::mutex mutex;
  std::deque<std::string> strings;
  std::unordered_set<std::string_view> index; // Views into `strings`.

  std::string_view intern(std::string_view s) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = index.find(s); it != index.end()) return *it;
    std::string_view stored = strings.emplace_back(s);
    index.insert(stored);
    return stored;
  }
};

TraceLog::TraceLog(MappedFile file, const TraceLogOptions &options)
    : file_(std::move(file)), options_(options), strings_(std::make_shared<StringPool>()) {}

TraceLog::TraceLog(TraceLog &&) noexcept = default;
TraceLog &TraceLog::operator=(TraceLog &&) noexcept = default;
TraceLog::~TraceLog() = default;

Expected<TraceLog> TraceLog::open(const std::string &path, const TraceLogOptions &options) {
  // A file cut while it is scanned reads as zeros past the cut (see MappedFile.h): the scan is then redone on
  // the file as it is now, a few times at most.
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    auto file = MappedFile::open(path);
    if (!file) return file.error();
    TraceLog log(std::move(*file), options);
    log.scan(/*final=*/!options.follow);
    log.options_.progress = nullptr; // It may capture state of the caller that ends with this call.
    log.commitIfQuiet();
    if (log.file_.state() != FileState::Truncated) return log;
    if (attempt == kAttempts) {
      ++log.stats_.corruptedRecords;
      log.diagnose(0, "the file was truncated while it was read, " + std::to_string(kAttempts) +
                          " times: what was read past the cut is unusable");
      return log;
    }
  }
}

TraceLog TraceLog::fromText(std::string text, std::string path, const TraceLogOptions &options) {
  TraceLog log(MappedFile::fromString(std::move(text), std::move(path)), options);
  log.scan(/*final=*/!options.follow);
  return log;
}

Expected<TraceLog> TraceLog::resume(const TraceLog &previous) {
  if (!previous.file_.stamp()) return Error{"an in-memory trace log cannot be resumed: " + previous.path()};
  auto file = MappedFile::open(previous.path());
  if (!file) return file.error();
  const TraceLogOptions &options = previous.options_;
  if (!previous.canResumeIn(*file)) {
    TraceLog log(std::move(*file), options);
    log.scan(/*final=*/!options.follow);
    log.commitIfQuiet();
    return log;
  }
  TraceLog log(std::move(*file), options);
  log.records_ = previous.records_;
  log.diagnostics_ = previous.diagnostics_;
  log.stats_ = previous.stats_;
  log.checkpoint_ = previous.checkpoint_;
  log.lastUnitCommitted_ = previous.lastUnitCommitted_;
  log.lastUnitSticky_ = previous.lastUnitSticky_;
  log.scannedBytes_ = previous.scannedBytes_;
  log.resumeTail_ = previous.resumeTail_;
  log.resumeHead_ = previous.resumeHead_;
  log.envelopeRank_ = previous.envelopeRank_;
  log.firstRanked_ = previous.firstRanked_;
  log.strings_ = previous.strings_; // Shared: the copied records point into it.
  log.skipped_ = previous.skipped_;
  log.strTable_ = previous.strTable_;
  log.resumed_ = true;
  // As refresh() does, on the new mapping.
  if (log.file_.size() != log.scannedBytes_) {
    log.rollback();
    log.scan(/*final=*/!options.follow);
  }
  log.commitIfQuiet();
  // Cut while it was scanned: read it again from the start (open() retries).
  if (log.file_.state() == FileState::Truncated) return open(previous.path(), options);
  return log;
}

bool TraceLog::canResumeIn(const MappedFile &file) const {
  const auto &was = file_.stamp(), &now = file.stamp();
  if (!was || !now || was->device != now->device || was->inode != now->inode) return false;
  if (file.size() < scannedBytes_ || checkpoint_.offset > scannedBytes_) return false;
  std::string_view text = file.text();
  if (text.substr(0, resumeHead_.size()) != resumeHead_) return false;
  return text.substr(checkpoint_.offset - resumeTail_.size(), resumeTail_.size()) == resumeTail_;
}

void TraceLog::saveResumePoint() {
  constexpr uint64_t kFingerprint = 64;
  std::string_view text = file_.text();
  uint64_t offset = std::min<uint64_t>(checkpoint_.offset, text.size());
  uint64_t tail = std::min(offset, kFingerprint);
  resumeTail_.assign(text.substr(offset - tail, tail));
  resumeHead_.assign(text.substr(0, std::min<uint64_t>(text.size(), kFingerprint)));
}

bool TraceLog::stale() const {
  if (!file_.stamp()) return false;
  auto now = MappedFile::stampOf(path());
  return !now || *now != *file_.stamp();
}

std::string_view TraceLog::intern(std::string_view s) {
  return strings_->intern(s);
}

void TraceLog::diagnose(uint64_t line, std::string message) {
  ++stats_.diagnostics;
  if (diagnostics_.size() < options_.maxDiagnostics)
    diagnostics_.push_back({uint32_t(std::min<uint64_t>(line, UINT32_MAX)), std::move(message)});
}

void TraceLog::rollback() {
  if (!lastUnitCommitted_) return;
  stats_ = checkpoint_.stats;
  records_.resize(checkpoint_.records);
  if (firstRanked_ != kNoRecord && firstRanked_ >= records_.size()) firstRanked_ = kNoRecord;
  diagnostics_.resize(checkpoint_.diagnostics);
  if (!checkpoint_.skippedKind.empty()) {
    auto it = skipped_.find(checkpoint_.skippedKind);
    if (it != skipped_.end() && --it->second == 0) skipped_.erase(it);
  }
  lastUnitCommitted_ = false;
}

void TraceLog::scan(bool final) {
  // Two halves at once on a large log (one rank's log of a long job is often all there is). The second half
  // starts at a record: the first line at or after the middle that does not continue a payload, which is
  // where one pass would start a unit too. It is scanned by a TraceLog of its own over a second mapping of
  // the file, sharing the interned strings, then appended.
  const std::string_view text = file_.text();
  const uint64_t from = checkpoint_.offset, size = text.size();
  if (options_.jobs < 2 || from >= size || size - from < std::max<uint64_t>(options_.splitBytes, 2))
    return scanRange(final, size);
  const char *split = findNewline(text.data() + from + (size - from) / 2, text.data() + size);
  while (split < text.data() + size && (split + 1 == text.data() + size ||
                                        continuesPayload(split + 1, text.data() + size) || split[1] == '\r'))
    split = findNewline(split + 1, text.data() + size);
  // The line there is complete too: one still being written (follow mode) is not yet proof of a record.
  if (split >= text.data() + size || findNewline(split + 1, text.data() + size) == text.data() + size)
    return scanRange(final, size);
  const uint64_t at = uint64_t(split + 1 - text.data());
  // An in-memory log (tests) is copied.
  auto file = file_.stamp() ? MappedFile::open(path()) : MappedFile::fromString(std::string(text), path());
  // Not the same file any more (replaced under its path): one pass over this mapping.
  if (!file || file->size() < size ||
      (file_.stamp() && (!file->stamp() || file->stamp()->device != file_.stamp()->device ||
                         file->stamp()->inode != file_.stamp()->inode)))
    return scanRange(final, size);
  TraceLogOptions options = options_;
  options.progress = nullptr;
  options.jobs = 1;
  TraceLog part(std::move(*file), options);
  part.strings_ = strings_;
  part.checkpoint_.offset = at;
  std::thread second([&] { part.scanRange(final, size); });
  scanRange(/*final=*/true, at); // Its last record ends where the next begins.
  second.join();
  append(std::move(part));
}

void TraceLog::append(TraceLog &&part) {
  const uint64_t lines = stats_.lines; // Lines before the part's first.
  auto line = [&](uint64_t l) { return uint32_t(std::min<uint64_t>(l + lines, UINT32_MAX)); };
  // Counters add up; `bytes` is an offset in the file (the part's end), `lines` the part's shifted.
  static_assert(sizeof(TraceScanStats) == 9 * sizeof(uint64_t),
                "a new counter of TraceScanStats: merge it here");
  auto merged = [&](const TraceScanStats &p) {
    TraceScanStats m = stats_;
    m.bytes = p.bytes;
    m.lines = lines + p.lines;
    m.records += p.records;
    m.keptRecords += p.keptRecords;
    m.skippedRecords += p.skippedRecords;
    m.corruptedRecords += p.corruptedRecords;
    m.payloadsVerified += p.payloadsVerified;
    m.payloadMismatches += p.payloadMismatches;
    m.diagnostics += p.diagnostics;
    return m;
  };
  const size_t records = records_.size(), diagnostics = diagnostics_.size();
  records_.reserve(records + part.records_.size());
  for (TraceRecord r : part.records_) {
    r.line = line(r.line);
    if (r.rank && firstRanked_ == kNoRecord) firstRanked_ = records_.size();
    records_.push_back(r);
  }
  for (TraceDiagnostic &d : part.diagnostics_)
    if (diagnostics_.size() < options_.maxDiagnostics)
      diagnostics_.push_back({line(d.line), std::move(d.message)});
  checkpoint_ = part.checkpoint_;
  checkpoint_.line += lines;
  checkpoint_.stats = merged(part.checkpoint_.stats);
  checkpoint_.records += records;
  checkpoint_.diagnostics = std::min(diagnostics + part.checkpoint_.diagnostics, diagnostics_.size());
  stats_ = merged(part.stats_);
  for (const auto &[kind, count] : part.skipped_)
    skipped_[kind] += count;
  for (const auto &[id, name] : part.strTable_)
    strTable_[id] = name; // Later in the file.
  if (!envelopeRank_) envelopeRank_ = part.envelopeRank_;
  scannedBytes_ = part.scannedBytes_;
  bytesRead_ += part.bytesRead_;
  lastUnitCommitted_ = part.lastUnitCommitted_;
  lastUnitSticky_ = part.lastUnitSticky_;
  saveResumePoint();
}

void TraceLog::scanRange(bool final, uint64_t limit) {
  const std::string_view text = file_.text();
  const char *base = text.data();
  uint64_t pos = checkpoint_.offset, line = checkpoint_.line;
  const uint64_t stickyOffset = pos; // The start of the last unit, which may be sticky (see finalize()).
  const uint64_t start = pos;
  limit = std::min<uint64_t>(limit, text.size());
  if (!final && limit > pos) {
    // Only complete lines: an unterminated last line may still be being written.
    const void *lastNl = ::memrchr(base + pos, '\n', size_t(limit - pos));
    limit = lastNl ? uint64_t(static_cast<const char *>(lastNl) - base) + 1 : pos;
  }
  file_.adviseSequential();
  uint64_t dropFrom = pos;
  file_.prefetch(pos, kPrefetch);
  bool anyUnit = false;
  std::string scratch; // Decoded JSON strings with escapes.

  while (pos < limit) {
    // Blank lines between records carry nothing.
    if (base[pos] == '\n' || (base[pos] == '\r' && pos + 1 < limit && base[pos + 1] == '\n')) {
      pos += base[pos] == '\n' ? 1 : 2;
      ++line;
      continue;
    }
    if (pos - dropFrom >= kWindow) {
      file_.dropPages(dropFrom, pos - dropFrom);
      file_.prefetch(pos + kPrefetch - kWindow, kWindow);
      dropFrom = pos;
      if (options_.progress) options_.progress(pos);
    }
    stats_.bytes = pos;
    stats_.lines = line;
    checkpoint_ = Checkpoint{pos, line, stats_, records_.size(), diagnostics_.size(), {}};
    anyUnit = true;

    Unit u = readUnit(base, pos, limit);
    std::string_view first = stripCr(std::string_view(base + u.begin, size_t(u.firstLineEnd - u.begin)));
    uint64_t unitLine = line;
    pos = u.end;
    line += u.lines;
    if (first.empty()) continue; // A lone "\r" at the end of the file.

    std::optional<Envelope> env = first.front() == '\t' ? std::nullopt : parseEnvelope(first);
    if (!env) {
      ++stats_.corruptedRecords;
      diagnose(unitLine, first.front() == '\t' ? "payload line without a record envelope"
                                               : "not a TORCH_TRACE record: \"" + excerpt(first) + "\"");
      continue;
    }
    ++stats_.records;
    std::string_view metadata = first.substr(env->metadataBegin);
    if (env->rank && !envelopeRank_) envelopeRank_ = env->rank;

    TraceRecord r;
    r.envelopeOffset = u.begin;
    r.metadataOffset = u.begin + env->metadataBegin;
    r.metadataLength = uint32_t(metadata.size());
    r.line = uint32_t(std::min<uint64_t>(unitLine, UINT32_MAX));
    r.payloadBegin = u.payloadBegin;
    r.payloadEnd = u.payloadEnd;
    r.payloadLineCount = u.payloadLineCount;
    r.rank = env->rank;

    // A cut-off metadata line (crash mid-write, truncated copy) is caught without a parse.
    if (metadata.empty() || metadata.back() != '}') {
      ++stats_.corruptedRecords;
      diagnose(unitLine, "truncated record metadata: \"" + excerpt(metadata) + "\"");
      continue;
    }

    std::string_view key = peekKind(metadata);
    if (key.empty()) {
      // Not written by json.dumps as PyTorch does: walk the object (nothing is built) for the first key that
      // is not one of the common ones.
      bool found = false;
      bool wellFormed = walkObject(metadata, [&](std::string_view k, std::string_view) {
        if (found || isCommonKey(k)) return;
        found = true;
        if (auto decoded = json_scan::decodeKey(k, scratch); decoded && decoded->size() <= kMaxMetadataString)
          key = intern(*decoded);
      });
      if (key.empty()) {
        ++stats_.corruptedRecords;
        diagnose(unitLine, !wellFormed ? "invalid record metadata JSON"
                           : found     ? "record metadata with an unreadable kind"
                                       : "record metadata without a kind");
        continue;
      }
    }

    std::optional<TraceKind> kind = keptKind(key);
    if (options_.verifyPayloads) {
      HasPayload has = peekHasPayload(metadata);
      if (has.malformed() && !kind) {
        // Kept kinds are counted below, where their metadata is walked.
        ++stats_.payloadsVerified;
        ++stats_.payloadMismatches;
        ++stats_.corruptedRecords;
        diagnose(unitLine, malformedHasPayload(key));
      }
      if (const std::optional<Md5Digest> &expected = has.digest) {
        ++stats_.payloadsVerified;
        bool ok = payloadMatches(text, r, *expected);
        r.check = ok ? PayloadCheck::Ok : PayloadCheck::Mismatch;
        if (!ok) {
          ++stats_.payloadMismatches;
          ++stats_.corruptedRecords;
          diagnose(unitLine, "payload does not match has_payload md5 (" + std::string(key) + " record)");
        }
      }
    }

    if (!kind) {
      auto it = skipped_.find(key);
      if (it == skipped_.end()) it = skipped_.emplace(intern(key), 0).first;
      ++it->second;
      checkpoint_.skippedKind = it->first;
      ++stats_.skippedRecords;
      continue;
    }

    // Kept records' metadata is read below; a line past the limit is not PyTorch's (the largest seen, a
    // bwd_compilation_metrics of an 8-layer Llama, is 7 MB) and is skipped rather than walked.
    if (metadata.size() > kMaxMetadataBytes) {
      ++stats_.corruptedRecords;
      diagnose(unitLine, "record metadata of " + std::to_string(metadata.size() >> 20) + " MB exceeds the " +
                             std::to_string(kMaxMetadataBytes >> 20) + " MB limit (" + std::string(key) +
                             " record): skipped");
      continue;
    }

    // Kept: walk the top-level members without building a DOM. The `stack` (often most of the line) is
    // skipped over, not parsed; the kind's value is read only for the fields used below.
    std::string_view kindValue;
    bool sawKind = false, badHasPayload = false;
    bool wellFormed = walkObject(metadata, [&](std::string_view k, std::string_view v) {
      if (k == key && !sawKind) {
        kindValue = v;
        sawKind = true;
      } else if (k == "frame_id") {
        r.compileId.frameId = jsonInt(v);
      } else if (k == "frame_compile_id") {
        r.compileId.frameCompileId = jsonInt(v);
      } else if (k == "attempt") {
        r.compileId.attempt = jsonInt(v);
      } else if (k == "compiled_autograd_id") {
        r.compileId.compiledAutogradId = jsonInt(v);
      } else if (k == "rank") {
        if (auto rank = jsonInt(v)) r.rank = rank;
      } else if (k == "has_payload") {
        r.payloadHash = digestOfRaw(v);
        badHasPayload = !r.payloadHash;
      }
    });
    if (!wellFormed || !sawKind) {
      ++stats_.corruptedRecords;
      diagnose(unitLine, "invalid record metadata JSON (" + std::string(key) + " record)");
      continue;
    }
    if (badHasPayload) {
      // Trusting it would serve a payload nothing can check (a mismatched one included), silently.
      ++stats_.corruptedRecords;
      if (options_.verifyPayloads) {
        ++stats_.payloadsVerified;
        ++stats_.payloadMismatches;
      }
      diagnose(unitLine, malformedHasPayload(key));
      continue;
    }
    r.kind = *kind;
    r.kindKey = intern(key);
    r.kindValueOffset = uint32_t(kindValue.data() - metadata.data()); // metadata <= kMaxMetadataBytes.
    r.kindValueLength = uint32_t(kindValue.size());
    // Reads string members of the kind's value, e.g. {"name": ..., "encoding": ...}.
    auto members = [&](std::initializer_list<std::pair<std::string_view, std::string_view *>> wanted) {
      walkObject(kindValue, [&](std::string_view k, std::string_view v) {
        for (auto &[name, out] : wanted)
          if (k == name && out->empty())
            if (auto decoded = jsonString(v, scratch)) *out = intern(*decoded);
      });
    };
    switch (r.kind) {
    case TraceKind::Str: {
      // {"str": ["/path/file.py", 1]}: walked, not parsed, so that a huge string costs nothing.
      std::optional<std::string_view> name;
      std::optional<int> id;
      int index = 0;
      bool ok = json_scan::walkArray(kindValue, [&](std::string_view v) {
        if (index == 0) name = jsonString(v, scratch);
        if (index == 1) id = jsonInt(v);
        ++index;
      });
      if (ok && index == 2 && name && id)
        strTable_[*id] = intern(*name);
      else if (ok && index == 2 && id && !name)
        diagnose(unitLine, "str record " + std::to_string(*id) + " is not a string of at most " +
                               std::to_string(kMaxMetadataString) + " bytes: skipped");
      break;
    }
    case TraceKind::InductorOutputCode: {
      std::string_view filePath;
      members({{"filename", &r.filename}, {"file_path", &filePath}});
      if (r.filename.empty()) r.filename = filePath;
      break;
    }
    case TraceKind::GraphDump:
      members({{"name", &r.name}, {"type", &r.dumpType}, {"filename", &r.filename}});
      break;
    case TraceKind::Artifact: {
      std::string_view encoding;
      members({{"name", &r.name}, {"encoding", &encoding}});
      r.encoding = encoding == "json"     ? PayloadEncoding::Json
                   : encoding == "string" ? PayloadEncoding::String
                   : encoding.empty()     ? PayloadEncoding::None
                                          : PayloadEncoding::Other;
      break;
    }
    case TraceKind::CompilationMetrics:
    case TraceKind::BwdCompilationMetrics:
    case TraceKind::CompilationMetricsRuntime:
      // Metrics written outside a compile context carry the id only inside: {"compile_id": "0/0", ...}.
      if (r.compileId.empty()) {
        std::string_view compileId;
        members({{"compile_id", &compileId}});
        if (auto id = CompileId::parse(compileId)) r.compileId = *id;
      }
      break;
    default:
      break;
    }
    if (r.rank && firstRanked_ == kNoRecord) firstRanked_ = records_.size();
    records_.push_back(r);
    ++stats_.keptRecords;
  }

  scannedBytes_ = pos;
  bytesRead_ += pos - start;
  if (anyUnit) {
    stats_.bytes = pos;
    stats_.lines = line;
    lastUnitCommitted_ = true;
    // Follow mode: the last unit's payload may still grow; keep it pending until a later envelope proves it
    // complete, unless it was committed before (a record never leaves records()).
    lastUnitSticky_ = lastUnitSticky_ && checkpoint_.offset == stickyOffset;
    if (!final && !lastUnitSticky_) rollback();
  } else {
    // Only blank lines (or nothing): resume after them.
    stats_.bytes = pos;
    stats_.lines = line;
    checkpoint_ = Checkpoint{pos, line, stats_, records_.size(), diagnostics_.size(), {}};
    lastUnitCommitted_ = false;
  }
  saveResumePoint();
  file_.adviseNormal();
}

Expected<size_t> TraceLog::refresh() {
  size_t before = records_.size();
  auto changed = file_.remap();
  if (!changed) return changed.error();
  if (file_.size() < scannedBytes_)
    return Error{"trace file shrank (" + std::to_string(scannedBytes_) + " -> " +
                 std::to_string(file_.size()) + " bytes): " + path() + "; re-open it"};
  if (file_.size() != scannedBytes_) {
    rollback();
    scan(/*final=*/!options_.follow);
  }
  commitIfQuiet();
  return records_.size() > before ? records_.size() - before : size_t(0);
}

void TraceLog::finalize() {
  if (!(lastUnitCommitted_ && scannedBytes_ == file_.size())) {
    rollback();
    scan(/*final=*/true);
  }
  lastUnitSticky_ = lastUnitCommitted_;
}

void TraceLog::commitIfQuiet() {
  bool pending = !lastUnitCommitted_ && checkpoint_.offset < scannedBytes_;
  // An unterminated last line means the writer is mid-record, however long ago it wrote.
  if (!options_.follow || !pending || scannedBytes_ != file_.size()) return;
  auto modified = file_.modified();
  if (!modified || std::chrono::system_clock::now() - *modified < options_.quietPeriod) return;
  finalize();
}

std::vector<SkippedKindCount> TraceLog::skippedKinds() const {
  std::vector<SkippedKindCount> out;
  out.reserve(skipped_.size());
  for (const auto &[kind, count] : skipped_)
    out.push_back({kind, count});
  std::sort(out.begin(), out.end(), [](const SkippedKindCount &a, const SkippedKindCount &b) {
    return a.count != b.count ? a.count > b.count : a.kind < b.kind;
  });
  return out;
}

std::optional<int> TraceLog::rank() const {
  if (auto fromName = rankFromFileName(path())) return fromName;
  // Kept up to date by the scan (not searched for here): callers ask once per compile.
  if (firstRanked_ != kNoRecord) return records_[firstRanked_].rank;
  return envelopeRank_;
}

std::string_view TraceLog::metadataText(const TraceRecord &record) const {
  std::string_view text = file_.text();
  if (record.metadataOffset >= text.size()) return {};
  return text.substr(record.metadataOffset, record.metadataLength);
}

std::string_view TraceLog::kindValueText(const TraceRecord &record) const {
  std::string_view meta = metadataText(record);
  if (record.kindValueOffset >= meta.size()) return {};
  return meta.substr(record.kindValueOffset, record.kindValueLength);
}

std::vector<std::string_view> TraceLog::payloadLines(const TraceRecord &record) const {
  std::vector<std::string_view> lines;
  lines.reserve(record.payloadLineCount);
  forEachPayloadLine(file_.text(), record, [&](std::string_view line) { lines.push_back(line); });
  return lines;
}

std::string TraceLog::payloadText(const TraceRecord &record) const {
  std::string out;
  out.reserve(size_t(record.payloadEnd - record.payloadBegin));
  bool first = true;
  forEachPayloadLine(file_.text(), record, [&](std::string_view line) {
    if (!first) out += '\n';
    first = false;
    out += line;
  });
  return out;
}

bool TraceLog::verifyPayload(const TraceRecord &record) const {
  if (!record.payloadHash) return !record.hasPayload();
  return payloadMatches(file_.text(), record, *record.payloadHash);
}

std::optional<std::string_view> VerifiedPayloads::find(const Md5Digest &digest, uint64_t bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = verified_.find(Key{digest, bytes});
  if (it == verified_.end()) return std::nullopt;
  return it->second;
}

void VerifiedPayloads::add(const Md5Digest &digest, std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  verified_.emplace(Key{digest, bytes.size()}, bytes);
}

PayloadVerification TraceLog::verifyAll(VerifiedPayloads *shared) const {
  return verifyFrom(0, 0, shared);
}

PayloadVerification TraceLog::verifyLast() const {
  if (!lastUnitCommitted_) return {};
  return verifyFrom(checkpoint_.offset, checkpoint_.line, nullptr);
}

PayloadVerification TraceLog::verifyFrom(uint64_t pos, uint64_t line, VerifiedPayloads *shared) const {
  PayloadVerification result;
  std::string_view text = file_.text();
  const char *base = text.data();
  uint64_t limit = std::min<uint64_t>(stats_.bytes, text.size());
  // The pages behind are returned as the walk goes (like the scan's), so that verifying a log never makes
  // it resident as a whole; other readers fault back in what they read.
  constexpr uint64_t kReleaseBehind = uint64_t{8} << 20;
  uint64_t released = pos;
  while (pos < limit) {
    if (pos - released >= 2 * kReleaseBehind) {
      file_.dropPages(released, pos - kReleaseBehind - released);
      released = pos - kReleaseBehind;
    }
    if (base[pos] == '\n' || (base[pos] == '\r' && pos + 1 < limit && base[pos + 1] == '\n')) {
      pos += base[pos] == '\n' ? 1 : 2;
      ++line;
      continue;
    }
    Unit u = readUnit(base, pos, limit);
    uint64_t unitLine = line;
    pos = u.end;
    line += u.lines;
    std::string_view first = stripCr(std::string_view(base + u.begin, size_t(u.firstLineEnd - u.begin)));
    if (first.empty() || first.front() == '\t') continue;
    auto env = parseEnvelope(first);
    if (!env) continue;
    std::string_view metadata = first.substr(env->metadataBegin);
    HasPayload has = peekHasPayload(metadata);
    if (has.malformed()) {
      // Kept kinds were counted and skipped by the scan; the others are counted here, as a bad digest is.
      std::string_view kind = peekKind(metadata);
      if (keptKind(kind)) continue;
      ++result.checked;
      ++result.mismatched;
      if (result.diagnostics.size() < options_.maxDiagnostics)
        result.diagnostics.push_back(
            {uint32_t(std::min<uint64_t>(unitLine, UINT32_MAX)), malformedHasPayload(kind)});
      continue;
    }
    const std::optional<Md5Digest> &expected = has.digest;
    if (!expected) continue;
    TraceRecord r;
    r.payloadBegin = u.payloadBegin;
    r.payloadEnd = u.payloadEnd;
    ++result.checked;
    std::string_view bytes(base + r.payloadBegin, size_t(r.payloadEnd - r.payloadBegin));
    if (shared && !bytes.empty()) {
      // Another rank (or recompile) wrote the same payload: equal bytes verify it (a file cut meanwhile reads
      // zeros through the guard, which compare unequal and fall through to the digest).
      if (auto same = shared->find(*expected, bytes.size());
          same && std::memcmp(same->data(), bytes.data(), bytes.size()) == 0) {
        shared->countReuse();
        continue;
      }
    }
    if (payloadMatches(text, r, *expected)) {
      if (shared && !bytes.empty()) shared->add(*expected, bytes);
      continue;
    }
    ++result.mismatched;
    if (result.diagnostics.size() < options_.maxDiagnostics) {
      std::string kind(peekKind(metadata));
      // The last record of a log that ends in the middle of its payload: a log cut short (truncated, copied
      // while being written) or one still being written. Its text is incomplete, which matters as much as
      // a corrupted record: the analyses see only part of it.
      bool last = pos >= limit;
      result.diagnostics.push_back(
          {uint32_t(std::min<uint64_t>(unitLine, UINT32_MAX)),
           last
               ? "the last record (" + kind +
                     ") is cut short: its payload does not match its has_payload md5 (the log was truncated, "
                     "or is still being written); what it holds is incomplete"
               : "payload does not match has_payload md5 (" + kind + " record)"});
    }
  }
  return result;
}

FileState TraceLog::fileState() const {
  return file_.state();
}

Expected<std::string> TraceLog::readPayload(const TraceRecord &record) const {
  const FileState before = file_.state();
  if (before == FileState::Deleted) return Error{path() + " was deleted after it was read"};
  if (before == FileState::Truncated) return Error{path() + " was truncated after it was read"};
  std::string text = payloadText(record);
  if (file_.faulted()) return Error{path() + " was truncated while it was read"};
  if (before == FileState::Changed && record.payloadHash) {
    // Grown (a running job appends) or rewritten in place: only the md5 tells whether this record's bytes are
    // still the ones indexed.
    Md5 md5;
    md5.update(text);
    if (md5.digest() != *record.payloadHash)
      return Error{path() + " changed on disk after it was read: the record at line " +
                   std::to_string(record.line + 1) + " is no longer what was indexed"};
  }
  return text;
}

std::optional<std::string_view> TraceLog::internedFilename(InternedStringId id) const {
  auto it = strTable_.find(id.value);
  if (it == strTable_.end()) return std::nullopt;
  return it->second;
}

bool TraceLog::looksLikeTrace(std::string_view head) {
  size_t pos = 0;
  while (pos < head.size() && (head[pos] == '\n' || head[pos] == '\r'))
    ++pos;
  size_t nl = head.find('\n', pos);
  std::string_view first = stripCr(head.substr(pos, nl == std::string_view::npos ? head.npos : nl - pos));
  auto env = parseEnvelope(first);
  return env && first.size() > env->metadataBegin && first[env->metadataBegin] == '{';
}

std::optional<int> TraceLog::rankFromFileName(std::string_view path) {
  if (size_t slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
  size_t at = path.find("_rank_");
  if (at == std::string_view::npos) return std::nullopt;
  // All the digits, or no rank: a number cut to its first digits would be another rank (Runs.cpp reads the
  // rank of a log's name with this function too, so that both agree).
  int64_t rank = 0;
  size_t i = at + 6, digits = 0;
  for (; i < path.size() && isDigit(path[i]); ++i, ++digits) {
    rank = rank * 10 + (path[i] - '0');
    if (rank > INT32_MAX) return std::nullopt;
  }
  if (digits == 0) return std::nullopt;
  return static_cast<int>(rank);
}

} // namespace inductor::index
