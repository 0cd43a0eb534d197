// index/builder/BuildRuns.cpp: an index of one run (index/files/Runs.h): the runs of the inputs, the one
// IndexOptions::run selects, and the inputs restricted to it before any log is read, so that every later step
// (reading logs, file compiles, compile health, runtime) sees only that run's files.
#include "index/builder/IndexBuilder.h"
#include "index/model/IndexTables.h"
#include "index/runtime/DebugPrinter.h"
#include "index/support/PathNames.h"
#include "index/support/TextLines.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace inductor::index {

using namespace detail;

void IndexBuilder::selectRunOf(DiscoveredInputs &inputs, const IndexCache::State::Discovered *grouped) {
  if (inputs.traceLogs.empty()) return; // Debug directories or cache files alone: no run to choose.
  ReadPolicy policy(readRoots(options_, /*withImportRoots=*/false));
  if (grouped) {
    index_->runs_ = grouped->runs;
    unattributed_ = grouped->unattributed;
  } else {
    RuntimeInputs runtime =
        discoverRuntimeInputs(options_.profiles, options_.runLogs, inputs, inputs.traceLogs, policy);
    index_->runs_ = groupRuns(inputs, runtime, policy, &unattributed_);
  }
  const std::vector<Run> &runs = index_->runs_;
  std::string selector = options_.run.value_or("latest");
  std::optional<size_t> chosen = selectRun(runs, selector);
  if (!chosen) {
    chosen = runs.size() - 1;
    diag("", 0,
         "run \"" + selector + "\" is none of the " + std::to_string(runs.size()) +
             " run(s) found; showing the latest, " + runs.back().id);
  }
  index_->runIndex_ = chosen;
  if (runs.size() <= 1) return;
  const Run &run = runs[*chosen];
  std::vector<std::string> logs;
  for (std::string &log : inputs.traceLogs)
    if (std::find(run.logs.begin(), run.logs.end(), log) != run.logs.end()) logs.push_back(std::move(log));
  inputs.traceLogs = std::move(logs);
  // Debug directories of other runs (or of none) go; cache `.debug/` units stay for buildFileCompiles to
  // match.
  std::vector<CompileFiles> units;
  for (CompileFiles &unit : inputs.compiles) {
    std::string dir = debugRunDirOf(unit.outputCode);
    if (dir.empty() || std::find(run.debugDirs.begin(), run.debugDirs.end(), dir) != run.debugDirs.end())
      units.push_back(std::move(unit));
  }
  inputs.compiles = std::move(units);
  // Debug directories and profiles of no run are named one by one; the run-log candidates (any *.log, *.txt
  // beside the traces) once, with the first, and only those that hold the printer's output: a copy of the
  // model (`model_base.py.txt`) or a program's stdout is nobody's run log and no problem of the traces.
  size_t runLogs = 0, sniffed = 0;
  std::string firstRunLog;
  for (const Unattributed &u : unattributed_) {
    if (u.why.rfind("run log", 0) == 0) {
      if (++sniffed > kMaxRunLogCandidates) continue;
      Expected<std::string> head = policy.readListedHead(u.path, kSniffBytes);
      if (!head || !looksLikePrinterLog(*head)) continue;
      if (runLogs++ == 0) firstRunLog = u.path;
      continue;
    }
    diag(u.path, 0, u.why + "; " + std::to_string(runs.size()) + " runs found: left out of run " + run.id);
  }
  if (runLogs > 0)
    diag(firstRunLog, 0,
         std::to_string(runLogs) +
             " possible run log(s) of the printer belong to no run (they name no pid of a "
             "run, and their times are in none), the first being this one; " +
             std::to_string(runs.size()) + " runs found: left out of run " + run.id);
}

void IndexBuilder::deferRanksOf(DiscoveredInputs &inputs) {
  if (!index_->runIndex_ || *index_->runIndex_ >= index_->runs_.size()) return;
  const Run &run = index_->runs_[*index_->runIndex_];
  index_->stats_.ranks = run.ranks.size();
  if (options_.deferRanksOver == 0 || run.ranks.size() <= options_.deferRanksOver || run.logs.empty()) return;
  // The lowest rank's log is the run's first (Run::logs: by rank, then path; one log per rank), unless the
  // editor has a log-only document of another rank's log open (IndexOptions::firstDocuments: its virtual
  // name starts with the log's file name): the lowest such rank is read first, so that it answers at once.
  size_t at = 0;
  if (options_.firstDocuments) {
    const std::vector<IndexOptions::FirstDocument> open = options_.firstDocuments();
    auto isOpen = [&](std::string_view log) {
      return std::any_of(open.begin(), open.end(), [&](const IndexOptions::FirstDocument &d) {
        std::optional<VirtualNameRecord> record = virtualNameRecord(d.name);
        return record && record->log == log;
      });
    };
    for (size_t i = 0; i < run.logs.size(); ++i)
      if (isOpen(baseName(run.logs[i]))) {
        at = i;
        break;
      }
  }
  const std::string &first = run.logs[at];
  if (std::find(inputs.traceLogs.begin(), inputs.traceLogs.end(), first) == inputs.traceLogs.end()) return;
  if (options_.deferRanksFromBytes > 0) {
    uint64_t bytes = 0;
    for (const std::string &log : run.logs) {
      std::error_code ec;
      uint64_t size = std::filesystem::file_size(log, ec);
      if (!ec) bytes += size;
      if (bytes >= options_.deferRanksFromBytes) break;
    }
    if (bytes < options_.deferRanksFromBytes) return;
  }
  ReadPolicy policy(readRoots(options_, /*withImportRoots=*/false));
  // The log's rank and pid as the grouping read them (its head's metadata, else its name).
  const LogTimes times = readLogTimes(first, policy);
  const int pid = times.pid;
  inputs.traceLogs = {first};
  // A debug directory is one process's: that rank's is kept when its pid is known; cache files are kept for
  // buildFileCompiles to match with the log's output code (restrictedToRun).
  std::vector<CompileFiles> units;
  for (CompileFiles &unit : inputs.compiles) {
    std::string dir = debugRunDirOf(unit.outputCode);
    if (dir.empty() || (pid != 0 && debugRunDirPid(dir) == pid)) units.push_back(std::move(unit));
  }
  inputs.compiles = std::move(units);
  index_->stats_.ranksDeferred = run.ranks.size() - 1;
  index_->stats_.rankRead = times.rank.value_or(run.ranks.front());
  ranksDeferred_ = true;
}

void IndexBuilder::deferCompilesOf(std::vector<PendingCompile> &pending) {
  if (!options_.firstDocuments || !cache_ || pending.empty()) return;
  if (index_->stats_.traceBytes < options_.deferCompilesFromBytes) return; // The logs read (openLogs).
  const std::vector<IndexOptions::FirstDocument> wanted = options_.firstDocuments();
  if (wanted.empty()) return;
  // The records the documents were made of: a virtual name names its log and record line (virtualName); a
  // file (a debug directory's or a cache's copy of output code, wherever it is now) is found by its lines, as
  // Index::matchGeneratedCode finds it: the output code records of about as many lines are hashed, no other.
  const std::vector<std::shared_ptr<const TraceLog>> &logs = tables_->logs;
  std::set<std::pair<uint32_t, int>> records;
  for (const IndexOptions::FirstDocument &w : wanted) {
    if (!w.text.empty()) {
      const TextLines lines = splitLines(w.text);
      const uint64_t hash = identityHash(lines);
      for (uint32_t i = 0; i < logs.size(); ++i) {
        const std::vector<TraceRecord> &rs = logs[i]->records();
        for (size_t r = 0; r < rs.size(); ++r)
          if (rs[r].kind == TraceKind::InductorOutputCode && rs[r].payloadLineCount + 1 >= lines.size() &&
              rs[r].payloadLineCount <= lines.size() + 1 &&
              identityHash(logs[i]->payloadLines(rs[r])) == hash)
            records.emplace(i, int(r));
      }
    }
    const std::optional<VirtualNameRecord> named = virtualNameRecord(w.name);
    if (!named) continue;
    for (uint32_t i = 0; i < logs.size(); ++i) {
      if (baseName(logs[i]->path()) != named->log) continue;
      const std::vector<TraceRecord> &rs = logs[i]->records(); // In line order.
      auto it = std::lower_bound(rs.begin(), rs.end(), named->line,
                                 [](const TraceRecord &r, uint32_t l) { return r.line < l; });
      if (it != rs.end() && it->line == named->line) records.emplace(i, int(it - rs.begin()));
    }
  }
  auto holdsOne = [&](const PendingCompile &p) {
    for (int record : {p.output, p.postGrad, p.preGrad})
      if (record >= 0 && records.count({p.log, record})) return true;
    return false;
  };
  const size_t first = size_t(std::count_if(pending.begin(), pending.end(), holdsOne));
  if (first == 0 || first == pending.size()) return; // Nothing to leave out, or no compile holds them.
  index_->stats_.compilesDeferred = pending.size() - first;
  std::erase_if(pending, [&](const PendingCompile &p) { return !holdsOne(p); });
  compilesDeferred_ = true;
}

bool IndexBuilder::inSelectedRunDebugDir(const std::string &path) const {
  if (!index_->runIndex_) return false;
  std::string dir = debugRunDirOf(path);
  const Run &run = index_->runs_[*index_->runIndex_];
  return !dir.empty() && std::find(run.debugDirs.begin(), run.debugDirs.end(), dir) != run.debugDirs.end();
}

std::vector<Run> findRuns(const IndexOptions &options) {
  ReadPolicy policy(readRoots(options, /*withImportRoots=*/false));
  const std::vector<std::string> &searched = options.inputs.empty() ? options.roots : options.inputs;
  DiscoveredInputs found = discoverInputs(searched, kMaxDiscoveredFiles, &policy);
  RuntimeInputs runtime =
      discoverRuntimeInputs(options.profiles, options.runLogs, found, found.traceLogs, policy);
  return groupRuns(found, runtime, policy);
}

Expected<NamedRun> resolveRunName(const IndexOptions &options, const std::vector<Run> &runs,
                                  std::string_view name, const std::string &base) {
  auto named = [&](const std::vector<Run> &among, std::string_view selector,
                   std::vector<std::string> inputs) -> Expected<NamedRun> {
    std::optional<size_t> at = selectRun(among, selector);
    if (!at) return Error{noRunMatches(name, among)};
    return NamedRun{among[*at].id, std::move(inputs), false};
  };
  if (name.empty() || name == "latest" || name == "previous" ||
      std::any_of(runs.begin(), runs.end(), [&](const Run &r) { return r.id == name; }))
    return named(runs, name, options.inputs);
  std::error_code ec;
  std::filesystem::path given{std::string(name)};
  if (given.is_relative() && !base.empty()) given = std::filesystem::path(base) / given;
  if (!std::filesystem::exists(given, ec)) return Error{noRunMatches(name, runs)};
  std::string path = normalizePath(std::filesystem::absolute(given, ec).string());
  const std::vector<std::string> &searched = options.inputs.empty() ? options.roots : options.inputs;
  bool inside = std::any_of(searched.begin(), searched.end(), [&](const std::string &input) {
    std::string in = normalizePath(std::filesystem::absolute(input, ec).string());
    return isWithin(path, in) || isWithin(canonicalPath(path), canonicalPath(in));
  });
  if (inside) return named(runs, path, options.inputs);
  // A trace folder or log of its own: its runs alone (without any log, debug directories: one run).
  IndexOptions own = options;
  own.inputs = {path};
  own.profiles.clear();
  own.runLogs.clear();
  std::vector<Run> ownRuns = findRuns(own);
  if (ownRuns.empty()) return NamedRun{"", {path}, true};
  // The folder itself holds them all: its newest run (selectRun takes the folder's logs as the newest's).
  Expected<NamedRun> run = named(ownRuns, path, {path});
  if (run) run->outside = true;
  return run;
}

} // namespace inductor::index
