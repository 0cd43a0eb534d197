// index/trace/MappedFile.cpp: POSIX mmap of a whole file.
#include "index/trace/MappedFile.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace inductor::index {
namespace {

// ---------------------------------------------------------------------------------------------------------------
// The SIGBUS guard (see MappedFile.h). Mappings register their address range in a table that the signal
// handler reads without locks: slots are claimed and released by the mapping threads (under a mutex, which
// the handler never takes) and read by the handler with atomic loads only. Chunks of slots are allocated on
// demand and never freed, so the handler never sees freed memory.

struct GuardSlot {
  std::atomic<char *> begin{nullptr}; // Null: free.
  std::atomic<size_t> length{0};      // Bytes mapped (whole pages).
  std::atomic<bool> faulted{false};
};

constexpr size_t kSlotsPerChunk = 1024, kMaxChunks = 64; // Up to 65,536 live mappings.
std::array<std::atomic<GuardSlot *>, kMaxChunks> gChunks{};
std::atomic<size_t> gChunkCount{0};
std::mutex gGuardMutex; // Claiming and releasing slots; never taken by the handler.
struct sigaction gPreviousSigbus;
std::atomic<bool> gGuardInstalled{false};
size_t gPageSize = 4096;

GuardSlot &slotAt(size_t index) {
  return gChunks[index / kSlotsPerChunk].load(std::memory_order_acquire)[index % kSlotsPerChunk];
}

// Replaces [from, end) of a mapping by anonymous zero pages: reads there return zeros instead of faulting.
// A raw system call, so it is safe in the signal handler.
bool zeroFill(char *from, char *end) {
  if (end <= from) return true;
  void *p = ::mmap(from, size_t(end - from), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  return p != MAP_FAILED;
}

void onSigbus(int signal, siginfo_t *info, void *context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  const size_t chunks = gChunkCount.load(std::memory_order_acquire);
  for (size_t c = 0; c < chunks; ++c) {
    GuardSlot *chunk = gChunks[c].load(std::memory_order_acquire);
    for (size_t i = 0; chunk && i < kSlotsPerChunk; ++i) {
      GuardSlot &slot = chunk[i];
      char *begin = slot.begin.load(std::memory_order_acquire);
      const size_t length = slot.length.load(std::memory_order_acquire);
      const auto start = reinterpret_cast<uintptr_t>(begin);
      if (!begin || address < start || address >= start + length) continue;
      // A page of this mapping lies past the end of its (truncated) file: everything from that page to the
      // end of the mapping reads as zeros from now on, and the owner learns it through faulted().
      const size_t page = (address - start) / gPageSize * gPageSize;
      if (zeroFill(begin + page, begin + length)) {
        slot.faulted.store(true, std::memory_order_release);
        return; // The faulting read is retried and now sees zeros.
      }
    }
  }
  // Not one of ours: hand the signal to whoever handled it before (a sanitizer, a fuzzer), or die as without
  // the guard.
  if (gPreviousSigbus.sa_flags & SA_SIGINFO) {
    if (gPreviousSigbus.sa_sigaction) return gPreviousSigbus.sa_sigaction(signal, info, context);
  } else if (gPreviousSigbus.sa_handler != SIG_DFL && gPreviousSigbus.sa_handler != SIG_IGN) {
    return gPreviousSigbus.sa_handler(signal);
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  ::sigaction(SIGBUS, &fallback, nullptr); // Returning re-runs the faulting instruction: it dies now.
}

void installGuard() {
  if (gGuardInstalled.load(std::memory_order_acquire)) return;
  gPageSize = size_t(sysconf(_SC_PAGESIZE));
  struct sigaction action {};
  action.sa_sigaction = onSigbus;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &gPreviousSigbus);
  gGuardInstalled.store(true, std::memory_order_release);
}

/// Claims a slot for [begin, begin + length); -1 when the table is full (the mapping is then unguarded, see
/// MappedFile::open's fallback).
int claimSlot(void *begin, size_t length) {
  std::lock_guard<std::mutex> lock(gGuardMutex);
  installGuard();
  size_t chunks = gChunkCount.load(std::memory_order_relaxed);
  for (size_t index = 0;; ++index) {
    if (index / kSlotsPerChunk >= chunks) {
      if (chunks == kMaxChunks) return -1;
      gChunks[chunks].store(new GuardSlot[kSlotsPerChunk], std::memory_order_release);
      gChunkCount.store(++chunks, std::memory_order_release);
    }
    GuardSlot &slot = slotAt(index);
    if (slot.begin.load(std::memory_order_relaxed) != nullptr) continue;
    slot.faulted.store(false, std::memory_order_relaxed);
    slot.length.store(length, std::memory_order_release);
    slot.begin.store(static_cast<char *>(begin), std::memory_order_release);
    return int(index);
  }
}

void releaseSlot(int index) {
  if (index < 0) return;
  std::lock_guard<std::mutex> lock(gGuardMutex);
  slotAt(size_t(index)).begin.store(nullptr, std::memory_order_release);
}

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

size_t roundUpToPage(size_t n) {
  size_t page = pageSize();
  return (n + page - 1) / page * page;
}

} // namespace

std::string fileKindName(unsigned mode) {
  switch (mode & S_IFMT) {
  case S_IFIFO:
    return "a FIFO";
  case S_IFSOCK:
    return "a socket";
  case S_IFCHR:
    return "a character device";
  case S_IFBLK:
    return "a block device";
  case S_IFDIR:
    return "a directory";
  case S_IFLNK:
    return "a symbolic link";
  default:
    return "not a regular file";
  }
}

Expected<InputFile> openInputFile(const std::string &path, InputFileProblem *problem) {
  auto fail = [&](InputFileProblem kind, Error error) -> Expected<InputFile> {
    if (problem) *problem = kind;
    return error;
  };
  auto failErrno = [&](const char *what) {
    bool missing = errno == ENOENT || errno == ENOTDIR;
    return fail(missing ? InputFileProblem::Missing : InputFileProblem::Unreadable, systemError(what, path));
  };
  auto notRegular = [&](const struct stat &st) {
    return fail(InputFileProblem::NotRegular,
                Error{"not a regular file (" + fileKindName(unsigned(st.st_mode)) + "): " + path});
  };
  if (problem) *problem = InputFileProblem::None;
  struct stat st;
  // Judged before opening, so that a device or FIFO is never opened at all.
  if (::stat(path.c_str(), &st) != 0) return failErrno("cannot open");
  if (!S_ISREG(st.st_mode)) return notRegular(st);
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return failErrno("cannot open");
  // And again by the descriptor: the path may name something else since the stat.
  if (::fstat(fd, &st) != 0) {
    auto error = failErrno("cannot stat");
    ::close(fd);
    return error;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return notRegular(st);
  }
  InputFile file;
  file.fd = fd;
  file.size = uint64_t(st.st_size);
  file.stamp = stampFrom(st);
  return file;
}

Expected<MappedFile> MappedFile::open(const std::string &path) {
  MappedFile file;
  file.path_ = path;
  auto input = openInputFile(path);
  if (!input) return input.error();
  file.fd_ = input->fd;
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
  slot_ = std::exchange(other.slot_, -1);
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
  releaseSlot(slot_); // Before munmap: the range may be reused by the next mapping.
  slot_ = -1;
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
  slot_ = claimSlot(p, roundUpToPage(newSize));
  return true;
}

bool MappedFile::faulted() const {
  return slot_ >= 0 && slotAt(size_t(slot_)).faulted.load(std::memory_order_acquire);
}

FileState MappedFile::state() const {
  if (fd_ < 0 || !stamp_) return FileState::Unchanged; // fromString(): nothing can change it.
  struct stat st;
  if (::fstat(fd_, &st) != 0) return FileState::Deleted;
  if (mapped_ && size_t(st.st_size) < size_) {
    // Shrunk: make the pages past the new end read as zeros now, before anyone touches them (a fault would
    // do the same, see onSigbus). The page holding the new end stays mapped to the file.
    char *base = const_cast<char *>(data_);
    zeroFill(base + roundUpToPage(size_t(st.st_size)), base + roundUpToPage(size_));
    if (slot_ >= 0) slotAt(size_t(slot_)).faulted.store(true, std::memory_order_release);
    return FileState::Truncated;
  }
  if (faulted()) return FileState::Truncated; // Cut and grown again since: the bytes read were zeros.
  if (st.st_nlink == 0) return FileState::Deleted;
  if (stampFrom(st) != *stamp_) return FileState::Changed;
  return FileState::Unchanged;
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
