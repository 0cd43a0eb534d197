// Step 2 of the build pipeline (see IndexBuilder.h): reading TORCH_TRACE logs, resuming grown ones from the
// build cache, verifying payload digests.
#include "index/builder/IndexBuilder.h"

#include <algorithm>
#include <filesystem>

namespace inductor::index {

using namespace detail;

void IndexBuilder::openLogs(const std::vector<std::string> &paths) {
  // How each log was obtained, for the cache's statistics.
  enum class How { Failed, Opened, Resumed, Reused };
  std::vector<std::shared_ptr<const TraceLog>> logs(paths.size());
  std::vector<How> how(paths.size(), How::Failed);
  std::vector<uint64_t> lineage(paths.size(), 0);
  std::vector<uint64_t> bytesRead(paths.size(), 0);
  std::vector<uint64_t> mismatched(paths.size(), 0);
  // Progress by bytes: every log's size now, and how far each worker has scanned its log.
  std::vector<uint64_t> sizes(paths.size(), 0);
  uint64_t totalBytes = 0, newBytes = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    std::error_code ec;
    sizes[i] = std::filesystem::file_size(paths[i], ec);
    if (ec) sizes[i] = 0;
    totalBytes += sizes[i];
    if (!cache_ || !cache_->state_->logs.contains(paths[i])) newBytes += sizes[i];
  }
  // Every payload's md5 while the logs read whole are of moderate size together (IndexOptions::
  // verifyPayloadsUpTo); otherwise the last record of each, which is where a log cut short (truncated, copied
  // while being written) or still being written shows: its payload is incomplete, and the analyses would
  // lose what is missing without a word.
  const bool verifyAll = newBytes <= options_.verifyPayloadsUpTo;
  std::vector<std::atomic<uint64_t>> scanned(paths.size());
  // Payloads verified so far, by digest: the other ranks' copies (and recompiles' identical code) are checked
  // by comparing bytes instead of hashing them again. Views into logs[], which outlive it.
  VerifiedPayloads verified;
  auto reportBytes = [&] {
    uint64_t sum = 0;
    for (const auto &s : scanned)
      sum += s.load(std::memory_order_relaxed);
    sum = std::min(sum, totalBytes);
    auto mb = [](uint64_t b) { return std::to_string((b + (1u << 19)) >> 20); };
    report(Step::ReadingLogs, totalBytes ? double(sum) / double(totalBytes) : 1.0,
           "reading trace logs: " + mb(sum) + " of " + mb(totalBytes) + " MB");
  };
  parallelFor(paths.size(), [&](size_t i) {
    const CachedLog *previous = nullptr;
    if (cache_)
      if (auto it = cache_->state_->logs.find(paths[i]); it != cache_->state_->logs.end())
        previous = &it->second;
    if (previous && !previous->log->stale()) {
      logs[i] = previous->log;
      how[i] = How::Reused;
      lineage[i] = previous->lineage;
    } else {
      TraceLogOptions options;
      // The workers left over when there are fewer logs than workers split the large logs' scans.
      options.jobs = std::max<unsigned>(1, options_.jobs / unsigned(paths.size()));
      options.progress = [&, i](uint64_t bytes) {
        scanned[i].store(bytes, std::memory_order_relaxed);
        reportBytes();
      };
      Expected<TraceLog> log =
          previous ? TraceLog::resume(*previous->log) : TraceLog::open(paths[i], options);
      if (!log) {
        diag(paths[i], 0, log.error().message);
      } else {
        how[i] = log->resumed() ? How::Resumed : How::Opened;
        if (log->resumed()) lineage[i] = previous->lineage;
        bytesRead[i] = log->bytesRead();
        PayloadVerification v = !log->resumed() && verifyAll ? log->verifyAll(&verified) : log->verifyLast();
        for (const TraceDiagnostic &d : v.diagnostics)
          diag(paths[i], d.line, d.message);
        mismatched[i] = v.mismatched; // verifyAll keeps a bounded number of diagnostics; all are counted.
        // Nothing of the log needs to stay resident: the analyses fault in the payloads they read. (The scan
        // and the verification return pages behind them in windows; a log smaller than one would stay whole,
        // and so would every one of 32 ranks.)
        log->releasePages();
        logs[i] = std::make_shared<const TraceLog>(std::move(*log));
      }
    }
    if (logs[i])
      for (const TraceDiagnostic &d : logs[i]->diagnostics())
        diag(paths[i], d.line, d.message);
    scanned[i].store(sizes[i], std::memory_order_relaxed);
    reportBytes();
  });
  IndexCache::BuildStats &stats = next_.last;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!logs[i]) continue;
    if (lineage[i] == 0) lineage[i] = next_.nextLineage++;
    stats.logsReused += how[i] == How::Reused;
    stats.logsResumed += how[i] == How::Resumed;
    stats.logsOpened += how[i] == How::Opened;
    stats.bytesRead += bytesRead[i];
    next_.logs[paths[i]] = CachedLog{logs[i], lineage[i]};
    index_->traceFiles_.push_back(paths[i]);
    index_->stats_.traceBytes += logs[i]->text().size();
    index_->stats_.traceBytesRead += bytesRead[i];
    index_->stats_.corruptedRecords += logs[i]->stats().corruptedRecords + mismatched[i];
    tables_->logs.push_back(std::move(logs[i]));
    lineages_.push_back(lineage[i]);
  }
  index_->stats_.traceFiles = tables_->logs.size();
}

} // namespace inductor::index
