// index/MappedFile.cpp: POSIX mmap of a whole file.
#include "index/MappedFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace inductor::index {
namespace {

Error systemError(const std::string &what, const std::string &path) {
  return Error{what + " " + path + ": " + std::strerror(errno)};
}

FileStamp stampFrom(const struct stat &st) {
  FileStamp s;
  s.device = uint64_t(st.st_dev);
  s.inode = uint64_t(st.st_ino);
  s.size = uint64_t(st.st_size);
  s.modified =
      std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
  return s;
}

size_t pageSize() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

} // namespace

Expected<MappedFile> MappedFile::open(const std::string &path) {
  MappedFile file;
  file.path_ = path;
  file.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd_ < 0) return systemError("cannot open", path);
  struct stat st;
  if (::fstat(file.fd_, &st) != 0) return systemError("cannot stat", path);
  if (!S_ISREG(st.st_mode)) return Error{"not a regular file: " + path};
  if (auto remapped = file.remap(); !remapped) return remapped.error();
  return file;
}

MappedFile MappedFile::fromString(std::string text, std::string path) {
  MappedFile file;
  file.path_ = std::move(path);
  file.owned_ = std::move(text);
  file.data_ = file.owned_.data();
  file.size_ = file.owned_.size();
  return file;
}

MappedFile::MappedFile(MappedFile &&other) noexcept {
  *this = std::move(other);
}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept {
  if (this == &other) return *this;
  unmap();
  if (fd_ >= 0) ::close(fd_);
  path_ = std::move(other.path_);
  fd_ = std::exchange(other.fd_, -1);
  size_ = std::exchange(other.size_, 0);
  mapped_ = std::exchange(other.mapped_, false);
  stamp_ = other.stamp_;
  // Moving a std::string may move its characters (small-string buffer), so data_ is re-pointed.
  bool ownsText = other.data_ != nullptr && other.data_ == other.owned_.data();
  owned_ = std::move(other.owned_);
  data_ = ownsText ? owned_.data() : other.data_;
  other.data_ = nullptr;
  return *this;
}

MappedFile::~MappedFile() {
  unmap();
  if (fd_ >= 0) ::close(fd_);
}

void MappedFile::unmap() {
  if (mapped_) ::munmap(const_cast<char *>(data_), size_);
  mapped_ = false;
  data_ = nullptr;
  size_ = 0;
}

Expected<bool> MappedFile::remap() {
  if (fd_ < 0) return false; // fromString(): nothing to re-read.
  struct stat st;
  if (::fstat(fd_, &st) != 0) return systemError("cannot stat", path_);
  stamp_ = stampFrom(st);
  size_t newSize = size_t(st.st_size);
  if (newSize == size_ && (mapped_ || newSize == 0)) return false;
  if (newSize == 0) {
    unmap();
    return true;
  }
  void *p = ::mmap(nullptr, newSize, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (p == MAP_FAILED) return systemError("cannot mmap", path_);
  unmap();
  data_ = static_cast<const char *>(p);
  size_ = newSize;
  mapped_ = true;
  return true;
}

Expected<FileStamp> MappedFile::stampOf(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return systemError("cannot stat", path);
  return stampFrom(st);
}

void MappedFile::adviseSequential() const {
  if (mapped_) ::madvise(const_cast<char *>(data_), size_, MADV_SEQUENTIAL);
}

void MappedFile::adviseNormal() const {
  if (mapped_) ::madvise(const_cast<char *>(data_), size_, MADV_NORMAL);
}

void MappedFile::prefetch(size_t offset, size_t length) const {
  if (!mapped_ || offset >= size_) return;
  length = std::min(length, size_ - offset);
  size_t page = pageSize();
  size_t begin = offset / page * page;
  ::madvise(const_cast<char *>(data_) + begin, offset + length - begin, MADV_WILLNEED);
}

void MappedFile::dropPages(size_t offset, size_t length) const {
  if (!mapped_ || offset >= size_) return;
  length = std::min(length, size_ - offset);
  // mmap returns a page-aligned base, so aligning offsets relative to it aligns addresses.
  size_t page = pageSize();
  size_t begin = (offset + page - 1) / page * page;
  size_t end = (offset + length) / page * page;
  if (end > begin) ::madvise(const_cast<char *>(data_) + begin, end - begin, MADV_DONTNEED);
}

} // namespace inductor::index
