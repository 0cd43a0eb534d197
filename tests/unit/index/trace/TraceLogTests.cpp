// Tests for index/trace/TraceLog.h: envelope variants, kept and skipped kinds, payload access and md5,
// compile ids, corrupted input, ranks, growth (refresh/finalize), and every fixture log.
#include "index/trace/TraceLog.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace inductor::index;
using namespace inductor::test;

namespace {

const std::string kFixtures = INDUCTOR_FIXTURES_DIR;
constexpr std::string_view kPrefix = "V1122 10:29:20.476000 431 torch/_dynamo/utils.py:2126] ";

// One record as TorchLogsFormatter writes it: envelope, then the payload lines each prefixed by a tab, with
// has_payload set to the payload's md5 unless `hash` overrides it.
std::string record(std::string_view metadataBody, std::vector<std::string> payload = {},
                   std::string_view prefix = kPrefix, std::optional<std::string> hash = std::nullopt) {
  std::string joined;
  for (size_t i = 0; i < payload.size(); ++i)
    joined += (i ? "\n" : "") + payload[i];
  std::string meta = "{" + std::string(metadataBody);
  if (!payload.empty()) meta += ", \"has_payload\": \"" + hash.value_or(Md5::of(joined).hex()) + "\"";
  meta += "}";
  std::string out = std::string(prefix) + meta + "\n";
  for (const std::string &line : payload)
    out += "\t" + line + "\n";
  return out;
}

std::vector<std::string_view> kinds(const TraceLog &log) {
  std::vector<std::string_view> out;
  for (const TraceRecord &r : log.records())
    out.push_back(r.kindKey);
  return out;
}

std::vector<uint32_t> diagnosticLines(const TraceLog &log) {
  std::vector<uint32_t> out;
  for (const TraceDiagnostic &d : log.diagnostics())
    out.push_back(d.line);
  return out;
}

const TraceRecord *find(const TraceLog &log, TraceKind kind, size_t nth = 0) {
  for (const TraceRecord &r : log.records())
    if (r.kind == kind && nth-- == 0) return &r;
  return nullptr;
}

struct TempFile {
  std::string path;
  explicit TempFile(std::string_view content, std::string_view stem = "dedicated_log_torch_trace_") {
    std::string name = "/tmp/" + std::string(stem) + "XXXXXX";
    int fd = ::mkstemp(name.data());
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
    std::ofstream(path, std::ios::binary) << content;
  }
  void append(std::string_view content) const {
    std::ofstream(path, std::ios::binary | std::ios::app) << content;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

} // namespace

TEST_CASE("TraceLog: every kind has one name, the key of its records") {
  // Each enumerator up to the last (GuardAdded), named by the one table; distinct names, and none empty.
  std::set<std::string_view> names;
  for (int k = 0; k <= static_cast<int>(inductor::index::TraceKind::GuardAdded); ++k) {
    std::string_view name = inductor::index::kindName(static_cast<inductor::index::TraceKind>(k));
    CAPTURE(k);
    CHECK(!name.empty());
    CHECK(names.insert(name).second);
  }
  CHECK(inductor::index::kindName(inductor::index::TraceKind::CompilationMetricsRuntime) ==
        "compilation_metrics_runtime");
  CHECK(inductor::index::kindName(inductor::index::TraceKind::OtherGraph) == "<graph>");
}

TEST_CASE("TraceLog: envelope prefixes of every level, with and without [rankN]:") {
  std::string text =
      record(R"("artifact": {"name": "a", "encoding": "string"})", {"x"},
             "I0101 00:00:00.000001 1 f.py:1] ") +
      record(R"("artifact": {"name": "b", "encoding": "string"})", {"y"},
             "W1231 23:59:59.999999 77 /abs/p a.py:9] ") +
      record(R"("artifact": {"name": "c", "encoding": "json"})", {"{}"}, "E0606 12:00:00.5 2 x.py:3] ") +
      record(R"("artifact": {"name": "d"})", {},
             "[rank3]:V1122 10:29:20.476000 431 torch/_dynamo/utils.py:2126] ");
  TraceLog log = TraceLog::fromText(text);
  CHECK(log.diagnostics().empty());
  REQUIRE(log.records().size() == 4);
  CHECK(log.records()[0].name == "a");
  CHECK(log.records()[1].name == "b");
  CHECK(log.records()[2].encoding == PayloadEncoding::Json);
  CHECK(log.records()[1].encoding == PayloadEncoding::String);
  CHECK(log.records()[3].encoding == PayloadEncoding::None);
  CHECK(log.records()[3].rank == 3);
  CHECK_FALSE(log.records()[0].rank);
  CHECK(log.rank() == 3); // From the [rank3]: prefix: no file name, no "rank" key.
  CHECK(log.records()[3].line == 6);
  CHECK(log.stats().lines == 7);
  CHECK(log.stats().records == 4);
}

TEST_CASE("TraceLog: kept kinds are parsed, skipped kinds only counted") {
  std::string text =
      record(R"("chromium_event": {})", {"{", "\"name\": \"dynamo\"", "}"}) +
      record(R"("describe_tensor": {"id": 0}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)") +
      record(R"("str": ["/tmp/work/model.py", 1])") +
      record(
          R"("dynamo_start": {"stack": [{"line": 3, "filename": 1}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)") +
      record(R"("aot_forward_graph": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)",
             {"class GraphModule:"}) +
      record(R"("my_new_graph": {})", {"g"}) + record(R"("chromium_event": {})", {"{}"}) +
      record(
          R"("inductor_output_code": {"filename": "/c/out.py", "file_path": "/c/out.py"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)",
          {"# code", "def call(args):", "    pass"}) +
      record(
          R"("compilation_metrics": {"compile_id": "0/0"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)");
  TraceLog log = TraceLog::fromText(text);
  CHECK(kinds(log) == std::vector<std::string_view>{"str", "dynamo_start", "aot_forward_graph",
                                                    "my_new_graph", "inductor_output_code",
                                                    "compilation_metrics"});
  CHECK(log.records()[3].kind == TraceKind::OtherGraph);
  CHECK(log.stats().records == 9);
  CHECK(log.stats().keptRecords == 6);
  CHECK(log.stats().skippedRecords == 3);
  auto skipped = log.skippedKinds();
  REQUIRE(skipped.size() == 2);
  CHECK(skipped[0].kind == "chromium_event");
  CHECK(skipped[0].count == 2);
  CHECK(skipped[1].kind == "describe_tensor");
  CHECK(skipped[1].count == 1);

  const TraceRecord *code = find(log, TraceKind::InductorOutputCode);
  REQUIRE(code);
  CHECK(code->filename == "/c/out.py");
  CHECK(code->compileId.str() == "0/0");
  CHECK(code->payloadLineCount == 3);
  CHECK(log.payloadLines(*code) == std::vector<std::string_view>{"# code", "def call(args):", "    pass"});
  CHECK(log.payloadText(*code) == "# code\ndef call(args):\n    pass");
  CHECK(log.verifyPayload(*code));
  CHECK(log.metadataText(*code).starts_with("{\"inductor_output_code\""));
  CHECK(log.metadataText(*code).ends_with("}"));
  CHECK(log.text().substr(code->envelopeOffset, kPrefix.size()) == kPrefix);

  CHECK(log.internedFilename(InternedStringId{1}) == "/tmp/work/model.py");
  CHECK_FALSE(log.internedFilename(InternedStringId{0}));
  const TraceRecord *start = find(log, TraceKind::DynamoStart);
  REQUIRE(start);
  CHECK_FALSE(start->hasPayload());
  CHECK(log.payloadLines(*start).empty());
  CHECK(log.verifyPayload(*start));
}

TEST_CASE("TraceLog: compile ids from metadata, compiled autograd, null and missing ids") {
  std::string text =
      record(R"("artifact": {"name": "a"}, "frame_id": 2, "frame_compile_id": 1, "attempt": 1)") +
      record(
          R"("artifact": {"name": "b"}, "compiled_autograd_id": 4, "frame_id": 0, "frame_compile_id": 3, "attempt": 0)") +
      record(
          R"("artifact": {"name": "c"}, "compiled_autograd_id": null, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)") +
      record(R"("artifact": {"name": "d"}, "rank": 5)") +
      record(R"("compilation_metrics": {"compile_id": "[1/2_3]"})") +
      record(R"("compilation_metrics": {"compile_id": null})");
  TraceLog log = TraceLog::fromText(text);
  REQUIRE(log.records().size() == 6);
  CHECK(log.records()[0].compileId.traceStr() == "2/1_1");
  CHECK(log.records()[0].compileId.dirName() == "2_1_1");
  CHECK(log.records()[1].compileId.str() == "!4/0/3");
  CHECK(log.records()[2].compileId.str() == "0/0");
  CHECK_FALSE(log.records()[2].compileId.compiledAutogradId);
  CHECK(log.records()[3].compileId.empty());
  CHECK(log.records()[3].rank == 5);
  CHECK(log.rank() == 5);
  // Metrics logged outside a compile context: the id comes from inside the metrics.
  CHECK(log.records()[4].compileId.traceStr() == "1/2_3");
  CHECK(log.records()[5].compileId.empty());
}

TEST_CASE("TraceLog: corrupted lines are skipped, counted and diagnosed; the rest serves") {
  static constexpr char kJunk[] = "\x01\x02\xff\xfe binary\0junk\n";
  std::string good = record(R"("artifact": {"name": "ok"})", {"p"});
  std::string text = good +                                                         // lines 0-1
                     "this is not a trace line\n" +                                 // 2: garbage
                     good +                                                         // 3-4
                     std::string(kPrefix) + "{\"artifact\": {\"name\": \"cut\"\n" + // 5: truncated JSON
                     "\tpayload of the truncated record\n" +                        // 6: belongs to it
                     std::string(kPrefix) + "{\"artifact\": {\"name\": oops}}\n" +  // 7: invalid JSON
                     std::string(kJunk, sizeof(kJunk) - 1) + // 8: binary junk (with a NUL)
                     "\tan orphan payload line\n" +          // 9: part of the junk unit
                     good;                                   // 10-11
  TraceLog log = TraceLog::fromText(text);
  CHECK(log.records().size() == 3);
  for (const TraceRecord &r : log.records())
    CHECK(log.payloadText(r) == "p");
  CHECK(log.stats().corruptedRecords == 4);
  CHECK(diagnosticLines(log) == std::vector<uint32_t>{2, 5, 7, 8});
  CHECK(log.diagnostics()[0].message.find("not a TORCH_TRACE record") != std::string::npos);
  CHECK(log.diagnostics()[1].message.find("truncated") != std::string::npos);
  CHECK(log.diagnostics()[2].message.find("invalid record metadata JSON") != std::string::npos);
  CHECK(log.records()[2].line == 10);
  CHECK(log.stats().lines == 12);

  // A payload line with no record before it.
  TraceLog orphan = TraceLog::fromText("\tstray\n" + good);
  CHECK(orphan.records().size() == 1);
  CHECK(diagnosticLines(orphan) == std::vector<uint32_t>{0});
}

TEST_CASE("TraceLog: kept metadata is validated and decoded without a DOM") {
  // Escapes in values are decoded (json.dumps writes non-ASCII as \uXXXX); the stack is skipped but checked.
  std::string text =
      record(
          R"("inductor_output_code": {"filename": "/t/caf\u00e9 \"q\".py"}, "frame_id": 1, "frame_compile_id": 2, "attempt": 0, "stack": [{"line": 1, "name": "f", "filename": 0, "loc": "x = \"]}\""}])") +
      record(R"("str": ["/t/na\u00efve.py", 3])") +
      record(
          R"("artifact": {"name": "a"}, "stack": [{"line": 1, "name": oops}])") + // Bad literal in the stack.
      record(R"("artifact": {"name": "b"}, "stack": [{"line": 1,}])") +           // Trailing comma.
      record(R"("artifact": {"name": "c"}, "frame_id": 1 "attempt": 0)") +        // Missing comma.
      record(R"("artifact": {"name": "d"}, "stack": [[[[]]]], "frame_id": -1, "frame_compile_id": 1.5)") +
      record(R"("artifact" : {"name": "e"}, "frame_id": 0)"); // Not json.dumps spacing: full-parse fallback.
  TraceLog log = TraceLog::fromText(text);
  REQUIRE(log.records().size() == 4);
  CHECK(log.records()[0].filename == "/t/caf\xc3\xa9 \"q\".py");
  CHECK(log.records()[0].compileId.str() == "1/2");
  CHECK(log.internedFilename(InternedStringId{3}) == "/t/na\xc3\xafve.py");
  CHECK(log.records()[2].name == "d");
  CHECK(log.records()[2].compileId.frameId == -1);
  CHECK_FALSE(log.records()[2].compileId.frameCompileId); // 1.5 is not an integer id.
  CHECK(log.records()[3].name == "e");
  CHECK(log.records()[3].compileId.frameId == 0);
  CHECK(diagnosticLines(log) == std::vector<uint32_t>{2, 3, 4});
  CHECK(log.stats().corruptedRecords == 3);
}

TEST_CASE("TraceLog: stored diagnostics are capped, all are counted") {
  std::string text;
  for (int i = 0; i < 250; ++i)
    text += "garbage " + std::to_string(i) + "\n";
  TraceLogOptions options;
  options.maxDiagnostics = 10;
  TraceLog log = TraceLog::fromText(text, "", options);
  CHECK(log.diagnostics().size() == 10);
  CHECK(log.stats().diagnostics == 250);
  CHECK(log.stats().corruptedRecords == 250);
  CHECK(TraceLog::fromText(text).diagnostics().size() == 100); // The default cap.
}

TEST_CASE("TraceLog: a file ending without a newline, CRLF line endings, blank lines in a payload") {
  std::string text = record(R"("artifact": {"name": "a"})", {"one", "two"});
  text.pop_back(); // No final newline.
  TraceLog noNewline = TraceLog::fromText(text);
  REQUIRE(noNewline.records().size() == 1);
  CHECK(noNewline.payloadLines(noNewline.records()[0]) == std::vector<std::string_view>{"one", "two"});
  CHECK(noNewline.verifyPayload(noNewline.records()[0]));
  CHECK(noNewline.stats().lines == 3);

  std::string crlf;
  for (char c : record(R"("artifact": {"name": "a"})", {"one", "two"}) + record(R"("str": ["/x.py", 0])"))
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  TraceLog dos = TraceLog::fromText(crlf);
  REQUIRE(dos.records().size() == 2);
  CHECK(dos.diagnostics().empty());
  CHECK(dos.payloadText(dos.records()[0]) == "one\ntwo");
  CHECK(dos.verifyPayload(dos.records()[0]));
  CHECK(dos.internedFilename(InternedStringId{0}) == "/x.py");

  // An editor stripped the lone tab of an empty payload line (as in tlparse's export.log): still one payload.
  std::string stripped = record(R"("artifact": {"name": "a"})", {"one", "", "three"});
  stripped.replace(stripped.find("\t\n"), 2, "\n");
  stripped += "\n\n" + record(R"("artifact": {"name": "b"})", {"x"});
  TraceLog blank = TraceLog::fromText(stripped);
  REQUIRE(blank.records().size() == 2);
  CHECK(blank.payloadLines(blank.records()[0]) == std::vector<std::string_view>{"one", "", "three"});
  CHECK(blank.verifyPayload(blank.records()[0]));
  CHECK(blank.records()[1].line == 6); // Blank lines between records are skipped.
  CHECK(blank.diagnostics().empty());
}

namespace {
// A line-by-line reference reader (no SIMD, no offsets): for each envelope, its line and payload lines.
struct ReferenceRecord {
  uint32_t line;
  std::vector<std::string> payload;
  friend bool operator==(const ReferenceRecord &, const ReferenceRecord &) = default;
};

std::vector<ReferenceRecord> referenceRead(std::string_view text, uint64_t &lineCount) {
  std::vector<std::string> lines;
  std::vector<bool> terminated;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    lines.emplace_back(text.substr(pos, nl == text.npos ? text.npos : nl - pos));
    terminated.push_back(nl != text.npos);
    pos = nl == text.npos ? text.size() : nl + 1;
  }
  lineCount = lines.size();
  auto blank = [&](size_t i) { return lines[i].empty() || (lines[i] == "\r" && terminated[i]); };
  auto strip = [](std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  };
  std::vector<ReferenceRecord> out;
  for (size_t i = 0; i < lines.size();) {
    if (blank(i) || lines[i] == "\r") {
      ++i;
      continue;
    }
    size_t j = i + 1, lastPayload = i;
    for (; j < lines.size() && (lines[j].starts_with('\t') || blank(j)); ++j)
      if (lines[j].starts_with('\t')) lastPayload = j;
    if (lines[i].starts_with('V')) {
      ReferenceRecord r{uint32_t(i), {}};
      for (size_t k = i + 1; k <= lastPayload; ++k)
        r.payload.push_back(strip(lines[k].starts_with('\t') ? lines[k].substr(1) : lines[k]));
      out.push_back(r);
    }
    i = j;
  }
  return out;
}
} // namespace

TEST_CASE("TraceLog: the scanner agrees with a line-by-line reader on random logs") {
  // Random line lengths put line ends at every position of the scanner's 16-byte blocks.
  std::mt19937 rng(1234);
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  for (int round = 0; round < 300; ++round) {
    std::string text;
    int parts = 1 + pick(40);
    for (int i = 0; i < parts; ++i) {
      std::string eol = pick(8) == 0 ? "\r\n" : "\n";
      switch (pick(6)) {
      case 0:
      case 1:
        text += std::string(kPrefix) + R"({"artifact": {"name": "n)" + std::to_string(i) + "\"}}" + eol;
        break;
      case 2:
      case 3:
        text += "\t" + std::string(size_t(pick(40)), char('a' + pick(26))) + eol;
        break;
      case 4:
        text += pick(2) ? eol : "\t" + eol;
        break;
      default:
        text += pick(2) ? "garbage " + std::to_string(pick(1000)) + eol : "\rx" + eol;
        break;
      }
    }
    if (pick(3) == 0 && !text.empty()) text.pop_back(); // Sometimes no final newline.
    CAPTURE(round);
    CAPTURE(text);
    uint64_t lines = 0;
    std::vector<ReferenceRecord> expected = referenceRead(text, lines);
    TraceLog log = TraceLog::fromText(text);
    std::vector<ReferenceRecord> actual;
    for (const TraceRecord &r : log.records()) {
      ReferenceRecord a{r.line, {}};
      for (std::string_view line : log.payloadLines(r))
        a.payload.emplace_back(line);
      CHECK(a.payload.size() == r.payloadLineCount);
      actual.push_back(a);
    }
    CHECK(actual == expected);
    CHECK(log.stats().lines == lines);
  }
}

TEST_CASE("TraceLog: md5 verification: per record, in the scan, and over the whole log") {
  std::string text = record(R"("artifact": {"name": "good"})", {"a", "b"}) +
                     record(R"("artifact": {"name": "bad"})", {"a", "b"}, kPrefix, std::string(32, '0')) +
                     record(R"("chromium_event": {})", {"c"}, kPrefix, std::string(32, 'f'));
  TraceLog lazy = TraceLog::fromText(text);
  REQUIRE(lazy.records().size() == 2);
  CHECK(lazy.verifyPayload(lazy.records()[0]));
  CHECK_FALSE(lazy.verifyPayload(lazy.records()[1]));
  CHECK(lazy.records()[1].check == PayloadCheck::Unchecked);
  CHECK(lazy.stats().corruptedRecords == 0);
  PayloadVerification all = lazy.verifyAll();
  CHECK(all.checked == 3);
  CHECK(all.mismatched == 2);
  REQUIRE(all.diagnostics.size() == 2);
  CHECK(all.diagnostics[0].line == 3);
  CHECK(all.diagnostics[1].line == 6);
  CHECK(all.diagnostics[1].message.find("chromium_event") != std::string::npos);

  TraceLogOptions options;
  options.verifyPayloads = true;
  TraceLog eager = TraceLog::fromText(text, "", options);
  REQUIRE(eager.records().size() == 2); // A mismatching record is kept, flagged.
  CHECK(eager.records()[0].check == PayloadCheck::Ok);
  CHECK(eager.records()[1].check == PayloadCheck::Mismatch);
  CHECK(eager.stats().payloadsVerified == 3);
  CHECK(eager.stats().payloadMismatches == 2);
  CHECK(eager.stats().corruptedRecords == 2);
  CHECK(diagnosticLines(eager) == std::vector<uint32_t>{3, 6});
}

TEST_CASE("TraceLog: a has_payload that is not a 32-digit hex md5 is a malformed record, not trusted") {
  // Finding 7 of issue 33: `"has_payload": "xyz"` (or a number, or 31 digits) was never checked, so its
  // payload, whatever it held, was served as if verified.
  std::string text = record(R"("artifact": {"name": "good"})", {"a"}) +
                     record(R"("artifact": {"name": "short"})", {"a"}, kPrefix, std::string(31, '0')) +
                     record(R"("artifact": {"name": "not_hex"})", {"a"}, kPrefix, std::string(32, 'z')) +
                     std::string(kPrefix) + R"({"artifact": {"name": "number"}, "has_payload": 12})" +
                     "\n\ta\n" + record(R"("chromium_event": {})", {"c"}, kPrefix, "nope");
  TraceLog log = TraceLog::fromText(text);
  REQUIRE(log.records().size() == 1); // Only the record whose digest can be checked is kept.
  CHECK(log.records()[0].name == "good");
  CHECK(log.stats().corruptedRecords == 3);
  CHECK(diagnosticLines(log) == std::vector<uint32_t>{2, 4, 6});
  for (const TraceDiagnostic &d : log.diagnostics())
    CHECK(d.message.find("malformed has_payload (artifact record)") != std::string::npos);
  // The verification pass counts the skipped kind's malformed digest as it counts a mismatch.
  PayloadVerification all = log.verifyAll();
  CHECK(all.checked == 2);
  CHECK(all.mismatched == 1);
  REQUIRE(all.diagnostics.size() == 1);
  CHECK(all.diagnostics[0].line == 8);
  CHECK(all.diagnostics[0].message.find("malformed has_payload (chromium_event record)") !=
        std::string::npos);

  TraceLogOptions options;
  options.verifyPayloads = true;
  TraceLog eager = TraceLog::fromText(text, "", options);
  CHECK(eager.records().size() == 1);
  CHECK(eager.stats().payloadsVerified == 5);
  CHECK(eager.stats().payloadMismatches == 4);
  CHECK(eager.stats().corruptedRecords == 4);
}

TEST_CASE("TraceLog: empty input, non-trace input, open errors") {
  TraceLog empty = TraceLog::fromText("");
  CHECK(empty.records().empty());
  CHECK(empty.stats().lines == 0);
  CHECK(empty.diagnostics().empty());

  auto emptyFile = TraceLog::open(kFixtures + "/tlparse-inputs/multi_rank_messy_input/another.log");
  REQUIRE(emptyFile);
  CHECK(emptyFile->records().empty());
  CHECK(emptyFile->stats().bytes == 0);

  auto python = TraceLog::open(kFixtures + "/traces/mlp_train/model.py");
  REQUIRE(python);
  CHECK(python->records().empty());
  CHECK(python->stats().records == 0);
  CHECK(python->stats().corruptedRecords > 0);
  CHECK_FALSE(TraceLog::looksLikeTrace(python->text()));

  auto missing = TraceLog::open(kFixtures + "/no/such.log");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("no/such.log") != std::string::npos);
}

TEST_CASE("TraceLog::looksLikeTrace and rankFromFileName") {
  CHECK(TraceLog::looksLikeTrace(record(R"("str": ["/a.py", 0])")));
  CHECK(TraceLog::looksLikeTrace("\n[rank0]:" + record(R"("str": ["/a.py", 0])", {}, kPrefix.substr(0))));
  CHECK_FALSE(TraceLog::looksLikeTrace("import torch\n"));
  CHECK_FALSE(TraceLog::looksLikeTrace(""));
  CHECK_FALSE(TraceLog::looksLikeTrace("V1122 no time here] {}"));
  CHECK(TraceLog::rankFromFileName("/t/dedicated_log_torch_trace_rank_1_gdc1ool8.log") == 1);
  CHECK(TraceLog::rankFromFileName("dedicated_log_torch_trace_rank_12.log") == 12);
  CHECK_FALSE(TraceLog::rankFromFileName("/x_rank_0/dedicated_log_torch_trace_abc.log"));
  CHECK_FALSE(TraceLog::rankFromFileName("dedicated_log_torch_trace_rank_x.log"));
}

TEST_CASE("TraceLog: rank from the file name wins over the records") {
  auto rank1 =
      TraceLog::open(kFixtures + "/traces/multirank/trace/dedicated_log_torch_trace_rank_1_gdc1ool8.log");
  REQUIRE(rank1);
  CHECK(rank1->rank() == 1);
  const TraceRecord *code = find(*rank1, TraceKind::InductorOutputCode);
  REQUIRE(code);
  CHECK(code->rank == 1); // The records carry "rank" too.
  TraceLog renamed =
      TraceLog::fromText(std::string(rank1->text()), "/tmp/dedicated_log_torch_trace_rank_7_x.log");
  CHECK(renamed.rank() == 7);
  TraceLog anonymous = TraceLog::fromText(std::string(rank1->text()), "/tmp/copy.log");
  CHECK(anonymous.rank() == 1);
  auto single = TraceLog::open(kFixtures + "/traces/mlp_train/trace/dedicated_log_torch_trace_9bvvd8es.log");
  REQUIRE(single);
  CHECK_FALSE(single->rank());
}

TEST_CASE("TraceLog: every fixture log opens with the expected records") {
  struct Expect {
    const char *path;
    uint64_t records, kept;
    size_t outputCode, graphDump, artifacts, strs;
    uint64_t newlines;
  };
  // Counts from an independent Python reader of the same files.
  const Expect expectations[] = {
      {"tlparse-inputs/cache_hit_miss.log", 380, 54, 3, 0, 11, 11, 7541},
      {"tlparse-inputs/comp_failure.log", 21, 12, 0, 0, 1, 8, 177},
      {"tlparse-inputs/export.log", 60, 50, 0, 0, 0, 42, 84},
      {"tlparse-inputs/inductor_provenance_aot_cuda_log.txt", 134, 43, 0, 2, 10, 29, 2519},
      {"tlparse-inputs/inductor_provenance_aot_debug_handle_log.txt", 155, 50, 0, 2, 9, 37, 2740},
      {"tlparse-inputs/inductor_provenance_aot_log.txt", 97, 36, 0, 2, 9, 23, 1968},
      {"tlparse-inputs/inductor_provenance_aot_log_old.txt", 96, 41, 0, 2, 9, 26, 1831},
      {"tlparse-inputs/inductor_provenance_extended_log.txt", 135, 44, 0, 2, 11, 29, 2520},
      {"tlparse-inputs/inductor_provenance_jit_cuda_log.txt", 140, 27, 1, 0, 13, 7, 2659},
      {"tlparse-inputs/inductor_provenance_jit_debug_handle_log.txt", 161, 35, 1, 0, 11, 15, 2331},
      {"tlparse-inputs/inductor_provenance_jit_log.txt", 108, 25, 1, 0, 12, 7, 2215},
      {"tlparse-inputs/simple.log", 76, 23, 1, 0, 4, 12, 2223},
      {"tlparse-inputs/simple_corrupted_json.log", 76, 23, 1, 0, 4, 12, 2222},
      {"tlparse-inputs/multi_rank_messy_input/dedicated_log_torch_trace_rank_0.log", 76, 23, 1, 0, 4, 12,
       2223},
      {"tlparse-inputs/multi_rank_messy_input/some_other_file.txt", 0, 0, 0, 0, 0, 0, 0},
      {"traces/aoti_conv/trace/dedicated_log_torch_trace_qlxq8bkd.log", 183, 43, 0, 2, 12, 27, 4502},
      {"traces/cpu_inductor/trace/dedicated_log_torch_trace_tf59w5be.log", 170, 23, 1, 0, 13, 4, 4616},
      {"traces/graph_break_dynamic/trace/dedicated_log_torch_trace_f78lg2bd.log", 879, 181, 6, 0, 89, 39,
       24585},
      {"traces/mlp_train/trace/dedicated_log_torch_trace_9bvvd8es.log", 279, 35, 2, 0, 19, 4, 8897},
      {"traces/multirank/trace/dedicated_log_torch_trace_rank_0_rjwfigso.log", 159, 25, 1, 0, 13, 6, 4224},
      {"traces/multirank/trace/dedicated_log_torch_trace_rank_1_gdc1ool8.log", 137, 25, 1, 0, 13, 6, 3960},
      {"traces/profiled_mlp/trace/dedicated_log_torch_trace_thl0yl6p.log", 279, 35, 2, 0, 19, 4, 8897},
  };
  for (const Expect &e : expectations) {
    CAPTURE(e.path);
    auto log = TraceLog::open(kFixtures + "/" + e.path);
    REQUIRE(log);
    std::map<TraceKind, size_t> count;
    for (const TraceRecord &r : log->records())
      ++count[r.kind];
    CHECK(log->stats().records == e.records);
    CHECK(log->stats().keptRecords == e.kept);
    CHECK(log->records().size() == e.kept);
    CHECK(log->stats().skippedRecords == e.records - e.kept);
    CHECK(count[TraceKind::InductorOutputCode] == e.outputCode);
    CHECK(count[TraceKind::GraphDump] == e.graphDump);
    CHECK(count[TraceKind::Artifact] == e.artifacts);
    CHECK(count[TraceKind::Str] == e.strs);
    CHECK(log->stats().corruptedRecords == 0);
    CHECK(log->stats().bytes == log->text().size());
    bool unterminated = !log->text().empty() && log->text().back() != '\n';
    CHECK(log->stats().lines == e.newlines + (unterminated ? 1 : 0));
    // Every kept record's payload verifies, except the hand-edited last artifact of the extended log.
    for (const TraceRecord &r : log->records()) {
      if (std::string_view(e.path).find("extended") != std::string_view::npos && &r == &log->records().back())
        CHECK_FALSE(log->verifyPayload(r));
      else
        CHECK(log->verifyPayload(r));
    }
  }
}

TEST_CASE("TraceLog: real fixtures, field by field") {
  auto mlp = TraceLog::open(kFixtures + "/traces/mlp_train/trace/dedicated_log_torch_trace_9bvvd8es.log");
  REQUIRE(mlp);
  const TraceRecord *code = find(*mlp, TraceKind::InductorOutputCode);
  REQUIRE(code);
  CHECK(code->line == 2849);
  CHECK(code->filename ==
        "/tmp/work/mlp_train/inductor_cache/ef/cef5ok47drdubptecjo4j62kxctapiw3ip5g4oiheidxsak3u2kp.py");
  CHECK(code->compileId.traceStr() == "0/0");
  CHECK(code->payloadHash);
  auto lines = mlp->payloadLines(*code);
  REQUIRE(lines.size() == code->payloadLineCount);
  CHECK(lines.size() > 100);
  for (std::string_view line : lines)
    CHECK_FALSE(line.starts_with("\t"));
  CHECK(mlp->internedFilename(InternedStringId{1}) == "/tmp/work/mlp_train/model.py");
  CHECK(find(*mlp, TraceKind::AotForwardGraph));
  CHECK(find(*mlp, TraceKind::AotBackwardGraph));
  CHECK(find(*mlp, TraceKind::AotJointGraph));
  CHECK(find(*mlp, TraceKind::BwdCompilationMetrics));
  auto skipped = mlp->skippedKinds();
  REQUIRE_FALSE(skipped.empty());
  CHECK(skipped[0].kind == "chromium_event");
  CHECK(skipped[0].count == 199);

  // AOTInductor: no Dynamo frame, so no compile ids; the wrapper is a graph_dump.
  auto aoti = TraceLog::open(kFixtures + "/traces/aoti_conv/trace/dedicated_log_torch_trace_qlxq8bkd.log");
  REQUIRE(aoti);
  const TraceRecord *wrapper = find(*aoti, TraceKind::GraphDump);
  REQUIRE(wrapper);
  CHECK(wrapper->name == "inductor_aot_wrapper_code");
  CHECK(wrapper->dumpType == "cpp");
  CHECK(wrapper->filename.ends_with(".wrapper.cpp"));
  CHECK(wrapper->compileId.empty());
  CHECK(aoti->verifyPayload(*wrapper));
  const TraceRecord *kernels = find(*aoti, TraceKind::GraphDump, 1);
  REQUIRE(kernels);
  CHECK(kernels->name == "inductor_aot_kernel_code");
  for (const TraceRecord &r : aoti->records())
    CHECK(r.compileId.empty());

  // Recompiles in graph_break_dynamic: frames 0-2, two compiles each, some retried (attempt 1).
  auto dyn =
      TraceLog::open(kFixtures + "/traces/graph_break_dynamic/trace/dedicated_log_torch_trace_f78lg2bd.log");
  REQUIRE(dyn);
  std::vector<std::string> ids;
  for (const TraceRecord &r : dyn->records())
    if (r.kind == TraceKind::InductorOutputCode) ids.push_back(r.compileId.traceStr());
  CHECK(ids == std::vector<std::string>{"0/0_1", "1/0", "2/0", "0/1_1", "1/1", "2/1"});

  // Old PyTorch: inductor_post_grad_graph at top level; provenance artifacts with json encoding.
  auto old = TraceLog::open(kFixtures + "/tlparse-inputs/inductor_provenance_aot_log_old.txt");
  REQUIRE(old);
  CHECK(find(*old, TraceKind::InductorPostGradGraph));
  CHECK(find(*old, TraceKind::InductorPreGradGraph));
  bool sawJsonProvenance = false;
  for (const TraceRecord &r : old->records())
    if (r.kind == TraceKind::Artifact && r.name.starts_with("inductor_provenance") &&
        r.encoding == PayloadEncoding::Json)
      sawJsonProvenance = true;
  CHECK(sawJsonProvenance);
}

TEST_CASE("TraceLog: simple_corrupted_json.log, whose chromium_event payload lost a line") {
  const std::string path = kFixtures + "/tlparse-inputs/simple_corrupted_json.log";
  auto log = TraceLog::open(path);
  REQUIRE(log);
  for (const TraceRecord &r : log->records())
    CHECK(log->verifyPayload(r)); // The damage is in a skipped kind.
  PayloadVerification all = log->verifyAll();
  CHECK(all.mismatched == 1);
  CHECK(all.checked > 50);
  REQUIRE(all.diagnostics.size() == 1);
  CHECK(all.diagnostics[0].line == 12);
  CHECK(all.diagnostics[0].message.find("chromium_event") != std::string::npos);

  TraceLogOptions options;
  options.verifyPayloads = true;
  auto eager = TraceLog::open(path, options);
  REQUIRE(eager);
  CHECK(eager->stats().payloadMismatches == 1);
  CHECK(diagnosticLines(*eager) == std::vector<uint32_t>{12});
  CHECK(eager->records().size() == 23);

  auto intact = TraceLog::open(kFixtures + "/tlparse-inputs/simple.log");
  REQUIRE(intact);
  CHECK(intact->verifyAll().mismatched == 0);
}

TEST_CASE("TraceLog::verifyAll: payloads another log verified are compared byte for byte, not trusted") {
  std::string text = readFile(kFixtures + "/tlparse-inputs/simple.log");
  VerifiedPayloads shared;
  TraceLog a = TraceLog::fromText(text, "rank0.log");
  TraceLog b = TraceLog::fromText(text, "rank1.log");
  PayloadVerification va = a.verifyAll(&shared);
  CHECK(va.mismatched == 0);
  uint64_t reusedByA = shared.reused();
  PayloadVerification vb = b.verifyAll(&shared);
  CHECK(vb.mismatched == 0);
  CHECK(vb.checked == va.checked);
  CHECK(shared.reused() - reusedByA > va.checked / 2); // b's payloads were compared, not hashed.

  // Same length and has_payload, one byte changed: found, as without sharing.
  std::string forged = text;
  size_t at = forged.find("\t\"name\": \"");
  REQUIRE(at != std::string::npos);
  forged[at + 11] = forged[at + 11] == 'x' ? 'y' : 'x';
  TraceLog c = TraceLog::fromText(forged, "rank2.log");
  PayloadVerification vc = c.verifyAll(&shared);
  CHECK(vc.mismatched == 1);
  REQUIRE(vc.diagnostics.size() == 1);
  CHECK(vc.diagnostics[0].line == c.verifyAll().diagnostics.at(0).line);
}

TEST_CASE("TraceLog::refresh: appended records are scanned incrementally") {
  std::string first = record(R"("str": ["/a.py", 0])") + record(R"("artifact": {"name": "one"})", {"1"});
  TempFile file(first);
  auto log = TraceLog::open(file.path);
  REQUIRE(log);
  CHECK(log->records().size() == 2);

  auto none = log->refresh();
  REQUIRE(none);
  CHECK(*none == 0);

  // The last record grows: its payload gets another line before the next record.
  file.append("\tmore\n" + record(R"("artifact": {"name": "two"})", {"2"}) + "garbage\n");
  auto added = log->refresh();
  REQUIRE(added);
  CHECK(*added == 1);
  REQUIRE(log->records().size() == 3);
  CHECK(log->payloadText(log->records()[1]) == "1\nmore");
  CHECK_FALSE(log->verifyPayload(log->records()[1])); // has_payload was for "1" only.
  CHECK(log->records()[2].name == "two");
  CHECK(log->records()[2].line == 4);
  CHECK(log->stats().corruptedRecords == 1);
  CHECK(log->stats().records == 3);
  CHECK(log->stats().bytes == log->text().size());

  // A scan from scratch agrees with the incremental one.
  TraceLog fresh = TraceLog::fromText(readFile(file.path));
  CHECK(fresh.stats().records == log->stats().records);
  CHECK(fresh.stats().lines == log->stats().lines);
  CHECK(fresh.stats().corruptedRecords == log->stats().corruptedRecords);
  CHECK(kinds(fresh) == kinds(*log));
}

TEST_CASE("TraceLog follow mode: the last record stays pending until the next envelope or finalize()") {
  TraceLogOptions follow;
  follow.follow = true;
  std::string one = record(R"("artifact": {"name": "one"})", {"1"});
  std::string two = record(R"("artifact": {"name": "two"})", {"2"});
  TempFile file(one);
  auto log = TraceLog::open(file.path, follow);
  REQUIRE(log);
  CHECK(log->records().empty()); // Pending: its payload may still grow.
  CHECK(log->stats().bytes == 0);
  CHECK(log->scannedBytes() == one.size());

  // Half of the next envelope arrives: it is not a complete line, so nothing changes.
  file.append(two.substr(0, 20));
  auto partial = log->refresh();
  REQUIRE(partial);
  CHECK(*partial == 0);
  CHECK(log->records().empty());

  file.append(two.substr(20));
  auto added = log->refresh();
  REQUIRE(added);
  CHECK(*added == 1); // "one" is complete now; "two" is pending.
  REQUIRE(log->records().size() == 1);
  CHECK(log->records()[0].name == "one");
  CHECK(log->stats().bytes == one.size());

  log->finalize();
  REQUIRE(log->records().size() == 2);
  CHECK(log->records()[1].name == "two");
  CHECK(log->stats().bytes == one.size() + two.size());
  CHECK(log->stats().records == 2);
}

TEST_CASE("TraceLog follow mode: a quiet file commits its last record, which then stays") {
  TraceLogOptions follow;
  follow.follow = true;
  follow.quietPeriod = std::chrono::milliseconds(0); // Any file ending with a newline counts as quiet.
  std::string one = record(R"("artifact": {"name": "one"})", {"1"});
  std::string two = record(R"("artifact": {"name": "two"})", {"2"});
  TempFile file(one);
  auto log = TraceLog::open(file.path, follow);
  REQUIRE(log);
  REQUIRE(log->records().size() == 1);

  // The writer starts a line: the file is not quiet, but the committed record is not withdrawn.
  file.append("\tmore");
  auto partial = log->refresh();
  REQUIRE(partial);
  CHECK(*partial == 0);
  REQUIRE(log->records().size() == 1);

  file.append("\n" + two);
  auto added = log->refresh();
  REQUIRE(added);
  CHECK(*added == 1);
  REQUIRE(log->records().size() == 2);
  CHECK(log->payloadText(log->records()[0]) == "1\nmore");
  CHECK(log->records()[1].name == "two");

  // With the default quiet period, a file written just now keeps its last record pending.
  TraceLogOptions patient;
  patient.follow = true;
  auto fresh = TraceLog::open(file.path, patient);
  REQUIRE(fresh);
  CHECK(fresh->records().size() == 1);
}

// ---------------------------------------------------------------------------------------------------------------
// resume(): a new TraceLog over the grown file, the previous one left intact.

namespace {

/// Everything a scan produced, as text: a resumed log and a fresh open() of the same bytes must print the
/// same.
std::string describeScan(const TraceLog &log) {
  std::ostringstream out;
  for (const TraceRecord &r : log.records())
    out << "record " << r.envelopeOffset << " " << r.metadataOffset << " " << r.metadataLength << " "
        << r.payloadBegin << "-" << r.payloadEnd << " line " << r.line << "+" << r.payloadLineCount << " "
        << r.kindKey << " kind " << int(r.kind) << " enc " << int(r.encoding) << " check " << int(r.check)
        << " id " << r.compileId.str() << " rank " << r.rank.value_or(-1) << " hash "
        << (r.payloadHash ? r.payloadHash->hex() : "-") << " name " << r.name << " file " << r.filename
        << " type " << r.dumpType << "\n";
  const TraceScanStats &s = log.stats();
  out << "stats " << s.bytes << " " << s.lines << " " << s.records << " " << s.keptRecords << " "
      << s.skippedRecords << " " << s.corruptedRecords << " " << s.payloadsVerified << " "
      << s.payloadMismatches << " " << s.diagnostics << " scanned " << log.scannedBytes() << " rank "
      << log.rank().value_or(-1) << "\n";
  for (const TraceDiagnostic &d : log.diagnostics())
    out << "diag " << d.line << " " << d.message << "\n";
  for (const SkippedKindCount &k : log.skippedKinds())
    out << "skipped " << k.kind << " " << k.count << "\n";
  for (int id = 0; id < 64; ++id)
    if (auto name = log.internedFilename(InternedStringId{id})) out << "str " << id << " " << *name << "\n";
  return out.str();
}

} // namespace

TEST_CASE("TraceLog: a scan split in two halves agrees with one pass, on every fixture log and random logs") {
  TraceLogOptions split;
  split.jobs = 2;
  split.splitBytes = 2; // Every log is split, at the first record at or after its middle.
  std::vector<std::string> paths;
  for (const char *dir : {"/traces", "/tlparse-inputs"})
    for (const auto &e : std::filesystem::recursive_directory_iterator(kFixtures + dir))
      if (e.is_regular_file() && e.path().extension() == ".log") paths.push_back(e.path().string());
  REQUIRE(paths.size() > 20);
  for (const std::string &path : paths) {
    CAPTURE(path);
    for (bool follow : {false, true}) {
      CAPTURE(follow);
      TraceLogOptions one;
      one.follow = follow;
      split.follow = follow;
      auto a = TraceLog::open(path, one);
      auto b = TraceLog::open(path, split);
      REQUIRE(a);
      REQUIRE(b);
      CHECK(describeScan(*a) == describeScan(*b));
      CHECK(a->bytesRead() == b->bytesRead());
      a->finalize();
      b->finalize();
      CHECK(describeScan(*a) == describeScan(*b));
    }
  }
  split.follow = false;
  // A resumed log whose growth is split: the second scan starts at the first's checkpoint, after records.
  const std::string full =
      readFile(kFixtures + "/traces/mlp_train/trace/dedicated_log_torch_trace_9bvvd8es.log");
  for (size_t cut : {full.size() / 5, full.size() / 2, full.size() - 1000}) {
    CAPTURE(cut);
    TempFile file(full.substr(0, cut));
    auto first = TraceLog::open(file.path, split);
    REQUIRE(first);
    file.append(full.substr(cut));
    auto resumed = TraceLog::resume(*first);
    REQUIRE(resumed);
    CHECK(resumed->resumed());
    auto fresh = TraceLog::open(file.path);
    REQUIRE(fresh);
    CHECK(describeScan(*resumed) == describeScan(*fresh));
  }
  // Random logs put the middle in payloads, blank lines, CRLF and garbage lines.
  std::mt19937 rng(99);
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  for (int round = 0; round < 500; ++round) {
    std::string text;
    for (int i = 0, parts = 1 + pick(30); i < parts; ++i) {
      std::string eol = pick(6) == 0 ? "\r\n" : "\n";
      switch (pick(7)) {
      case 0:
      case 1:
        text +=
            record(R"("str": ["/f)" + std::to_string(pick(4)) + R"(.py", )" + std::to_string(pick(3)) + "]");
        break;
      case 2:
        text += record(R"("artifact": {"name": "n)" + std::to_string(i) + R"(", "encoding": "string"})",
                       {std::string(size_t(pick(30)), 'p'), "q"});
        break;
      case 3:
        text += "\t" + std::string(size_t(pick(20)), 'x') + eol;
        break;
      case 4:
        text += pick(2) ? eol : "\t" + eol;
        break;
      case 5:
        text += record(R"("chromium_event": {})", {"e"}, "[rank3]:" + std::string(kPrefix));
        break;
      default:
        text += pick(2) ? "garbage" + eol : "\rx" + eol;
        break;
      }
    }
    if (pick(3) == 0 && !text.empty()) text.pop_back();
    CAPTURE(round);
    CAPTURE(text);
    TraceLogOptions one;
    one.follow = split.follow = round % 2 == 1; // Follow mode: an unterminated last line is not read yet.
    CHECK(describeScan(TraceLog::fromText(text, "", one)) ==
          describeScan(TraceLog::fromText(text, "", split)));
  }
}

TEST_CASE("TraceLog::resume: reads only from the previous log's last record; the previous log is untouched") {
  std::string one = record(R"("str": ["/a.py", 0])") + record(R"("artifact": {"name": "one"})", {"1", "x"});
  std::string two =
      record(R"("artifact": {"name": "two"})", {"2"}) + record(R"("chromium_event": {})", {"e"});
  TempFile file(one);
  auto opened = TraceLog::open(file.path);
  REQUIRE(opened);
  auto previous = std::make_unique<TraceLog>(std::move(*opened));
  CHECK(previous->bytesRead() == one.size());
  CHECK_FALSE(previous->resumed());
  CHECK_FALSE(previous->stale());
  std::string before = describeScan(*previous);
  std::vector<std::string_view> payload = previous->payloadLines(previous->records()[1]);
  std::string_view text = previous->text();

  file.append("\tmore\n" + two);
  CHECK(previous->stale());
  auto resumed = TraceLog::resume(*previous);
  REQUIRE(resumed);
  CHECK(resumed->resumed());
  CHECK_FALSE(resumed->stale());
  // The scan restarted at the previous last record ("one", whose payload grew): nothing before it was read.
  uint64_t lastRecord = previous->records()[1].envelopeOffset;
  CHECK(resumed->bytesRead() == one.size() + 6 + two.size() - lastRecord);
  auto fresh = TraceLog::open(file.path);
  REQUIRE(fresh);
  CHECK(describeScan(*resumed) == describeScan(*fresh));
  REQUIRE(resumed->records().size() == 3);
  CHECK(resumed->payloadText(resumed->records()[1]) == "1\nx\nmore");

  // The previous log still describes, and serves views of, the file as it was.
  CHECK(describeScan(*previous) == before);
  CHECK(previous->text() == text);
  CHECK(previous->text().size() == one.size());
  CHECK(payload == std::vector<std::string_view>{"1", "x"});

  // Interned strings outlive the log they were interned by.
  previous.reset();
  CHECK(resumed->records()[1].name == "one");
  CHECK(resumed->records()[2].name == "two");
  CHECK(resumed->internedFilename(InternedStringId{0}) == "/a.py");

  // Nothing new: nothing read.
  auto again = TraceLog::resume(*resumed);
  REQUIRE(again);
  CHECK(again->resumed());
  CHECK(again->bytesRead() == 0);
  CHECK(describeScan(*again) == describeScan(*resumed));
}

TEST_CASE("TraceLog::resume agrees with a fresh open at every cut of a real log, mid-line cuts included") {
  const std::string full =
      readFile(kFixtures + "/traces/mlp_train/trace/dedicated_log_torch_trace_9bvvd8es.log");
  REQUIRE(full.size() > 100000);
  // Cuts at random bytes (mid-record, mid-line) and at record starts, in order.
  std::mt19937 rng(1234);
  std::vector<size_t> cuts;
  for (int i = 0; i < 24; ++i)
    cuts.push_back(std::uniform_int_distribution<size_t>(1, full.size() - 1)(rng));
  for (size_t at = full.find("\nV", full.size() / 3); cuts.size() < 32 && at != std::string::npos;
       at = full.find("\nV", at + 20000))
    cuts.push_back(at + 1);
  cuts.push_back(full.size());
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  TempFile file(full.substr(0, cuts[0]));
  auto log = TraceLog::open(file.path);
  REQUIRE(log);
  uint64_t read = log->bytesRead();
  for (size_t i = 1; i < cuts.size(); ++i) {
    CAPTURE(cuts[i]);
    file.append(full.substr(cuts[i - 1], cuts[i] - cuts[i - 1]));
    auto resumed = TraceLog::resume(*log);
    REQUIRE(resumed);
    CHECK(resumed->resumed());
    auto fresh = TraceLog::open(file.path);
    REQUIRE(fresh);
    CHECK(describeScan(*resumed) == describeScan(*fresh));
    // Only the previous last record is read again.
    uint64_t restart = log->records().empty() ? 0 : log->records().back().envelopeOffset;
    CHECK(resumed->bytesRead() <= cuts[i] - std::min<uint64_t>(restart, cuts[i - 1]));
    read += resumed->bytesRead();
    log = std::move(resumed);
  }
  CHECK(log->text().size() == full.size());
  // Far less than re-reading the file at every step.
  CHECK(read < 2 * full.size());
}

TEST_CASE("TraceLog::resume: a replaced, truncated or rewritten file is read from scratch") {
  std::string one = record(R"("artifact": {"name": "one"})", {"1"});
  std::string two = record(R"("artifact": {"name": "two"})", {"2"});
  TempFile file(one + two);
  auto log = TraceLog::open(file.path);
  REQUIRE(log);

  SUBCASE("replaced by another file under the same path") {
    TempFile other(two + one + one);
    REQUIRE(std::rename(other.path.c_str(), file.path.c_str()) == 0);
    auto resumed = TraceLog::resume(*log);
    REQUIRE(resumed);
    CHECK_FALSE(resumed->resumed());
    CHECK(kinds(*resumed).size() == 3);
    CHECK(resumed->records()[0].name == "two");
    CHECK(resumed->bytesRead() == two.size() + 2 * one.size());
  }
  SUBCASE("truncated") {
    std::ofstream(file.path, std::ios::binary | std::ios::trunc) << one;
    auto resumed = TraceLog::resume(*log);
    REQUIRE(resumed);
    CHECK_FALSE(resumed->resumed());
    CHECK(resumed->records().size() == 1);
  }
  SUBCASE("rewritten in place, longer, with other bytes before the resume point") {
    std::ofstream(file.path, std::ios::binary | std::ios::trunc) << two + one + two;
    auto resumed = TraceLog::resume(*log);
    REQUIRE(resumed);
    CHECK_FALSE(resumed->resumed());
    REQUIRE(resumed->records().size() == 3);
    CHECK(resumed->records()[0].name == "two");
  }
  // The previous log is untouched in every case.
  REQUIRE(log->records().size() == 2);
  CHECK(log->records()[0].name == "one");
}

TEST_CASE("TraceLog::resume: in-memory logs cannot be resumed; stale() is false for them") {
  TraceLog log = TraceLog::fromText(record(R"("artifact": {"name": "one"})", {"1"}));
  CHECK_FALSE(log.stale());
  auto resumed = TraceLog::resume(log);
  REQUIRE_FALSE(resumed);
  CHECK(resumed.error().message.find("in-memory") != std::string::npos);
}

TEST_CASE("TraceLog::readPayload refuses a log truncated, deleted or rewritten since it was read") {
  // Findings 3 and 7 of issue 11: a truncated log killed the server (SIGBUS); a deleted one kept being
  // served.
  std::vector<std::string> lines(4000, "x = y  # a line of output code long enough to span pages");
  std::string text = record(R"("inductor_output_code": {"filename": "o.py"})", lines) +
                     record(R"("artifact": {"name": "after"})", {"1"});
  SUBCASE("truncated: no fault, an error") {
    TempFile file(text);
    auto log = TraceLog::open(file.path);
    REQUIRE(log);
    const TraceRecord &code = log->records()[0];
    REQUIRE(::truncate(file.path.c_str(), 100) == 0);
    CHECK(log->fileState() == FileState::Truncated);
    auto payload = log->readPayload(code);
    REQUIRE_FALSE(payload);
    CHECK(payload.error().message.find("truncated") != std::string::npos);
    // The unchecked accessors do not fault either: the pages past the cut read as zeros.
    CHECK(log->payloadText(code).size() > 100);
  }
  SUBCASE("deleted") {
    TempFile file(text);
    auto log = TraceLog::open(file.path);
    REQUIRE(log);
    std::remove(file.path.c_str());
    auto payload = log->readPayload(log->records()[0]);
    REQUIRE_FALSE(payload);
    CHECK(payload.error().message.find("deleted") != std::string::npos);
  }
  SUBCASE("rewritten in place with other bytes: the md5 tells") {
    TempFile file(text);
    auto log = TraceLog::open(file.path);
    REQUIRE(log);
    std::string other = text;
    other[other.find("x = y")] = 'z';
    std::ofstream(file.path, std::ios::binary | std::ios::trunc) << other << "\n";
    CHECK(log->fileState() != FileState::Unchanged);
    CHECK_FALSE(log->readPayload(log->records()[0]));
  }
  SUBCASE("grown by appends: still served") {
    TempFile file(text);
    auto log = TraceLog::open(file.path);
    REQUIRE(log);
    file.append(record(R"("artifact": {"name": "later"})", {"2"}));
    CHECK(log->fileState() == FileState::Changed);
    auto payload = log->readPayload(log->records()[0]);
    REQUIRE(payload);
    CHECK(payload->size() == log->payloadText(log->records()[0]).size());
  }
}

TEST_CASE("TraceLog: a file cut again and again while it is scanned never faults") {
  // Truncation during indexing (finding 3): a writer cuts and rewrites the log while it is opened over and
  // over. Every open returns (a log of what it saw), none faults.
  std::vector<std::string> lines(2000, "x = y  # payload line");
  std::string one = record(R"("inductor_output_code": {"filename": "o.py"})", lines);
  std::string text;
  for (int i = 0; i < 40; ++i)
    text += one;
  TempFile file(text);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (size_t cut = 1; !stop; cut = cut * 7 % text.size()) {
      (void)::truncate(file.path.c_str(), off_t(cut));
      std::ofstream(file.path, std::ios::binary | std::ios::trunc) << text;
    }
  });
  size_t opened = 0;
  for (int i = 0; i < 60; ++i) {
    auto log = TraceLog::open(file.path);
    if (!log) continue;
    ++opened;
    for (const TraceRecord &r : log->records())
      (void)log->readPayload(r);
  }
  stop = true;
  writer.join();
  CHECK(opened > 0);
}

TEST_CASE("TraceLog: a log cut in the middle of its last payload says so") {
  // Finding 7 of issue 11: a log truncated mid-payload lost most launches without a word.
  std::vector<std::string> lines;
  for (int i = 0; i < 50; ++i)
    lines.push_back("    triton_poi_fused_" + std::to_string(i) + ".run(buf, stream=stream0)");
  std::string text = record(R"("artifact": {"name": "first"})", {"1"}) +
                     record(R"("inductor_output_code": {"filename": "o.py"})", lines);
  TraceLog whole = TraceLog::fromText(text);
  CHECK(whole.verifyLast().mismatched == 0);
  CHECK(whole.verifyAll().mismatched == 0);
  TraceLog cut = TraceLog::fromText(text.substr(0, text.size() / 2 + 40));
  PayloadVerification last = cut.verifyLast();
  CHECK(last.checked == 1);
  REQUIRE(last.mismatched == 1);
  REQUIRE(last.diagnostics.size() == 1);
  CHECK(last.diagnostics[0].line == 2);
  CHECK(last.diagnostics[0].message.find("cut short") != std::string::npos);
  CHECK(cut.verifyAll().diagnostics.back().message.find("cut short") != std::string::npos);
}

TEST_CASE("TraceLog: what one record may make the reader keep is bounded") {
  // Finding 5 of issue 11: a 200 MB metadata line cost 1.2 GB and 11 s through a DOM.
  SUBCASE("metadata that does not start as json.dumps writes it is walked, not parsed") {
    std::string stack = "[";
    for (int i = 0; i < 20000; ++i)
      stack += std::string(i ? "," : "") + R"({"line": 1, "name": "f", "filename": 0, "loc": "x"})";
    stack += "]";
    TraceLog log = TraceLog::fromText(std::string(kPrefix) + R"({ "dynamo_start": {"stack": )" + stack +
                                      R"(}, "frame_id": 3, "frame_compile_id": 0})" + "\n");
    REQUIRE(log.records().size() == 1);
    CHECK(log.records()[0].kind == TraceKind::DynamoStart);
    CHECK(log.records()[0].compileId.str() == "3/0");
  }
  SUBCASE("strings past kMaxMetadataString are not kept") {
    std::string huge(TraceLog::kMaxMetadataString + 1, 'a');
    TraceLog log =
        TraceLog::fromText(record(R"("str": [")" + huge + R"(", 5])") + record(R"("str": ["/ok.py", 6])") +
                           record(R"("inductor_output_code": {"filename": ")" + huge + R"("})", {"x"}));
    CHECK_FALSE(log.internedFilename(InternedStringId{5}));
    CHECK(log.internedFilename(InternedStringId{6}) == "/ok.py");
    REQUIRE(log.records().size() == 3);
    CHECK(log.records()[2].filename.empty());
    CHECK(log.diagnostics().size() == 1);
  }
  SUBCASE("kept records with metadata past kMaxMetadataBytes are skipped as corrupted") {
    std::string big(TraceLog::kMaxMetadataBytes, ' ');
    TraceLog log = TraceLog::fromText(record(R"("artifact": {"name": "big"}, "pad": ")" + big + "\"") +
                                      record(R"("artifact": {"name": "small"})"));
    REQUIRE(log.records().size() == 1);
    CHECK(log.records()[0].name == "small");
    CHECK(log.stats().corruptedRecords == 1);
    REQUIRE(!log.diagnostics().empty());
    CHECK(log.diagnostics()[0].message.find("limit") != std::string::npos);
  }
}
