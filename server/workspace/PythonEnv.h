// server/workspace/PythonEnv.h: the user's Python environment: which interpreter, and the directories it
// imports from.
//
// Model code often lives in an installed package (transformers, timm, torchvision), and a trace records the
// cluster's paths to it (`/opt/conda/lib/python3.12/site-packages/transformers/...`). The user's own
// environment has the same packages somewhere else; its interpreter says where (sys.path), and those import
// roots resolve recorded package paths (index/files/PathResolver.h) and may be read
// (index/files/ReadPolicy.h).
//
// Nothing found in a workspace folder, a trace folder or any other input is ever run: a trace copied from
// elsewhere, or a cloned repository, can hold an `env/bin/python` that is a script. The environment is known
// in two ways, and both are combined:
//   - Read, never run (findStaticEnvironments): a virtual environment in a workspace folder (`.venv`, `venv`,
//     `env` holding `pyvenv.cfg`, what marks a venv), and the user's activated environment (`$VIRTUAL_ENV`,
//     then `$CONDA_PREFIX`: set by the user's own shell, not by a workspace; read statically too, since its
//     interpreter, when activated, is normally first on PATH anyway and asked below). Their import roots are
//     `lib/python3.*/site-packages`, `lib64/python3.*/site-packages` and, on Windows, `Lib/site-packages`,
//     plus the directories named by the `.pth` files in them (staticImportRoots; a workspace venv's only
//     inside its workspace folder): plain path lines,
//     relative to the site directory as Python's site.py takes them; a line starting with `import` is code
//     and is ignored, never run; at most kMaxPthFiles files of kMaxPthBytes each and kMaxPthRoots
//     directories per environment are read.
//   - Asked, by running one interpreter (findPythonInterpreter), first found wins:
//       1. the one the user named: the `pythonPath` setting (the VS Code extension passes the Python
//          extension's selected interpreter, and passes none in an untrusted workspace) or explain's
//          `--python`; a bare name (`python3.11`) is looked up on PATH as below;
//       2. `python3` on `$PATH`, skipping relative entries (`.`, an empty entry) and entries inside the
//          workspace folders or trace inputs (`excluded`): a workspace cannot plant a `python3` for us. A
//          venv activated from inside the workspace is then skipped too; it is read statically instead.
//     The server's `initializationOptions` `"trusted": false` runs none at all (server/lsp/Lifecycle.cpp).
// The interpreter is asked once for sys.path by a subprocess: argv only (no shell), an absolute path only,
// stdin from /dev/null, run from `/` (so that nothing in the workspace shadows the standard library), in a
// process group of its own, with a timeout; the group is killed when it runs past it or the caller cancels.
// A failure is an error string for the log and the status, never fatal.
//
// Thread-safety: free functions without shared state. queryImportRoots blocks the calling thread (the
// server's index builder thread, never the reader thread) for at most the timeout.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace inductor::server {

/// An interpreter and where it was found.
struct PythonInterpreter {
  std::string path;
  /// "pythonPath setting" (explain: "--python") or "python3 on PATH".
  std::string source;
};

/// Reads an environment variable; defaults to ::getenv. Replaced in tests.
using GetEnv = std::function<std::optional<std::string>(const char *name)>;
/// The process's own environment (std::getenv; an empty value counts as unset): the default GetEnv.
GetEnv processEnv();

/// The interpreter to ask (see the file comment), or nullopt when there is none. An explicit `setting` is
/// returned as is (a bare name: the first on PATH, when found), even when it does not exist, so that the
/// failure is reported. `excluded`: directories (or files: their directory) whose PATH entries are never
/// used, the workspace folders and trace inputs. Nothing is run.
std::optional<PythonInterpreter> findPythonInterpreter(const std::string &setting,
                                                       const std::vector<std::string> &excluded,
                                                       const GetEnv &getenv = {});

/// Whether PATH entry `dir` may hold the interpreter: absolute, and not inside any of `excluded` (compared
/// as written and with links resolved).
bool usablePathEntry(const std::string &dir, const std::vector<std::string> &excluded);

/// Bounds on reading `.pth` files (per environment): what a hostile site-packages can make the server read.
inline constexpr size_t kMaxPthFiles = 64;
inline constexpr size_t kMaxPthBytes = size_t{64} << 10;
inline constexpr size_t kMaxPthRoots = 256;

/// The import roots of the environment at `prefix`, read from its files and never by running it (see the
/// file comment): its site-packages directories, then the existing directories its `.pth` files name, in
/// order, each directory once. `within` non-empty: only directories inside it, links resolved (a workspace
/// venv's roots stay in its workspace folder: a hostile `.pth` naming `/` or `~/.ssh` does not widen what
/// the server reads). Empty when there is none.
std::vector<std::string> staticImportRoots(const std::string &prefix, const std::string &within = {});

/// A Python environment found on disk, whose import roots were read without running it.
struct StaticEnvironment {
  std::string prefix; ///< The environment's directory.
  /// "virtual environment in the workspace", "$VIRTUAL_ENV" or "$CONDA_PREFIX".
  std::string source;
  std::vector<std::string> importRoots; ///< staticImportRoots(prefix).
};

/// The environments read statically: `.venv`, `venv`, `env` holding `pyvenv.cfg` in each of `folders` (roots
/// only inside that folder), then `$VIRTUAL_ENV` and `$CONDA_PREFIX` (the user's own: roots anywhere); each
/// once, and only those with import roots.
std::vector<StaticEnvironment> findStaticEnvironments(const std::vector<std::string> &folders,
                                                      const GetEnv &getenv = {});

/// The import roots to use: `named`'s answer first when the user named the interpreter (`namedFirst`), then
/// the static environments' roots in order, then the asked interpreter's (python3 on PATH); each once.
std::vector<std::string> combineImportRoots(const std::vector<StaticEnvironment> &environments,
                                            const std::vector<std::string> &asked, bool namedFirst);

/// The import roots of an interpreter: its sys.path entries that are absolute directories, in order.
struct ImportRoots {
  std::vector<std::string> paths;
  std::string
      error; ///< Empty on success: "cannot run ...", "timed out after 5 s", "exited with status 1: ...".
};

/// The nice value of an interpreter asked in the background (and of what it starts).
inline constexpr int kBackgroundNice = 19;

/// Whether this process may put a child back from kBackgroundNice to its own nice value (CAP_SYS_NICE, or an
/// RLIMIT_NICE that allows it). Most users may not (RLIMIT_NICE 0): queryImportRoots then runs the child as
/// usual, since one stuck at nice 19 on a busy machine could starve past its timeout.
bool canRunInBackground();

/// Runs `interpreter -c <print sys.path as JSON>` (see the file comment); an interpreter that is not an
/// absolute path is refused, never looked up. `cancelled`, if given, is polled
/// and kills the child when set. While `background` is given and true (and canRunInBackground()), the child
/// and what it starts (its own process group) run at kBackgroundNice (the index build beside it goes first)
/// and the timeout does not run; once it is false they run as usual and have `timeout` from then. A timeout
/// or cancellation kills the group.
ImportRoots queryImportRoots(const std::string &interpreter,
                             std::chrono::milliseconds timeout = std::chrono::seconds(5),
                             const std::atomic<bool> *cancelled = nullptr,
                             const std::atomic<bool> *background = nullptr);

/// What the server's Python environment depends on (server/workspace/PythonEnv.h).
struct PythonQuery {
  std::vector<std::string> folders; ///< The workspace folders, where virtual environments are read.
  /// The workspace folders and trace inputs: no interpreter is taken from a PATH entry inside them.
  std::vector<std::string> excluded;
  std::string setting; ///< The `pythonPath` setting.
  bool run = true;     ///< False (`"trusted": false`): no interpreter is run at all.
  std::string key() const;
};

/// The user's Python environment as the server found it (server/workspace/PythonEnv.h), for the status and
/// logs.
struct PythonEnvironment {
  std::string interpreter; ///< Empty when none was found (or none may run).
  std::string source;      ///< Where it was found ("pythonPath setting", "python3 on PATH").
  /// The environments read without running them (workspace venvs, the activated one).
  std::vector<StaticEnvironment> environments;
  /// combineImportRoots of `environments` and the interpreter's answer.
  std::vector<std::string> importRoots;
  std::vector<std::string> asked; ///< The interpreter's answer alone (what ImportRootsCache keeps).
  std::string error; ///< Why the import roots are unknown; empty on success or when there is no interpreter.
  /// The roots are an earlier session's answer (ImportRootsCache), not asked again yet.
  bool kept = false;
};

/// The import roots interpreters answered in earlier sessions, so that a start need not wait for the
/// interpreter (0.2 s for python3, over 0.5 s through a pyenv shim, longer than scanning a 200 MB trace).
/// One JSON file, `<dir>/python-import-roots.json`, holds the last kMaxEntries answers, the latest first.
///
/// An answer is used only while nothing it depends on visibly changed: the interpreter's path, the
/// variables that change sys.path or the interpreter a shim runs (kKeyVariables), the interpreter file's
/// size and mtime (a link: its target's), and every root's mtime (installing or removing a package or a
/// `.pth` file changes its directory's). What stamps cannot see (`pyenv global` behind a shim, a user
/// site directory created since) is the caller's to find by asking the interpreter again once the index
/// is served (server/lsp/Server.cpp does, and reindexes when the answer differs).
///
/// The file is the server's own, outside every trace and workspace folder: written whole to a temporary
/// file beside it and renamed, so a reader sees one answer or the other (two servers: the last store
/// wins, both answers are valid). A file that does not parse, holds other shapes or is over 1 MiB is a
/// miss, replaced by the next store; a store that cannot write is a no-op. No state beyond the directory:
/// safe from any thread, each call reads or writes the file.
class ImportRootsCache {
public:
  static constexpr size_t kMaxEntries = 16;
  /// Environment variables an answer is kept for (their values are part of its key).
  static constexpr const char *kKeyVariables[] = {"PYTHONPATH",       "PYTHONHOME",     "PYTHONUSERBASE",
                                                  "PYTHONNOUSERSITE", "PYTHONSAFEPATH", "VIRTUAL_ENV",
                                                  "CONDA_PREFIX",     "PYENV_VERSION",  "PYENV_ROOT"};

  /// `dir` empty: nothing is kept (lookups miss, stores do nothing). `getenv` reads the key variables.
  explicit ImportRootsCache(const std::string &dir = {}, GetEnv getenv = {});
  /// `$INDUCTOR_LS_CACHE_DIR`, else `$XDG_CACHE_HOME/inductor-ls`, else `$HOME/.cache/inductor-ls`; empty
  /// when none is set.
  static std::string defaultDir(const GetEnv &getenv = {});
  /// The roots `interpreter` answered last, when its key and every stamp are as they were then.
  std::optional<std::vector<std::string>> lookup(const std::string &interpreter) const;
  /// Keeps `roots` (an answer of queryImportRoots just now) for `interpreter`.
  void store(const std::string &interpreter, const std::vector<std::string> &roots) const;
  /// The file, empty when nothing is kept.
  const std::string &file() const { return file_; }

private:
  std::string key(const std::string &interpreter) const;
  std::string file_;
  GetEnv getenv_;
};

} // namespace inductor::server
