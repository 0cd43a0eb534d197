// index/files/ReadPolicy.h: which local files the server may read.
//
// A trace is outside input: its stack traces, `# File:` comments and file names can name any path
// (`/etc/passwd`, `/proc/self/environ`), and a trace directory can hold symlinks to anywhere. So the server
// reads only inside its roots: the workspace folders, the trace inputs, the `to` side of pathMappings and the
// import roots of the user's Python environment (see IndexOptions). A path is inside when its canonical form
// (symlinks resolved, `.`/`..` removed) lies under the canonical form of a root, component-wise: a symlink is
// followed only when its target is inside the roots too, and `/work/a` does not contain `/work/ab`.
//
// The policy says nothing about whether a file exists; a path that cannot be canonicalised (it does not
// exist) is judged by its lexical form. Everything that reads a file named by a trace or found under a root
// asks allows() first, and a refusal is reported (hover: "not read: outside the workspace"), never silent.
//
// Thread-safety: immutable after construction; allows() may be called from any thread. It costs a
// realpath(3) per call (no memo: files can be replaced by symlinks between calls).
#pragma once

#include "index/support/Expected.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

class ReadPolicy {
public:
  /// A policy that allows every path: for tests and tools that read what they are told to.
  static ReadPolicy allowAll();
  /// Allows the files under `roots` (files or directories; relative ones are taken from the current
  /// directory; roots that do not exist are kept lexically).
  explicit ReadPolicy(const std::vector<std::string> &roots);

  /// Whether `path` may be read (see the file comment).
  bool allows(std::string_view path) const;
  /// The bytes of the file at `path` if it may be read: the file actually opened is judged (by the path
  /// the kernel gives its descriptor), so a link swapped in between a check and the read is refused too. Only
  /// regular files of at most `maxBytes`; never blocks on a FIFO. Errors say why not, e.g. "not read: /x is
  /// outside the workspace folders and trace inputs".
  Expected<std::string> read(std::string_view path, size_t maxBytes) const;
  /// read() for a file that a listing of a directory inside the roots found (a regular file, not a link):
  /// its path is not canonicalised first (a realpath(3) per component, which dominated reading a Triton
  /// cache's small metadata files), but the file actually opened is judged as read() judges it, so one
  /// swapped for a link since the listing is still refused.
  Expected<std::string> readListed(std::string_view path, size_t maxBytes) const;
  /// readListed() of the file's first `headBytes` only (all of a shorter file), whatever its size: for what a
  /// file says in its head (a Triton IR file's first location), read without touching the rest.
  Expected<std::string> readListedHead(std::string_view path, size_t headBytes) const;
  /// The canonical roots, for logs and messages.
  const std::vector<std::string> &roots() const { return roots_; }
  bool allowsAll() const { return all_; }

private:
  ReadPolicy() = default;
  Expected<std::string> readListed(std::string_view path, size_t maxBytes, bool head) const;
  bool all_ = false;
  std::vector<std::string> roots_;
};

/// The canonical form of `path`: realpath(3) when it exists, else the canonical form of its longest existing
/// parent joined with the rest, normalised lexically. Absolute (relative paths are taken from the current
/// directory). Never fails.
std::string canonicalPath(std::string_view path);

/// Whether `path` equals `root` or lies under it, component-wise, both already normalised.
bool isWithin(std::string_view path, std::string_view root);

/// The bytes of the regular file at `path`, if it has at most `maxBytes` (checked before reading, so a huge
/// file costs nothing). Never blocks (FIFOs and devices are refused). No policy: for files a walk of the
/// roots found.
Expected<std::string> readRegularFile(std::string_view path, size_t maxBytes);

} // namespace inductor::index
