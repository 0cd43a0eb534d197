#include "index/Discovery.h"

#include "index/PathResolver.h"
#include "index/Profile.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
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

bool startsWith(const std::string &s, std::string_view p) {
  return s.rfind(p, 0) == 0;
}
bool endsWith(const std::string &s, std::string_view p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

/// Cache file names are `c` + a 51-character base32 hash (torch/_inductor/codecache.py code_hash).
bool isCacheHashName(const std::string &stem) {
  if (stem.size() < 20 || stem[0] != 'c') return false;
  return std::all_of(stem.begin() + 1, stem.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

struct Collector {
  std::set<std::string> traceLogs;
  // Graph directory -> its files.
  std::map<std::string, CompileFiles> dirs;
  std::set<std::string> cacheSources;
  std::set<std::string> wrappersCpp;
  std::set<std::string> provenance;
  std::set<std::string> kernelInformation;
  std::set<std::string> profiles;
  std::set<std::string> runLogCandidates;

  void add(const fs::path &p, bool explicitFile) {
    std::string name = p.filename().string();
    std::string dir = p.parent_path().string();
    std::string full = p.string();
    // Known names first; a file the user named explicitly may also be a log or a provenance map by extension.
    bool provenanceName = (startsWith(name, "inductor_provenance_tracking_node_mappings") ||
                           startsWith(name, "inductor_provenance_tracking_kernel_stack_traces")) &&
                          endsWith(name, ".json");
    bool explicitLog = explicitFile && (endsWith(name, ".log") || endsWith(name, ".txt"));
    bool explicitJson = explicitFile && endsWith(name, ".json") && name != "kernel_information.json";
    if (isProfileName(name) && !provenanceName) {
      profiles.insert(full);
      return;
    }
    if (!explicitFile && isRunLogCandidateName(name)) runLogCandidates.insert(full);
    if (isTraceLogName(name) || explicitLog) {
      traceLogs.insert(full);
    } else if (name == "output_code.py" || name == "output_code.cpp") {
      dirs[dir].outputCode = full;
    } else if (name == "fx_graph_transformed.py") {
      dirs[dir].graphs.insert(dirs[dir].graphs.begin(), full);
    } else if (name == "fx_graph_readable.py") {
      dirs[dir].graphs.push_back(full);
    } else if (provenanceName || explicitJson) {
      provenance.insert(full);
    } else if (name == "kernel_information.json") {
      kernelInformation.insert(full);
    } else if (endsWith(name, ".wrapper.cpp")) {
      wrappersCpp.insert(full);
    } else if (endsWith(name, ".py") && isCacheHashName(name.substr(0, name.size() - 3))) {
      cacheSources.insert(full);
    }
  }
};

} // namespace

DiscoveredInputs discoverInputs(const std::vector<std::string> &inputs, size_t maxFiles) {
  DiscoveredInputs out;
  Collector c;
  size_t seen = 0;
  for (const std::string &input : inputs) {
    std::error_code ec;
    fs::path root = fs::absolute(input, ec);
    root = fs::path(normalizePath(root.string()));
    if (fs::is_regular_file(root, ec)) {
      c.add(root, true);
      continue;
    }
    if (!fs::is_directory(root, ec)) {
      out.errors.push_back(input + ": no such file or directory");
      continue;
    }
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end && seen < maxFiles; it.increment(ec)) {
      std::error_code fe;
      if (it->is_directory(fe)) {
        if (isSkippedDirectory(it->path().filename().string()) && it->path() != root)
          it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(fe)) continue;
      ++seen;
      c.add(it->path(), false);
    }
  }

  out.traceLogs.assign(c.traceLogs.begin(), c.traceLogs.end());

  // Provenance files in a graph directory belong to it; others stand alone.
  for (const std::string &p : c.provenance) {
    std::string dir = fs::path(p).parent_path().string();
    std::string name = fs::path(p).filename().string();
    auto it = c.dirs.find(dir);
    if (it != c.dirs.end() && !it->second.outputCode.empty()) {
      if (startsWith(name, "inductor_provenance_tracking_node_mappings"))
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
  out.profiles.assign(c.profiles.begin(), c.profiles.end());
  out.runLogCandidates.assign(c.runLogCandidates.begin(), c.runLogCandidates.end());
  return out;
}

} // namespace inductor::index
