// index/files/PathResolver.h: maps paths recorded in a trace to files on this machine.
//
// Traces are usually made somewhere else (a cluster job, a container), so the paths inside them — user source
// files in stack traces and `# File:` comments, output-code and kernel paths in the cache — rarely exist
// locally. Resolution order for a recorded path P:
//   1. the user's pathMappings, longest `from` prefix first: P = from + rest -> to + rest (used even when the
//      result does not exist, because the user said so);
//   2. for a file of an installed package, P = `.../site-packages/<rest>` (or `dist-packages`, the last such
//      component): `<rest>` under each import root of the user's Python environment (its sys.path, in order),
//      the first that exists. The version directory (`python3.12` on the cluster, `python3.11` here) plays no
//      part, and the environment the user works in wins over a copy that happens to exist at P;
//   3. P itself, when it exists;
//   4. the longest path-suffix match against the files under the search roots (workspace folders and trace
//      inputs): `/tmp/work/mlp_train/model.py` finds `<root>/mlp_train/model.py` rather than
//      `<root>/model.py` when both exist. Ties between equally long suffixes pick the shortest candidate
//      path, then the lexicographically smallest, so answers are deterministic;
//   5. the longest suffix of P, at least two components (`transformers/models/bert/modeling_bert.py`, ...,
//      `bert/modeling_bert.py`), under an import root: a library that ran from a source checkout or an
//      editable install on the cluster and is installed here;
//   6. otherwise unresolved: the recorded path is kept and flagged as missing.
// A resolved file is not necessarily the text the trace saw (another version of a library, an edited model):
// callers check origins against their recorded text (Relocation.h).
//
// Only steps 2 and 5 read the import roots, and only for a path that steps 1 to 4 do not settle: they may be
// given as a future (the interpreter is asked beside the log scan), which resolve() waits for the first time
// a path needs it. usedImportRoots() says whether any answer depended on them (their value, empty or not).
//
// Thread-safety: resolve() is safe to call concurrently after construction (lookups are memoized under a
// mutex; waiting for the import roots holds it, so a resolution never sees them half-set). The roots are
// walked once, lazily, on the first suffix lookup, visiting at most `maxFiles` files and skipping hidden
// directories, node_modules, __pycache__ and build trees.
#pragma once

#include <cstddef>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace inductor::index {

/// One `pathMappings` entry of the initialization options: a prefix rewrite.
struct PathMapping {
  std::string from;
  std::string to;
};

/// The outcome of resolving one recorded path.
struct ResolvedPath {
  std::string path; ///< Local absolute path, or the recorded path when unresolved.
  bool exists = false;
};

class PathResolver {
public:
  /// `roots`: searched for suffix matches (step 4). `importRoots`: the directories of the Python
  /// environment's sys.path (steps 2 and 5), in order; entries that are not absolute are ignored.
  PathResolver(std::vector<PathMapping> mappings, std::vector<std::string> roots,
               const std::vector<std::string> &importRoots = {}, size_t maxFiles = 200000);

  /// Import roots that come later, in place of those given to the constructor (see the file comment):
  /// resolve() blocks on `later` for the first path that needs them. Call before the resolver is shared.
  void setImportRootsLater(std::shared_future<std::vector<std::string>> later,
                           std::function<void()> beforeWait = {});

  /// See the file comment. Never fails; an unresolvable path comes back unchanged with exists == false.
  ResolvedPath resolve(std::string_view recordedPath) const;

  /// Number of files the suffix index holds (after the first suffix lookup), for logs.
  size_t indexedFiles() const;

  /// Whether any resolve() so far consulted the import roots (steps 2 or 5), so that its answer may change
  /// with them. When false, every answer is the same whatever the import roots are.
  bool usedImportRoots() const;

private:
  void buildSuffixIndex() const;
  /// One usable import root and the names directly in it, listed on first use: a recorded path's rest is
  /// looked for under a root only when its first component is one of them, so that a path of no package
  /// (a kernel in a cluster's cache directory) costs no stat per suffix and root.
  struct ImportRoot {
    std::string path;
    mutable bool listed = false;
    mutable bool listable = false; ///< When not, every rest is looked for.
    mutable std::unordered_set<std::string> names;
  };
  /// The absolute entries of sys.path, normalized: the others name nothing on this machine.
  static std::vector<ImportRoot> usableImportRoots(const std::vector<std::string> &importRoots);
  /// The import roots, waited for on first use (under mutex_). Marks them used.
  const std::vector<ImportRoot> &importRoots() const;
  /// The first import root holding `rest` (relative, normalized), as a normalized path; empty when none.
  std::string underImportRoots(std::string_view rest) const;

  std::vector<PathMapping> mappings_;
  std::vector<std::string> roots_;
  mutable std::vector<ImportRoot> importRoots_;
  mutable std::shared_future<std::vector<std::string>> importRootsLater_; ///< Valid until waited for.
  std::function<void()> beforeWait_;
  mutable bool usedImportRoots_ = false;
  size_t maxFiles_;
  mutable std::mutex mutex_;
  mutable bool indexed_ = false;
  /// Basename -> local absolute paths with that basename.
  mutable std::unordered_map<std::string, std::vector<std::string>> byBasename_;
  mutable std::unordered_map<std::string, ResolvedPath> memo_;
};

/// Directories that walks of workspaces and trace inputs skip (by name): hidden ones, node_modules,
/// __pycache__ and build trees (`build`, `build-*`). Shared by the suffix index here and by Discovery.
bool isSkippedDirectory(std::string_view name);

/// For a file of an installed package, `.../site-packages/<rest>` or `.../dist-packages/<rest>` (backslashes
/// read as slashes; the last such component): `<rest>`. Empty otherwise.
std::string packageRelativePath(std::string_view recordedPath);

/// Normalizes `path` lexically: collapses `//`, `/./`, `dir/..`; keeps it absolute when it was.
std::string normalizePath(std::string_view path);

} // namespace inductor::index
