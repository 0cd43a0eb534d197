// index/trace/MappedFile.h: a read-only memory mapping of a whole file, the storage under TraceLog
// (TORCH_TRACE logs are hundreds of MB to GBs; records keep byte offsets into this mapping instead of
// copies).
//
// The mapping is PROT_READ + MAP_PRIVATE: the process never writes to it, and a writer appending to the file
// (a running torch.compile job) is fine.
//
// Truncation. A file that shrinks while it is mapped (log rotation, a rerun writing the same file, a copy in
// progress) makes reads of the pages past its new end fault with SIGBUS, which kills the process. Two layers
// make that safe:
//  - Stamps, before touching pages: state() fstat()s the descriptor and reports a file that shrank, was
//    deleted or changed since it was mapped; on a shrink it replaces the pages past the new end with
//    anonymous zero pages at once, so that nothing reads them from the file any more. Readers that serve
//    bytes long after mapping (Index::text, TraceLog's payload accessors) ask it first.
//  - A SIGBUS guard, for the race that no check can close (the file is cut between the check and the read, or
//    during a scan): the first MappedFile installs a process-wide SIGBUS handler (sigaction, SA_SIGINFO) that
//    looks the faulting address up in a lock-free table of live mappings; for one of ours it maps zero pages
//    over the rest of that mapping (mmap MAP_FIXED, a raw system call) and returns, so the read is retried
//    and sees zeros; the owner learns it through faulted() and state(), and treats what it read as unusable
//    (the scan is redone, a request gets an error). A fault outside our mappings goes to the handler
//    installed before ours (a sanitizer's or a fuzzer's), or kills the process as it would have without the
//    guard.
//  Reads never fault, so nothing needs to copy the file into memory to be safe (reading payloads with pread
//  instead would not cover the scan and the analyses, which work on views into the mapping). The table holds
//  65,536 live mappings; one past that is left unguarded (the server maps one or two per trace log).
// Empty files are not mapped (mmap of length 0 fails); text() is then empty.
//
// Ownership: move-only; text() views die with the object or at the next successful remap() that changed
// the size. Two MappedFiles of the same path are independent mappings: an incremental reader opens a new one
// while readers of the old one carry on (see TraceLog::resume). Thread-safety: const members may be called
// concurrently; remap() and the advice calls may not run concurrently with readers of text().
#pragma once

#include "index/support/Expected.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace inductor::index {

/// A file's version as stat(2) sees it, cheap to compare: a file replaced under the same path has another
/// (device, inode); a file written to has another size or modification time.
struct FileStamp {
  uint64_t device = 0, inode = 0;
  uint64_t size = 0; ///< Bytes.
  std::chrono::system_clock::time_point modified;
  friend bool operator==(const FileStamp &, const FileStamp &) = default;
};

/// What became of a mapped file since it was (re)mapped; see MappedFile::state().
enum class FileState {
  Unchanged, ///< Same size and modification time.
  Changed,   ///< Written to (grown, or rewritten in place): the mapped bytes may differ from those read then.
  Truncated, ///< Shorter than the mapping, or a read met its cut end: the bytes past the end read as zeros.
  Deleted,   ///< Unlinked, or the descriptor cannot be stat'ed (the mapping keeps its pages until unmapped).
};

/// A file from outside opened for reading by openInputFile(): the descriptor (owned by the caller, who closes
/// it or hands it on) and what fstat(2) said of it.
struct InputFile {
  int fd = -1;
  uint64_t size = 0; ///< Bytes, at the time of opening.
  FileStamp stamp;
};

/// What openInputFile() refused or failed on, for callers that report kinds differently (SourceReader).
enum class InputFileProblem {
  None,
  Missing,    ///< No such file (ENOENT, ENOTDIR).
  NotRegular, ///< A FIFO, socket, character or block device, or directory: never opened or read.
  Unreadable, ///< Any other failure (permissions, I/O).
};

/// Opens a file named by the user or found in a trace, a workspace or a walk of the roots: THE way every
/// input is opened (trace logs via MappedFile::open, profiles, run logs, output code, provenance JSON, kernel
/// files, artifact contents, served texts), so that no input can hang or disturb the server:
///  - regular files only: a path that stat(2)s as a FIFO, socket, device or directory is refused before it is
///    opened (opening a device can have effects; opening a FIFO for reading waits for a writer for ever), and
///    the opened descriptor is fstat'ed again (the path may have been replaced in between);
///  - opened O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY: even a FIFO swapped in after the stat does not
///    block the open, a terminal never becomes the controlling terminal, and no child inherits it. For a
///    regular file O_NONBLOCK changes nothing.
/// Errors name the path and the reason: "not a regular file (a FIFO): /x", "cannot open /x: <strerror>".
/// `problem`, when given, receives the kind of failure.
Expected<InputFile> openInputFile(const std::string &path, InputFileProblem *problem = nullptr);

/// The kind of a non-regular file in words, for messages: "a FIFO", "a socket", "a character device",
/// "a block device", "a directory", "a symbolic link"; "not a regular file" for others. `mode` is st_mode.
std::string fileKindName(unsigned mode);

class MappedFile {
public:
  /// Opens (openInputFile: regular files only, never blocks) and maps `path`. Errors: the file cannot be
  /// opened, is not a regular file (a FIFO, socket or device: reported, never waited on), or cannot be
  /// mapped.
  static Expected<MappedFile> open(const std::string &path);
  /// A MappedFile over an owned in-memory copy of `text` (no file): for tests and virtual documents.
  /// remap() is a no-op on it.
  static MappedFile fromString(std::string text, std::string path = "");

  MappedFile(MappedFile &&other) noexcept;
  MappedFile &operator=(MappedFile &&other) noexcept;
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  ~MappedFile();

  /// The mapped bytes: exactly the file size at the time of open()/remap().
  std::string_view text() const { return {data_, size_}; }
  size_t size() const { return size_; }
  const std::string &path() const { return path_; }
  /// The file's modification time as of the last open()/remap(); nullopt for fromString().
  std::optional<std::chrono::system_clock::time_point> modified() const {
    if (!stamp_) return std::nullopt;
    return stamp_->modified;
  }
  /// The file's stamp as of the last open()/remap() (its size is size()); nullopt for fromString().
  const std::optional<FileStamp> &stamp() const { return stamp_; }
  /// The current stamp of the file at `path` (following symlinks). Errors: stat failed.
  static Expected<FileStamp> stampOf(const std::string &path);

  /// Looks at the file's current size and modification time (through the descriptor kept open since open(),
  /// so a file renamed or replaced under the same path is not picked up) and maps it again if it changed.
  /// Returns whether the size changed; when it did, earlier text() views are invalid. Errors: fstat or mmap
  /// failed (the old mapping stays valid).
  Expected<bool> remap();

  /// Whether a read has met the cut end of the file (the SIGBUS guard zero-filled the rest of the mapping).
  /// Cheap (one atomic load); false for fromString() and unguarded mappings.
  bool faulted() const;
  /// The file as it is now compared with the mapping (one fstat of the descriptor kept open since open(), so
  /// a file replaced under the same path is not seen here: compare stamps of the path for that). A Truncated
  /// file has its pages past the new end zero-filled before this returns, so no later read faults. Always
  /// Unchanged for fromString().
  FileState state() const;

  /// Access-pattern advice (madvise); failures are ignored because advice is only a hint.
  void adviseSequential() const;
  /// Back to the default read-ahead (MADV_NORMAL), for random access to payloads after a scan.
  void adviseNormal() const;
  /// Starts reading [offset, offset + length) into the page cache asynchronously (MADV_WILLNEED), so that a
  /// sequential scan of a cold file does not wait for each read-ahead in turn.
  void prefetch(size_t offset, size_t length) const;
  /// Drops the pages of [offset, offset + length) from this process (MADV_DONTNEED); they stay in the page
  /// cache and fault back in transparently on the next access. Keeps the resident set of a sequential scan
  /// small: without it, every page of a multi-GB log counts towards RSS until unmapped. The range is
  /// shrunk to whole pages.
  void dropPages(size_t offset, size_t length) const;

private:
  MappedFile() = default;
  void unmap();

  std::string path_;
  int fd_ = -1;
  const char *data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false; // data_ came from mmap (not from owned_, not empty).
  int slot_ = -1;       // This mapping's slot in the SIGBUS guard's table; -1 when unguarded.
  std::optional<FileStamp> stamp_;
  std::string owned_; // Backing store of fromString().
};

} // namespace inductor::index
