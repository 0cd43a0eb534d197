// libFuzzer target: the TORCH_TRACE scanner and record parser (index/trace/TraceLog.h), and the cutting of a
// log into compiles (segmentLog). Properties: records lie inside the text in file order, payload lines agree
// with the payload text, verification never disagrees with itself, rank() is the first ranked record's.
#include "FuzzInput.h"
#include "index/builder/IndexBuilder.h"
#include "index/trace/TraceLog.h"

using namespace inductor;
using namespace inductor::index;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  TraceLogOptions options;
  options.verifyPayloads = size % 2 == 0;
  TraceLog log = TraceLog::fromText(text, "dedicated_log_torch_trace_rank_3_fuzz.log", options);
  uint64_t previous = 0;
  for (const TraceRecord &r : log.records()) {
    fuzz::require(r.envelopeOffset >= previous, "records in file order");
    fuzz::require(r.payloadBegin <= r.payloadEnd && r.payloadEnd <= text.size(), "payload inside the text");
    fuzz::require(r.metadataOffset + r.metadataLength <= text.size(), "metadata inside the text");
    previous = r.envelopeOffset;
    std::string joined;
    bool first = true;
    for (std::string_view line : log.payloadLines(r)) {
      if (!first) joined += '\n';
      first = false;
      joined += line;
    }
    std::string payload = log.payloadText(r);
    fuzz::require(payload == joined, "payload text is its lines joined");
    (void)log.metadataText(r);
    bool ok = log.verifyPayload(r);
    if (r.payloadHash) fuzz::require(ok == (Md5::of(payload) == *r.payloadHash), "verifyPayload is the md5");
    (void)log.readPayload(r);
  }
  PayloadVerification all = log.verifyAll();
  fuzz::require(all.mismatched <= all.checked, "mismatches among the checked");
  (void)log.verifyLast();
  (void)log.skippedKinds();
  (void)log.rank();
  // rank() is remembered by the scan (issue 33: searching made indexing quadratic): without a rank in the
  // file name it is the first kept record's that has one.
  TraceLog unnamed = TraceLog::fromText(text, "fuzz.log", options);
  for (const TraceRecord &r : unnamed.records())
    if (r.rank) {
      fuzz::require(unnamed.rank() == r.rank, "rank() is the first ranked record's");
      break;
    }
  for (const detail::PendingCompile &c : detail::segmentLog(0, log))
    fuzz::require(c.output >= 0 && size_t(c.output) < log.records().size(), "compiles start at a record");
  (void)TraceLog::looksLikeTrace(text);
  return 0;
}
