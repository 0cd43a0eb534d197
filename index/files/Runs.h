// index/files/Runs.h: the runs of a trace folder. A run is the TORCH_TRACE logs of one job (one log per rank;
// torch/_logging/_internal.py opens `dedicated_log_torch_trace[_rank_N]_<random>.log` per process), with what
// that job left beside them: its TORCH_COMPILE_DEBUG `run_<time>-pid_<pid>` directories
// (torch/_inductor/debug.py, torch/_dynamo/utils.py get_debug_dir), its profiler Chrome traces and its
// printer run logs. Users rerun a script into the same TORCH_TRACE folder: an index is of one run, never two.
//
// What a log says of itself (readLogTimes) is read from its first and last 64 KB only (a log may be GBs):
//  - the glog prefix of its first and last records, `V1127 02:31:47.595000 2366 file.py:2126] `: local time
//    without a year, and the pid;
//  - the first `chromium_event` payload's `"ts"` in the head (epoch microseconds, UTC; dynamo_timed writes
//    it): the year, and the offset of the prefix's local time from UTC (rounded to 15 minutes, the finest
//    time-zone step), which turns both prefixes into UTC. Without one, the year is the file's mtime's (the
//    year before when the prefix's month is later than the mtime's) and the prefix is taken as UTC;
//  - the rank: the file name's `_rank_N` (what torch writes), else a `"rank": N` of the head's envelopes,
//    each read as the index reads them (TraceLog::rankFromFileName, an envelope's int), so that the runs and
//    the compiles of a log never disagree on its rank.
//
// Grouping rule (groupLogs), on the logs sorted by start time: a log joins the newest run formed so far that
//  (1) has ranks, all different from the log's (two logs of one rank are two processes, so two jobs: a log
//      without rank is a single-process job and is always a run of its own), and
//  (2) whose time span [first start, last end] the log starts in, or at most kRankWindowUs (60 s) after.
// Why (2): the ranks of one job meet at its first collective (init_process_group's store barrier, then the
// step's all_reduce) before any of them compiles a DDP/FSDP step, so their logs start seconds apart and
// overlap (fixtures: 4 ranks start within 3.1 s; a rank's log lasting 76 s beside others of 6 s). A rerun of
// the same job starts after the previous job ended and repeats its ranks: (1) keeps it apart however soon it
// starts. The window only joins a rank whose log started after another rank's had already ended (a rank that
// compiled late), which a minute covers; a different job of other ranks started within that minute of a
// job's end is the one case it would join, and it cannot be told from a late rank by the logs alone.
// A log whose times cannot be read (its first records do not parse: it holds nothing to answer from, only
// problems to report) joins the newest run; without any timed run, such logs are one run, "unknown 1".
//
// Attribution (attributeInputs), only when there are several runs (one run gets everything, as before):
//  - a TORCH_COMPILE_DEBUG `run_YYYY_MM_DD_HH_MM_SS_us-pid_P` directory (local time, like the glog prefix)
//    goes to the run with a log of pid P (pids are reused across containers: the one whose span is nearest
//    its time), else to the run whose span is nearest its time, within kRankWindowUs (two spans holding it:
//    none), else to none;
//  - a profiler Chrome trace, by the pid of its CPU events (Kineto writes the process's pid on `cpu_op`,
//    `python_function`, `user_annotation`, `cuda_runtime` events; device rows use device ids), then by time
//    (`baseTimeNanoseconds` + its first event's `ts`: the newest run started before it), else none;
//  - a printer run log (the process's stdout/stderr), by the pids of the glog lines and `-pid_P` paths it
//    holds (torch's warnings print both), else by its mtime: the run whose span is nearest, within 10
//    minutes, else none: a run log holds no run id, and a copied folder's mtimes say nothing;
//  - Inductor cache files (`c<hash>.py`, `.debug/`) are content-addressed and shared by runs: they are no
//    run's here; the build keeps one for a run only when that run's records name it or its text equals that
//    run's output code (IndexBuilder).
// What goes to no run is listed in `unattributed`, for the notices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

class ReadPolicy;
struct DiscoveredInputs;
struct RuntimeInputs;

/// One run: the logs of one job and what it left beside them. Paths are absolute and normalized, as discovery
/// gives them.
struct Run {
  /// Readable and stable: its start time in UTC, "2026-11-27 02:31:04" ("unknown N" when no time could be
  /// read); ".2", ".3" are added to the second and later runs starting in the same second.
  std::string id;
  int64_t startUs = 0;                ///< Start, microseconds since the epoch (UTC); 0 unknown.
  int64_t endUs = 0;                  ///< Time of its last record, same units; 0 unknown.
  std::vector<int> ranks;             ///< Sorted; empty: a single-process run without rank.
  std::vector<std::string> logs;      ///< TORCH_TRACE logs, one per rank (by rank, then path).
  std::vector<std::string> debugDirs; ///< TORCH_COMPILE_DEBUG run_* directories attributed to it.
  std::vector<std::string> profiles;  ///< Profiler Chrome traces attributed to it.
  std::vector<std::string> runLogs;   ///< Printer run logs attributed to it.
  std::vector<int> pids;              ///< Pids of its logs, sorted, each once.
  /// UTC minus the local time of its logs' glog prefixes, microseconds (0 when unknown: prefixes taken as
  /// UTC): turns the local times of debug directory names into UTC.
  int64_t localOffsetUs = 0;
};

/// What the first and last records of one log say (see the file comment).
struct LogTimes {
  std::string path;
  std::optional<int> rank;
  int pid = 0;         ///< Of the first record; 0 unknown.
  int64_t startUs = 0; ///< UTC µs; 0 unknown.
  int64_t endUs = 0;   ///< UTC µs; 0 unknown.
  int64_t localOffsetUs = 0;
};

/// Start of a rank's log after another rank's log of the same job ended, at most (see the file comment).
constexpr int64_t kRankWindowUs = 60'000'000;

/// Reads the head and tail of the log at `path` (if `policy` allows; otherwise, and for a file that cannot be
/// read, only the name's rank is known). Never throws.
LogTimes readLogTimes(const std::string &path, const ReadPolicy &policy);

/// The grouping rule of the file comment over logs already read. Runs oldest first; ids are set.
std::vector<Run> groupLogs(std::vector<LogTimes> logs);

/// What attribution left to no run (several runs only): {path, why}.
struct Unattributed {
  std::string path;
  std::string why;
};

/// Attributes debug directories (from `found.compiles`), `profiles` and `runLogs` to `runs` (file comment).
/// With one run, everything is its own. Returns what went to none.
std::vector<Unattributed> attributeInputs(std::vector<Run> &runs, const DiscoveredInputs &found,
                                          const std::vector<std::string> &profiles,
                                          const std::vector<std::string> &runLogs, const ReadPolicy &policy);

/// Runs oldest first: the logs of `found` read (readLogTimes), grouped (groupLogs) and the runtime inputs and
/// debug directories attributed (attributeInputs). `unattributed`, if given, receives what went to none.
std::vector<Run> groupRuns(const DiscoveredInputs &found, const RuntimeInputs &runtime,
                           const ReadPolicy &policy, std::vector<Unattributed> *unattributed = nullptr);

/// The run `selector` names among `runs` (oldest first): "latest" (or empty), "previous" (the one before the
/// latest), a run id, a path of one of its logs, debug directories, profiles or run logs (or a file or
/// directory inside one of them), or a folder holding its logs (`traces/run1` of `traces/`: the newest run
/// with a log under it). A path is absolute (a relative one is taken from the current directory). nullopt
/// when none matches (no runs, "previous" of a single run, an unknown id); noRunMatches says why.
std::optional<size_t> selectRun(const std::vector<Run> &runs, std::string_view selector);

/// The one wording of a run name that matches none of `runs` (the `baseline` setting,
/// inductor.selectBaseline, explain --baseline): `"traces/x" names no run: ...; 2 runs found: 2026-11-27
/// 02:31:04, ...`.
std::string noRunMatches(std::string_view name, const std::vector<Run> &runs);

/// The TORCH_COMPILE_DEBUG run directory (`.../run_<time>-pid_<pid>`) `path` is in or is, else "".
std::string debugRunDirOf(std::string_view path);

/// The pid P of a TORCH_COMPILE_DEBUG run directory `dir` (`.../run_<time>-pid_P`), nullopt when its name is
/// not one (debugRunDirOf gives the directory of a path inside it).
std::optional<int> debugRunDirPid(std::string_view dir);

/// "2026-11-27 02:31:04" for microseconds since the epoch (UTC).
std::string formatUtcSeconds(int64_t us);

} // namespace inductor::index
