// Step 5b of the build pipeline (see IndexBuilder.h): the runtime inputs (Runtime.h). This file finds them
// and drives the two halves: BuildProfiles.cpp joins profiler traces to launches and sums times per launch,
// compile and user line; BuildRunLogs.cpp maps the printer's run logs to launches and turns the first NaN/Inf
// into diagnostics. Files are read only where the ReadPolicy allows.
#include "index/build/IndexBuilder.h"
#include "index/files/ReadPolicy.h"
#include "index/runtime/Runtime.h"
#include "index/trace/JsonScan.h"
#include "index/trace/MappedFile.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace inductor::index {

namespace detail {

std::string fxGraphCacheKey(std::string_view text) {
  // The payload also holds the cache's whole details (often most of its bytes): walked, not parsed into a
  // DOM.
  std::string key;
  bool ok = json_scan::walkObject(text, [&](std::string_view name, std::string_view raw) {
    std::string scratch;
    if (name != "key") return;
    auto value = json_scan::string(raw, scratch);
    key = value ? std::string(*value) : std::string();
  });
  return ok ? key : std::string();
}

std::string runtimeBaseName(const std::string &path) {
  return fs::path(path).filename().string();
}

} // namespace detail

using namespace detail;

void IndexBuilder::buildRuntime(const DiscoveredInputs &inputs) {
  // Files: named by the options, found by discovery, and beside every trace log (its directory and the one
  // above, two levels down: `<case>/trace/*.log` has `<case>/profile/*.json.gz` and `<case>/run.log`).
  std::vector<std::string> policyRoots = options_.roots;
  policyRoots.insert(policyRoots.end(), options_.inputs.begin(), options_.inputs.end());
  policyRoots.insert(policyRoots.end(), options_.profiles.begin(), options_.profiles.end());
  policyRoots.insert(policyRoots.end(), options_.runLogs.begin(), options_.runLogs.end());
  for (const PathMapping &m : options_.pathMappings)
    policyRoots.push_back(m.to);
  ReadPolicy policy(policyRoots);

  RuntimeFiles files;
  std::set<std::string> profileSet, runLogSet;
  auto addProfile = [&](const std::string &p, bool isExplicit) {
    std::string n = normalizePath(fs::absolute(p).string());
    if (isExplicit) files.explicitProfiles.insert(n);
    if (profileSet.insert(n).second) files.profiles.push_back(n);
  };
  auto addRunLog = [&](const std::string &p, bool isExplicit) {
    std::string n = normalizePath(fs::absolute(p).string());
    if (isExplicit) files.explicitRunLogs.insert(n);
    if (runLogSet.insert(n).second) files.runLogs.push_back(n);
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
      diag(p, 0, profile ? "profile not found" : "run log not found");
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      // A FIFO would block the reader for ever, a device is no profile: reported, never opened.
      diag(p, 0,
           std::string(profile ? "profile" : "run log") + " not read: not a regular file (" +
               fileKindName(unsigned(st.st_mode)) + ")");
      return;
    }
    profile ? addProfile(p, true) : addRunLog(p, true);
  };
  for (const std::string &p : options_.profiles)
    expand(p, true);
  for (const std::string &p : options_.runLogs)
    expand(p, false);
  for (const std::string &p : inputs.profiles)
    addProfile(p, false);
  for (const std::string &p : inputs.runLogCandidates)
    addRunLog(p, false);
  std::set<std::string> besideDirs;
  for (const auto &log : tables_->logs) {
    fs::path dir = fs::path(log->path()).parent_path();
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

  auto data = std::make_shared<RuntimeData>();
  buildProfiles(files, policy, *data);
  if (cancelled()) return;
  buildRunLogs(files, policy, *data);
  if (cancelled()) return;
  index_->runtime_ = std::move(data);
}

} // namespace inductor::index
