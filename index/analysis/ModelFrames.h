// index/analysis/ModelFrames.h: which frames of a recorded Python stack are the user's model code.
//
// Most models that people compile come from third-party libraries (transformers, timm, torchvision,
// diffusers), so "user code" cannot mean "outside site-packages". A *model frame* is any frame outside
//  - PyTorch itself: the packages `torch`, `functorch`, `torchgen` and `triton`, installed (the component
//  after
//    `site-packages/` or `dist-packages/`) or in a source checkout (`<checkout>/torch/_dynamo/...`,
//    `<checkout>/torch/nn/...`: `torch/` followed by one of torch's own subpackages or modules);
//  - the Python standard library (`lib/python3.12/`, `lib64/python3.12/`, `lib/pypy3.10/`, Windows'
//    `C:/Python312/Lib/`), except the `site-packages/` and `dist-packages/` below it;
//  - synthetic files: any `<...>` (`<eval_with_key>.3`, `<string>`, `<frozen runpy>`).
// Third-party packages are model code. A user who wants to skip a package lists it in the `libraryPaths`
// setting (IndexOptions::libraryPaths), as globs; frames that match are still shown in hover stacks, they
// are just never an origin.
//
// The origin of a stack trace is its innermost model frame (ModelFrameRule::originFrame); the fallbacks
// through the `# File:` comments of FX graph dumps use the same rule (see the chain in Index.h).
//
// Paths are compared as recorded (traces come from other machines) with backslashes read as slashes; globs
// are also tried on the local path a recorded path resolved to. Everything here is pure and thread-safe.
#pragma once

#include "index/analysis/Provenance.h"

#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

/// True for PyTorch itself, the standard library and synthetic files (see the file comment): frames that are
/// never model code, whatever the settings. `path` as recorded; empty gives false.
bool isFrameworkPath(std::string_view path);

/// True for a file of an installed package: a `site-packages/` or `dist-packages/` component (`path` as
/// recorded, backslashes read as slashes). Model code may live there (transformers), but the user's own
/// scripts do not.
bool isInstalledPackagePath(std::string_view path);

/// Glob match of a whole path, in the style of VS Code's `files.exclude` and .gitignore:
///  - `*` matches within one path component, `?` one character, `**` any number of whole components
///    (`a/**/b` matches `a/b`);
///  - a pattern that does not start with `/`, `**` or a drive letter matches at any depth (`transformers/**`
///    is `**/transformers/**`);
///  - a pattern matches a path when it matches the path or one of its parent directories (`**/timm` skips
///    everything under any `timm/` directory).
/// Backslashes in either are read as slashes. An empty pattern matches nothing.
bool matchGlob(std::string_view pattern, std::string_view path);

/// The model-frame rule with the user's `libraryPaths`. Immutable after construction; safe from any thread.
class ModelFrameRule {
public:
  ModelFrameRule() = default;
  /// `libraryPaths`: globs (see matchGlob) of files to treat as library code. Empty entries are ignored.
  explicit ModelFrameRule(std::vector<std::string> libraryPaths);

  /// Whether a frame whose file was recorded as `recordedPath` (and resolved to `localPath` on this machine,
  /// when known) is model code: not isFrameworkPath, and no libraryPaths glob matches either path.
  bool isModelFrame(std::string_view recordedPath, std::string_view localPath = {}) const;
  /// Whether a libraryPaths glob matches either path (such frames are kept in stacks, marked as library).
  bool isUserLibrary(std::string_view recordedPath, std::string_view localPath = {}) const;
  /// The innermost model frame of `frames` (outermost first, as parseStackTrace returns them), or nullptr.
  /// Only recorded paths are seen here: use isModelFrame with local paths for globs on local files.
  const StackFrame *originFrame(const std::vector<StackFrame> &frames) const;

  const std::vector<std::string> &libraryPaths() const { return globs_; }

private:
  std::vector<std::string> globs_;
};

} // namespace inductor::index
