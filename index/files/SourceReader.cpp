#include "index/files/SourceReader.h"

#include "index/files/PathResolver.h"
#include "index/trace/MappedFile.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace inductor::index {

namespace {

int64_t modifiedNs(const struct stat &st) {
  return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

std::string megabytes(size_t bytes) {
  if (bytes < (size_t{1} << 20)) return std::to_string((bytes + 512) >> 10) + " KB";
  return std::to_string((bytes + (size_t{1} << 19)) >> 20) + " MB";
}

} // namespace

std::string SourceRead::reason() const {
  switch (status) {
  case SourceStatus::Ok:
    return {};
  case SourceStatus::Refused:
    return "outside the workspace";
  case SourceStatus::TooLarge:
    return "larger than " + megabytes(maxFileBytes);
  case SourceStatus::Missing:
    return "not found here";
  case SourceStatus::NotAFile:
    return "not a regular file";
  case SourceStatus::Unreadable:
    return "unreadable";
  }
  return {};
}

SourceReader::SourceReader(ReadPolicy policy, SourceReaderOptions options)
    : policy_(std::move(policy)), options_(options) {}

size_t SourceReader::filesRead() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return filesRead_;
}

SourceRead SourceReader::read(std::string_view rawPath) const {
  SourceRead out;
  std::string path = normalizePath(rawPath);
  if (path.empty() || path == ".") return out;
  if (!policy_.allows(path)) {
    out.status = SourceStatus::Refused;
    return out;
  }
  // Opened first and judged by the descriptor, so that what is checked is what is read (openInputFile:
  // regular files only, never blocks on a FIFO).
  InputFileProblem problem = InputFileProblem::None;
  auto input = openInputFile(path, &problem);
  if (!input) {
    out.status = problem == InputFileProblem::Missing      ? SourceStatus::Missing
                 : problem == InputFileProblem::NotRegular ? SourceStatus::NotAFile
                                                           : SourceStatus::Unreadable;
    return out;
  }
  const int fd = input->fd;
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.status = SourceStatus::Unreadable;
    return out;
  }
  if (static_cast<uint64_t>(st.st_size) > options_.maxFileBytes) {
    out.status = SourceStatus::TooLarge;
    out.maxFileBytes = options_.maxFileBytes;
    return out;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = cache_.find(path); it != cache_.end()) {
      if (it->second.size == st.st_size && it->second.file->modified == modifiedNs(st)) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        out.status = SourceStatus::Ok;
        out.file = it->second.file;
        return out;
      }
      cachedBytes_ -= static_cast<size_t>(it->second.size);
      lru_.erase(it->second.lru);
      cache_.erase(it);
    }
  }
  auto file = std::make_shared<SourceFile>();
  file->path = path;
  file->modified = modifiedNs(st);
  file->text.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < file->text.size()) {
    ssize_t n = ::read(fd, file->text.data() + got, file->text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.status = SourceStatus::Unreadable;
      return out;
    }
    if (n == 0) break; // Shrank while being read: keep what is there.
    got += static_cast<size_t>(n);
  }
  file->text.resize(got);
  file->lines = splitLines(file->text);
  std::lock_guard<std::mutex> lock(mutex_);
  ++filesRead_;
  out.status = SourceStatus::Ok;
  out.file = file;
  if (file->text.size() > options_.maxCacheBytes) return out;
  if (cache_.count(path)) return out; // Another thread read it meanwhile; either copy is fine.
  lru_.push_front(path);
  cache_.emplace(path, Entry{file, static_cast<int64_t>(file->text.size()), lru_.begin()});
  cachedBytes_ += file->text.size();
  while (cachedBytes_ > options_.maxCacheBytes && !lru_.empty()) {
    auto it = cache_.find(lru_.back());
    cachedBytes_ -= static_cast<size_t>(it->second.size);
    cache_.erase(it);
    lru_.pop_back();
  }
  return out;
}

} // namespace inductor::index
