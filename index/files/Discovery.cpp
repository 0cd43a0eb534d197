#include "index/files/Discovery.h"

#include "index/files/PathResolver.h"
#include "index/files/ReadPolicy.h"
#include "index/files/TritonCache.h"
#include "index/trace/MappedFile.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <sys/stat.h>
#include <system_error>

namespace fs = std::filesystem;

namespace inductor::index {

bool isTraceLogName(const std::string &name) {
  return name.rfind("dedicated_log_torch_trace", 0) == 0 && name.size() > 4 &&
         name.compare(name.size() - 4, 4, ".log") == 0;
}

bool isRunLogCandidateName(const std::string &name) {
  if (isTraceLogName(name)) return false;
  for (std::string_view ext : {".log", ".out", ".txt", ".stdout", ".stderr"})
    if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) return true;
  return false;
}

namespace {

/// Cache file names are `c` + a 51-character base32 hash (torch/_inductor/codecache.py code_hash).
bool isCacheHashName(const std::string &stem) {
  if (stem.size() < 20 || stem[0] != 'c') return false;
  return std::all_of(stem.begin() + 1, stem.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

/// Whether `dir` is inside what Inductor writes (a TORCH_COMPILE_DEBUG folder, a cache entry's `.debug/`):
/// its `.txt` files are IR dumps (ir_post_fusion.txt), never a run log of the printer a user saved.
bool inInductorOutput(const fs::path &dir) {
  for (const fs::path &part : dir) {
    std::string s = part.string();
    if (s == "torch_compile_debug" || s == "torchinductor") return true;
    if (s.size() > 6 && s.ends_with(".debug") && isCacheHashName(s.substr(0, s.size() - 6))) return true;
  }
  return false;
}

/// Pseudo file systems: nothing torch.compile writes lives there, and walking them is slow (and /proc names
/// every process's files).
bool isPseudoFileSystem(const fs::path &p) {
  return p == "/proc" || p == "/sys" || p == "/dev";
}

struct Collector {
  // One file reached by several paths is kept under one: not through a link if possible, else the smallest.
  struct Choice {
    std::string path;
    bool viaLink = false;
  };
  std::map<std::pair<uint64_t, uint64_t>, Choice> byIdentity; // (device, inode) -> chosen path.
  std::set<std::string> dropped;                              // Paths of files chosen under another path.

  /// False when `full` is a second path of a file already chosen under a better one.
  bool choose(const std::string &full, bool viaLink) {
    struct stat st;
    if (::stat(full.c_str(), &st) != 0) return true;
    auto [it, inserted] =
        byIdentity.try_emplace({uint64_t(st.st_dev), uint64_t(st.st_ino)}, Choice{full, viaLink});
    if (inserted) return true;
    Choice &was = it->second;
    if (was.path == full) return true; // The same path again (a file named and also found by a walk).
    bool better = was.viaLink != viaLink ? !viaLink : full < was.path;
    if (!better) {
      dropped.insert(full);
      return false;
    }
    dropped.insert(was.path);
    was = Choice{full, viaLink};
    return true;
  }

  /// Removes the paths of files chosen under another path.
  void dropDuplicates() {
    if (dropped.empty()) return;
    auto erase = [&](std::set<std::string> &set) {
      for (const std::string &d : dropped)
        set.erase(d);
    };
    erase(traceLogs);
    erase(cacheSources);
    erase(wrappersCpp);
    erase(provenance);
    erase(kernelInformation);
    erase(profiles);
    for (auto it = dirs.begin(); it != dirs.end();) {
      CompileFiles &f = it->second;
      if (dropped.count(f.outputCode)) {
        it = dirs.erase(it);
        continue;
      }
      std::erase_if(f.graphs, [&](const std::string &g) { return dropped.count(g) > 0; });
      ++it;
    }
  }

  std::set<std::string> traceLogs;
  // Graph directory -> its files.
  std::map<std::string, CompileFiles> dirs;
  std::set<std::string> cacheSources;
  std::set<std::string> autotuneConfigs;
  std::set<std::string> wrappersCpp;
  std::set<std::string> provenance;
  std::set<std::string> kernelInformation;
  std::set<std::string> profiles;
  std::set<std::string> runLogCandidates;

  void add(const fs::path &p, bool explicitFile, bool viaLink = false) {
    std::string name = p.filename().string();
    std::string dir = p.parent_path().string();
    std::string full = p.string();
    // Known names first; a file the user named explicitly may also be a log or a provenance map by extension.
    bool provenanceName = (name.starts_with("inductor_provenance_tracking_node_mappings") ||
                           name.starts_with("inductor_provenance_tracking_kernel_stack_traces")) &&
                          name.ends_with(".json");
    bool explicitLog = explicitFile && (name.ends_with(".log") || name.ends_with(".txt"));
    bool explicitJson = explicitFile && name.ends_with(".json") && name != "kernel_information.json";
    // The set or slot it goes to; only files of interest are stat'ed for their identity.
    auto keep = [&] { return choose(full, viaLink); };
    if (isProfileName(name) && !provenanceName) {
      if (keep()) profiles.insert(full);
      return;
    }
    if (!explicitFile && isRunLogCandidateName(name) && !inInductorOutput(p.parent_path()))
      runLogCandidates.insert(full);
    if (isTraceLogName(name) || explicitLog) {
      if (keep()) traceLogs.insert(full);
    } else if (name == "output_code.py" || name == "output_code.cpp") {
      if (keep()) dirs[dir].outputCode = full;
    } else if (name == "fx_graph_transformed.py") {
      if (keep()) dirs[dir].graphs.insert(dirs[dir].graphs.begin(), full);
    } else if (name == "fx_graph_readable.py" || name == "fx_graph_runnable.py") {
      if (keep()) dirs[dir].graphs.push_back(full);
    } else if (provenanceName || explicitJson) {
      if (keep()) provenance.insert(full);
    } else if (name == "kernel_information.json") {
      if (keep()) kernelInformation.insert(full);
    } else if (name.ends_with(".wrapper.cpp")) {
      if (keep()) wrappersCpp.insert(full);
    } else if (name.ends_with(".py") && isCacheHashName(name.substr(0, name.size() - 3))) {
      if (keep()) cacheSources.insert(full);
    } else if (name.ends_with(".best_config") && !viaLink) {
      autotuneConfigs.insert(full);
    }
  }
};

} // namespace

DiscoveredInputs discoverInputs(const std::vector<std::string> &inputs, size_t maxFiles,
                                const ReadPolicy *policy, const DirectoryListed &listed, size_t maxDepth) {
  DiscoveredInputs out;
  Collector c;
  size_t seen = 0, skippedLinks = 0;
  bool capReported = false;
  constexpr size_t kLinksReported = 5;
  for (const std::string &input : inputs) {
    std::error_code ec;
    fs::path root = fs::absolute(input, ec);
    root = fs::path(normalizePath(root.string()));
    fs::file_status status = fs::status(root, ec);
    if (fs::is_regular_file(status)) {
      if (listed) listed(root.parent_path().string(), false);
      c.add(root, true);
      continue;
    }
    if (!fs::is_directory(status)) {
      struct stat st;
      if (::stat(root.c_str(), &st) == 0)
        out.errors.push_back(input + ": not read: not a regular file or directory (" +
                             fileKindName(unsigned(st.st_mode)) + ")");
      else
        out.errors.push_back(input + ": no such file or directory");
      continue;
    }
    bool depthReported = false;
    if (listed) listed(root.string(), true);
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code fe;
      if (it->is_symlink(fe)) {
        // Judged by its target; never walked into (the iterator does not follow directory links).
        if (!policy || !policy->allows(it->path().string())) {
          if (++skippedLinks <= kLinksReported)
            out.notes.push_back({it->path().string(),
                                 "not read: a symbolic link that leads out of the workspace "
                                 "folders and trace inputs"});
          continue;
        }
        if (!it->is_regular_file(fe)) continue;
        if (seen >= maxFiles) break;
        ++seen;
        c.add(it->path(), false, /*viaLink=*/true);
        continue;
      }
      if (it->is_directory(fe)) {
        // Directories count toward the cap: a tree of empty ones costs as much to walk as files.
        if (seen >= maxFiles) break;
        ++seen;
        if ((isSkippedDirectory(it->path().filename().string()) && it->path() != root) ||
            isPseudoFileSystem(it->path())) {
          it.disable_recursion_pending();
        } else if (isTritonCacheKeyName(it->path().filename().string())) {
          // A Triton cache entry: told to the listener (TritonCacheCollector), which reads it; nothing in it
          // is an input of discovery.
          it.disable_recursion_pending();
          if (listed) listed(it->path().string(), false);
        } else if (size_t(it.depth()) + 1 >= maxDepth) {
          // Its entries would lie maxDepth levels below the input: not entered (the iterator would keep an
          // open directory and a longer path for every level).
          it.disable_recursion_pending();
          if (!depthReported) {
            depthReported = true;
            out.notes.push_back({it->path().string(), "not looked into: directories more than " +
                                                          std::to_string(maxDepth) + " levels below " +
                                                          input + " are not searched for traces"});
          }
        } else if (listed) {
          listed(it->path().string(), true); // The iterator opens it at the next increment.
        }
        continue;
      }
      if (!it->is_regular_file(fe)) continue;
      if (seen >= maxFiles) break;
      ++seen;
      c.add(it->path(), false);
    }
    if (seen >= maxFiles && !ec && it != end && !capReported) {
      capReported = true;
      out.notes.push_back({input, "stopped looking for traces after " + std::to_string(maxFiles) +
                                      " files and directories: the rest of this directory is not indexed; "
                                      "name the trace directories in traceDirs instead"});
    }
  }
  if (skippedLinks > kLinksReported)
    out.notes.push_back(
        {"", std::to_string(skippedLinks - kLinksReported) +
                 " more symbolic links out of the workspace folders and trace inputs were not read"});
  c.dropDuplicates();

  out.traceLogs.assign(c.traceLogs.begin(), c.traceLogs.end());

  // Provenance files in a graph directory belong to it; others stand alone.
  for (const std::string &p : c.provenance) {
    std::string dir = fs::path(p).parent_path().string();
    std::string name = fs::path(p).filename().string();
    auto it = c.dirs.find(dir);
    if (it != c.dirs.end() && !it->second.outputCode.empty()) {
      if (name.starts_with("inductor_provenance_tracking_node_mappings"))
        it->second.nodeMappings = p;
      else
        it->second.stackTraces = p;
    } else {
      out.standaloneProvenance.push_back(p);
    }
  }

  // Cache wrappers with a `.debug/` directory: the directory's graphs belong to the wrapper, whose own text
  // is the same as the directory's output_code.py (the index merges them by content).
  std::set<std::string> claimedCache;
  for (auto &[dir, files] : c.dirs) {
    if (files.outputCode.empty()) continue;
    files.graphName = fs::path(dir).filename().string();
    auto rank = [](const std::string &g) {
      std::string name = fs::path(g).filename().string();
      return name == "fx_graph_transformed.py" ? 0 : name == "fx_graph_readable.py" ? 1 : 2;
    };
    std::stable_sort(files.graphs.begin(), files.graphs.end(),
                     [&](const std::string &a, const std::string &b) { return rank(a) < rank(b); });
    out.compiles.push_back(files);
  }
  for (const std::string &w : c.wrappersCpp) {
    CompileFiles files;
    files.outputCode = w;
    std::string info = (fs::path(w).parent_path() / "kernel_information.json").string();
    if (c.kernelInformation.count(info)) files.kernelInformation = info;
    out.compiles.push_back(files);
  }
  for (const std::string &k : c.kernelInformation) {
    bool used = std::any_of(out.compiles.begin(), out.compiles.end(),
                            [&](const CompileFiles &f) { return f.kernelInformation == k; });
    if (!used) out.standaloneProvenance.push_back(k);
  }
  out.cacheSources.assign(c.cacheSources.begin(), c.cacheSources.end());
  out.autotuneConfigs.assign(c.autotuneConfigs.begin(), c.autotuneConfigs.end());
  out.profiles.assign(c.profiles.begin(), c.profiles.end());
  out.runLogCandidates.assign(c.runLogCandidates.begin(), c.runLogCandidates.end());
  return out;
}

bool isProfileName(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (n.ends_with(".gz")) n.resize(n.size() - 3);
  if (!n.ends_with(".json") || n.starts_with("inductor_provenance")) return false;
  return n.find("trace") != std::string::npos || n.find("profile") != std::string::npos;
}

RuntimeInputs discoverRuntimeInputs(const std::vector<std::string> &profiles,
                                    const std::vector<std::string> &runLogs, const DiscoveredInputs &found,
                                    const std::vector<std::string> &traceLogs, const ReadPolicy &policy) {
  RuntimeInputs out;
  std::set<std::string> profileSet, runLogSet;
  auto addProfile = [&](const std::string &p, bool isExplicit) {
    std::string n = normalizePath(fs::absolute(p).string());
    if (isExplicit) out.explicitProfiles.insert(n);
    if (profileSet.insert(n).second) out.profiles.push_back(n);
  };
  auto addRunLog = [&](const std::string &p, bool isExplicit) {
    std::string n = normalizePath(fs::absolute(p).string());
    if (isExplicit) out.explicitRunLogs.insert(n);
    if (runLogSet.insert(n).second) out.runLogs.push_back(n);
  };
  auto expand = [&](const std::string &p, bool profile) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      // A folder named in the settings: every JSON file in it may be a profile (whatever its name; reading
      // tells), and every file with a log-like name a run log.
      fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
      for (size_t seen = 0; !ec && it != end && seen < 20000; it.increment(ec), ++seen) {
        std::error_code fe;
        if (it->is_directory(fe)) {
          if (it.depth() >= 3 || isSkippedDirectory(it->path().filename().string()))
            it.disable_recursion_pending();
          continue;
        }
        if (!it->is_regular_file(fe)) continue;
        std::string name = it->path().filename().string();
        if (profile && (name.ends_with(".json") || name.ends_with(".json.gz")))
          addProfile(it->path().string(), true);
        else if (!profile && isRunLogCandidateName(name))
          addRunLog(it->path().string(), false);
      }
      return;
    }
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) {
      out.problems.push_back({p, profile ? "profile not found" : "run log not found"});
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      // A FIFO would block the reader for ever, a device is no profile: reported, never opened.
      out.problems.push_back({p, std::string(profile ? "profile" : "run log") +
                                     " not read: not a regular file (" + fileKindName(unsigned(st.st_mode)) +
                                     ")"});
      return;
    }
    profile ? addProfile(p, true) : addRunLog(p, true);
  };
  for (const std::string &p : profiles)
    expand(p, true);
  for (const std::string &p : runLogs)
    expand(p, false);
  for (const std::string &p : found.profiles)
    addProfile(p, false);
  for (const std::string &p : found.runLogCandidates)
    addRunLog(p, false);
  std::set<std::string> besideDirs;
  for (const std::string &log : traceLogs) {
    fs::path dir = fs::path(log).parent_path();
    besideDirs.insert(dir.string());
    if (dir.has_parent_path()) besideDirs.insert(dir.parent_path().string());
  }
  for (const std::string &dir : besideDirs) {
    if (!policy.allows(dir)) continue;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    size_t seen = 0;
    for (; !ec && it != end && seen < 5000; it.increment(ec), ++seen) {
      std::error_code fe;
      if (it->is_directory(fe)) {
        if (it.depth() >= 1 || isSkippedDirectory(it->path().filename().string()))
          it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(fe)) continue;
      std::string name = it->path().filename().string();
      if (isProfileName(name))
        addProfile(it->path().string(), false);
      else if (isRunLogCandidateName(name))
        addRunLog(it->path().string(), false);
    }
  }
  return out;
}

} // namespace inductor::index
