#include "index/analysis/ModelFrames.h"

#include "index/support/TextLines.h"

#include <algorithm>
#include <array>

namespace inductor::index {
namespace {

/// Path components, backslashes read as slashes; empty components (a leading `/`, `//`) are dropped.
std::vector<std::string_view> components(std::string_view path, std::string &storage) {
  storage.assign(path);
  std::replace(storage.begin(), storage.end(), '\\', '/');
  std::vector<std::string_view> out;
  std::string_view p = storage;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    if (j > i) out.push_back(p.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

bool isDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return isDigit(c); });
}

/// `python3.12`, `python3.13t` (free-threaded), `pypy3.10`: a versioned standard-library directory.
bool isVersionedPythonDir(std::string_view c) {
  for (std::string_view prefix : {std::string_view("python3."), std::string_view("pypy3.")}) {
    if (c.substr(0, prefix.size()) != prefix) continue;
    std::string_view v = c.substr(prefix.size());
    if (!v.empty() && v.back() == 't') v.remove_suffix(1);
    return isDigits(v);
  }
  return false;
}

bool isPackagesDir(std::string_view c) {
  return c == "site-packages" || c == "dist-packages";
}

bool isFrameworkPackage(std::string_view c) {
  return c == "torch" || c == "functorch" || c == "torchgen" || c == "triton";
}

/// What follows `torch/` in a source checkout (or a link tree) for torch's own code: private modules and
/// packages (`_dynamo`, `_tensor.py`, `__init__.py`) and the public subpackages and modules.
bool isTorchChild(std::string_view c) {
  if (c.empty()) return false;
  if (c[0] == '_') return true;
  static constexpr std::array<std::string_view, 48> children{"nn",
                                                             "fx",
                                                             "autograd",
                                                             "utils",
                                                             "distributed",
                                                             "export",
                                                             "cuda",
                                                             "amp",
                                                             "ao",
                                                             "optim",
                                                             "testing",
                                                             "backends",
                                                             "func",
                                                             "compiler",
                                                             "jit",
                                                             "onnx",
                                                             "sparse",
                                                             "nested",
                                                             "masked",
                                                             "linalg",
                                                             "special",
                                                             "fft",
                                                             "quantization",
                                                             "profiler",
                                                             "multiprocessing",
                                                             "distributions",
                                                             "package",
                                                             "mps",
                                                             "xpu",
                                                             "cpu",
                                                             "mtia",
                                                             "accelerator",
                                                             "signal",
                                                             "monitor",
                                                             "csrc",
                                                             "include",
                                                             "functional.py",
                                                             "overrides.py",
                                                             "library.py",
                                                             "random.py",
                                                             "serialization.py",
                                                             "storage.py",
                                                             "types.py",
                                                             "hub.py",
                                                             "return_types.py",
                                                             "quasirandom.py",
                                                             "version.py",
                                                             "torch_version.py"};
  return std::find(children.begin(), children.end(), c) != children.end();
}

bool isTritonChild(std::string_view c) {
  static constexpr std::array<std::string_view, 12> children{
      "language",   "runtime",     "compiler", "backends",  "_C",           "tools",
      "testing.py", "__init__.py", "knobs.py", "errors.py", "experimental", "_utils.py"};
  return std::find(children.begin(), children.end(), c) != children.end();
}

/// `*` and `?` within one component.
bool matchComponent(std::string_view pat, std::string_view s) {
  size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == '?' || pat[p] == s[i])) {
      ++p;
      ++i;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = i;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*')
    ++p;
  return p == pat.size();
}

/// Pattern components against path components; a pattern that ends while path components remain matches (a
/// parent directory matched).
bool matchFrom(const std::vector<std::string_view> &pat, size_t pi, const std::vector<std::string_view> &path,
               size_t si) {
  while (pi < pat.size()) {
    if (pat[pi] == "**") {
      // Collapse runs of `**`, then try every split.
      while (pi < pat.size() && pat[pi] == "**")
        ++pi;
      if (pi == pat.size()) return true;
      for (size_t k = si; k < path.size(); ++k)
        if (matchFrom(pat, pi, path, k)) return true;
      return false;
    }
    if (si >= path.size() || !matchComponent(pat[pi], path[si])) return false;
    ++pi;
    ++si;
  }
  return true;
}

} // namespace

bool isFrameworkPath(std::string_view path) {
  if (path.empty()) return false;
  if (path.front() == '<') return true;
  std::string storage;
  std::vector<std::string_view> c = components(path, storage);
  // Installed packages: the component after the last site-packages/dist-packages names the package.
  for (size_t i = c.size(); i-- > 0;)
    if (isPackagesDir(c[i])) return i + 1 < c.size() && isFrameworkPackage(c[i + 1]);
  // The standard library.
  bool windowsDrive = storage.size() >= 2 && storage[1] == ':';
  for (size_t i = 0; i + 1 < c.size(); ++i) {
    if ((c[i] == "lib" || c[i] == "lib64") && isVersionedPythonDir(c[i + 1]) && i + 2 < c.size()) return true;
    if (windowsDrive && c[i] == "Lib" && i + 1 < c.size()) return true;
  }
  // PyTorch from a source checkout or a link tree.
  for (size_t i = 0; i + 1 < c.size(); ++i) {
    if (c[i] == "torch" && isTorchChild(c[i + 1])) return true;
    if ((c[i] == "functorch" && (c[i + 1] == "_src" || c[i + 1] == "compile" || c[i + 1] == "dim" ||
                                 c[i + 1] == "experimental" || c[i + 1] == "__init__.py")) ||
        c[i] == "torchgen")
      return true;
    if (c[i] == "triton" && isTritonChild(c[i + 1])) return true;
  }
  return false;
}

bool isInstalledPackagePath(std::string_view path) {
  if (path.empty()) return false;
  std::string storage;
  std::vector<std::string_view> c = components(path, storage);
  return std::any_of(c.begin(), c.end(), isPackagesDir);
}

bool matchGlob(std::string_view pattern, std::string_view path) {
  if (pattern.empty() || path.empty()) return false;
  std::string patStorage(pattern);
  std::replace(patStorage.begin(), patStorage.end(), '\\', '/');
  bool anchored = patStorage.front() == '/' || patStorage.rfind("**", 0) == 0 ||
                  (patStorage.size() >= 2 && patStorage[1] == ':');
  if (!anchored) patStorage = "**/" + patStorage;
  std::string s1, s2;
  std::vector<std::string_view> pat = components(patStorage, s1);
  std::vector<std::string_view> p = components(path, s2);
  if (pat.empty()) return false;
  return matchFrom(pat, 0, p, 0);
}

ModelFrameRule::ModelFrameRule(std::vector<std::string> libraryPaths) {
  for (std::string &g : libraryPaths)
    if (!trim(g).empty()) globs_.push_back(std::move(g));
}

bool ModelFrameRule::isUserLibrary(std::string_view recordedPath, std::string_view localPath) const {
  for (const std::string &g : globs_)
    if (matchGlob(g, recordedPath) || (!localPath.empty() && matchGlob(g, localPath))) return true;
  return false;
}

bool ModelFrameRule::isModelFrame(std::string_view recordedPath, std::string_view localPath) const {
  if (recordedPath.empty() || isFrameworkPath(recordedPath)) return false;
  return !isUserLibrary(recordedPath, localPath);
}

const StackFrame *ModelFrameRule::originFrame(const std::vector<StackFrame> &frames) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (isModelFrame(it->file)) return &*it;
  return nullptr;
}

} // namespace inductor::index
