// index/files/Discovery.h: finds the inputs of an index under the directories and files a user names.
//
// Recognized by name (nothing is opened here):
//  - TORCH_TRACE logs: `dedicated_log_torch_trace[_rank_N]_*.log` (torch/_logging/_internal.py); a file named
//    explicitly is taken as a log whatever its name, unless it is one of the kinds below.
//  - TORCH_COMPILE_DEBUG graph directories `torch_compile_debug/run_*/torchinductor/<graph>/` and the cache's
//    `c<hash>.debug/` directories (torch/_inductor/debug.py DebugFormatter): `output_code.py`/`.cpp`,
//    `fx_graph_readable.py`, `fx_graph_transformed.py`, `fx_graph_runnable.py` (the graph of
//    fx_graph_readable.py as a repro script, without `# File:` comments),
//    `inductor_provenance_tracking_node_mappings*.json`,
//    `inductor_provenance_tracking_kernel_stack_traces*.json`.
//  - Inductor cache directories (torch/_inductor/codecache.py): `c<hash>.py` (wrapper code or a Triton
//  kernel;
//    told apart later by content), `*.wrapper.cpp` (AOTInductor) with its `kernel_information.json`.
//  - Standalone provenance maps: the JSON names above anywhere.
//  - Runtime inputs (index/runtime/Runtime.h): torch.profiler Chrome traces by name (`*.pt.trace.json[.gz]`,
//    `*trace*.json[.gz]`, `*profile*.json[.gz]`; isProfileName below), and candidate run logs of the
//    debug printer (`*.log`, `*.out`, `*.txt`, `*.stdout`, `*.stderr` that are not TORCH_TRACE logs), which
//    the index opens to check.
// Files from one graph directory (a TORCH_COMPILE_DEBUG graph directory, or a cache `c<hash>.debug/`
// directory) are grouped into a `CompileFiles` unit, the file-based counterpart of a compile in a log. A
// cache wrapper `c<hash>.py` is listed in `cacheSources`; the index recognises it as a copy of its
// `.debug/output_code.py` (and of the log's payload) by content.
//
// Walks skip hidden directories, node_modules, __pycache__, build trees and the pseudo file systems /proc,
// /sys and /dev, and stop after `maxFiles` entries, directories included (reported in `notes`: a workspace of
// `/` says so instead of indexing an arbitrary part of the disk; a tree of empty directories costs as much to
// walk as one of files). They go at most `maxDepth` levels below an input (kMaxWalkDepth, 64: torch.compile
// writes 6 levels below a trace or debug directory); deeper directories are not entered, and that is reported
// in `notes` once per input. A walk keeps one open directory and one path per level, so the cap bounds its
// memory (6,000 nested directories took 3.8 GB without it). Only regular files are taken: FIFOs, sockets and
// devices are never opened (an input that is one is reported in `errors`).
//
// What may be read (see ReadPolicy.h): a named input is a root, read whatever it is. Inside a directory, a
// symbolic link is judged by its target: a link to a file inside the policy's roots is taken, anything else
// (a link out of the roots, `output_code.py -> /etc/passwd`) is skipped and reported in `notes`; links to
// directories are never walked into (their targets inside the roots are walked where they are). One file
// reached by several paths (overlapping inputs, `latest.log -> dedicated_log_...log`) is listed once: by the
// path that is not a link, else the smallest.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace inductor::index {

class ReadPolicy;

/// The files of one compiled graph found outside a log.
struct CompileFiles {
  std::string outputCode; ///< output_code.py/.cpp, a wrapper c<hash>.py, or a *.wrapper.cpp.
  std::string graphName;  ///< The graph directory's name ("model__0_forward_1.0"), if any.
  /// fx_graph_transformed.py (post-grad) first, then fx_graph_readable.py and fx_graph_runnable.py.
  std::vector<std::string> graphs;
  std::string nodeMappings;      ///< inductor_provenance_tracking_node_mappings*.json
  std::string stackTraces;       ///< inductor_provenance_tracking_kernel_stack_traces*.json
  std::string kernelInformation; ///< AOTI kernel_information.json
};

struct DiscoveredInputs {
  std::vector<std::string> traceLogs;
  std::vector<CompileFiles> compiles;
  /// Cache `c<hash>.py` files not known to be wrappers: Triton kernel files or wrappers without a `.debug/`
  /// directory; the index reads their first lines to tell.
  std::vector<std::string> cacheSources;
  /// The autotuner's choices beside kernel files, `<cache>/<xy>/<hash>.best_config`
  /// (torch/_inductor/runtime/autotune_cache.py), as the walk found them (by name, unread).
  std::vector<std::string> autotuneConfigs;
  /// Provenance JSON found outside any graph directory.
  std::vector<std::string> standaloneProvenance;
  std::vector<std::string> errors; ///< Inputs that do not exist or cannot be read.
  /// Profiler Chrome traces (by name; a file named explicitly with such a name is one too).
  std::vector<std::string> profiles;
  /// Files that may be run logs of the debug printer (by name only: the index checks their content).
  std::vector<std::string> runLogCandidates;
  /// What was left out on purpose, for diagnostics: links out of the roots, the file cap. {path, message}.
  struct Note {
    std::string path;
    std::string message;
  };
  std::vector<Note> notes;
};

/// True for names a run log may have: `run.log`, `*.out`, `*.txt`, `*.stdout`, `*.stderr`, `*.log` that is
/// not a TORCH_TRACE log.
bool isRunLogCandidateName(const std::string &fileName);

/// Told each directory whose entries discovery is about to read, before it reads them (from discovery's
/// thread): every input directory and each directory walked below it (`recursive` true), and the directory
/// of an input that is a file (false). A file created there after the call is seen by a watch the callee
/// started in it; one created before, discovery lists: a watcher that starts watching here misses nothing.
/// A Triton cache entry (isTritonCacheKeyName) is told but not walked into (false): the index reads it.
using DirectoryListed = std::function<void(const std::string &directory, bool recursive)>;

/// Levels of directories a walk of the inputs or roots goes below each of them, at most (see the file
/// comment).
constexpr size_t kMaxWalkDepth = 64;

/// See the file comment. Paths in the result are absolute and normalized, each listed once. `maxFiles` counts
/// files and directories visited; `maxDepth` is the number of levels below an input that are visited.
/// `policy` judges symbolic links found inside directories; null takes none of them (a caller without a
/// policy reads nothing through links). `listed` may be empty.
DiscoveredInputs discoverInputs(const std::vector<std::string> &inputs, size_t maxFiles = 200000,
                                const ReadPolicy *policy = nullptr, const DirectoryListed &listed = {},
                                size_t maxDepth = kMaxWalkDepth);

/// The runtime inputs of a build (index/runtime/Runtime.h): torch.profiler Chrome traces and candidate run
/// logs of the intermediate value debug printer. Paths are absolute and normalized, each listed once, in the
/// order found.
struct RuntimeInputs {
  std::vector<std::string> profiles, runLogs;
  /// Those named by the settings (a profile that fails to read is then reported; a found one is only
  /// skipped). Files in a folder named as `profiles` count as named; files in a folder named as `runLogs` do
  /// not.
  std::set<std::string> explicitProfiles, explicitRunLogs;
  /// Named inputs that were not taken ("profile not found", "run log not read: not a regular file (FIFO)").
  std::vector<DiscoveredInputs::Note> problems;
};

/// Finds the runtime inputs, in this order: the `profiles` and `runLogs` the settings name (files, or folders
/// walked 3 levels deep and 20,000 entries at most: every `*.json[.gz]` in a profiles folder, every
/// isRunLogCandidateName in a run-logs folder; anything that is not a regular file is reported, never
/// opened), those discovery found under the inputs (`found.profiles`, `found.runLogCandidates`), then those
/// beside each of `traceLogs` (in its directory and the one above, and one level below them, 5,000 entries
/// per directory: `<case>/trace/*.log` has `<case>/profile/*.json.gz` and `<case>/run.log`), by name
/// (isProfileName, isRunLogCandidateName), in directories `policy` allows only. Skips what discoverInputs
/// skips (isSkippedDirectory). Nothing is opened: reading tells what a candidate is.
RuntimeInputs discoverRuntimeInputs(const std::vector<std::string> &profiles,
                                    const std::vector<std::string> &runLogs, const DiscoveredInputs &found,
                                    const std::vector<std::string> &traceLogs, const ReadPolicy &policy);

/// True for names like `dedicated_log_torch_trace_rank_0_abc.log`.
bool isTraceLogName(const std::string &fileName);

/// Whether a file name is one torch.profiler writes or users commonly give: `*.pt.trace.json[.gz]`,
/// `*trace*.json[.gz]`, `*profile*.json[.gz]`.
bool isProfileName(std::string_view fileName);

} // namespace inductor::index
