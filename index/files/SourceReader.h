// index/files/SourceReader.h: the one reader of user source files: model code and library files that traces
// name.
//
// Origins point into files the server does not own: the user's model, an installed library, whatever path a
// trace recorded. Every read of such a file (the source text of an origin for hovers and lens titles, the
// relocation of an origin in a file edited since the trace, see Relocation.h) goes through a SourceReader,
// which
//  - refuses what the ReadPolicy refuses (outside the workspace folders, the trace inputs, the pathMappings
//    targets and the Python environment's import roots; see ReadPolicy.h), and files larger than a cap (a
//    trace can name a 512 MB file: reading it for every hover would cost seconds and a gigabyte);
//  - reads each file once per version: the text and its lines are cached and shared, and a file is read again
//    only when its size or modification time changed; the cache is bounded by bytes, least recently used out;
//  - says why when it did not read (SourceRead::reason: "outside the workspace", "larger than 16 MB", "not
//    found here"), so that answers can say so instead of guessing.
// Documents the editor has open are not read here: their text is the client's (the server passes it).
//
// Thread-safety: read() may be called from any number of threads. Returned files are immutable and stay
// valid as long as a shared_ptr to them is held, even after eviction.
#pragma once

#include "index/files/ReadPolicy.h"
#include "index/support/TextLines.h"

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace inductor::index {

/// A source file as read: its bytes and their lines (views into `text`).
struct SourceFile {
  std::string path; ///< As asked for (normalized).
  std::string text;
  TextLines lines;
  int64_t modified = 0; ///< Modification time (ns since the epoch) when read.
};

/// Why a file was or was not read.
enum class SourceStatus {
  Ok,
  Refused,    ///< The ReadPolicy refuses it (outside the roots).
  TooLarge,   ///< Larger than SourceReaderOptions::maxFileBytes.
  Missing,    ///< No such file here.
  NotAFile,   ///< A directory, a device, a FIFO...
  Unreadable, ///< It exists but could not be read (permissions, I/O error).
};

struct SourceRead {
  SourceStatus status = SourceStatus::Missing;
  std::shared_ptr<const SourceFile> file; ///< Set when status == Ok.
  size_t maxFileBytes = 0;                ///< The cap, when TooLarge.
  /// For messages: "outside the workspace", "larger than 16 MB", "not found here", "not a regular file",
  /// "unreadable"; empty when Ok.
  std::string reason() const;
  bool ok() const { return status == SourceStatus::Ok; }
};

struct SourceReaderOptions {
  /// Files larger than this are not read (TooLarge). Default 16 MiB: larger than any hand-written Python
  /// file.
  size_t maxFileBytes = size_t{16} << 20;
  /// Bytes of text kept in the cache; the least recently used files go first. Default 256 MiB.
  size_t maxCacheBytes = size_t{256} << 20;
};

class SourceReader {
public:
  explicit SourceReader(ReadPolicy policy, SourceReaderOptions options = {});

  /// The file at `path` (a local path), from the cache when its size and modification time are unchanged.
  /// Never throws.
  SourceRead read(std::string_view path) const;

  const ReadPolicy &policy() const { return policy_; }
  /// Files read from disk since construction (cache misses), for tests and logs.
  size_t filesRead() const;

private:
  ReadPolicy policy_;
  SourceReaderOptions options_;
  mutable std::mutex mutex_;
  struct Entry {
    std::shared_ptr<const SourceFile> file;
    int64_t size = 0;
    std::list<std::string>::iterator lru;
  };
  mutable std::unordered_map<std::string, Entry> cache_;
  mutable std::list<std::string> lru_; ///< Most recently used first.
  mutable size_t cachedBytes_ = 0, filesRead_ = 0;
};

} // namespace inductor::index
