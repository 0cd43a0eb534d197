#include "index/files/ReadPolicy.h"

#include "index/files/PathResolver.h"
#include "index/trace/MappedFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace inductor::index {

std::string canonicalPath(std::string_view path) {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(std::string(path)), ec);
  if (ec) p = fs::path(std::string(path));
  // weakly_canonical resolves symlinks of the existing prefix and normalises the rest lexically.
  fs::path c = fs::weakly_canonical(p, ec);
  if (ec) return normalizePath(p.string());
  return normalizePath(c.string());
}

bool isWithin(std::string_view path, std::string_view root) {
  if (root.empty()) return false;
  if (root == "/") return !path.empty() && path.front() == '/';
  if (path.size() < root.size() || path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || path[root.size()] == '/' || root.back() == '/';
}

ReadPolicy ReadPolicy::allowAll() {
  ReadPolicy p;
  p.all_ = true;
  return p;
}

ReadPolicy::ReadPolicy(const std::vector<std::string> &roots) {
  for (const std::string &r : roots)
    if (!r.empty()) roots_.push_back(canonicalPath(r));
}

bool ReadPolicy::allows(std::string_view path) const {
  if (all_) return true;
  if (path.empty()) return false;
  std::string c = canonicalPath(path);
  for (const std::string &r : roots_)
    if (isWithin(c, r)) return true;
  return false;
}

namespace {

/// Reads the regular file opened by openInputFile (at most `maxBytes`; with `head`, its first `maxBytes` of
/// any size); closes it.
Expected<std::string> readOpenFile(const InputFile &file, const std::string &path, size_t maxBytes,
                                   bool head = false) {
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{file.fd};
  if (file.size > maxBytes && !head)
    // Rounded up: a file a byte over 64 MB is "65 MB", never "64 MB, over the limit of 64 MB".
    return Error{path + " is " + std::to_string((file.size + (uint64_t{1} << 20) - 1) >> 20) +
                 " MB, over the limit of " + std::to_string(maxBytes >> 20) + " MB: not read"};
  std::string text(std::min(size_t(file.size), maxBytes), '\0');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::read(file.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"cannot read " + path + ": " + std::strerror(errno)};
    if (n == 0) break; // Shrunk since fstat.
    done += size_t(n);
  }
  text.resize(done);
  return text;
}

} // namespace

Expected<std::string> readRegularFile(std::string_view path, size_t maxBytes) {
  std::string p(path);
  auto file = openInputFile(p);
  if (!file) return file.error();
  return readOpenFile(*file, p, maxBytes);
}

Expected<std::string> ReadPolicy::read(std::string_view path, size_t maxBytes) const {
  if (!allows(path))
    return Error{"not read: " + std::string(path) + " is outside the workspace folders and trace inputs"};
  return readListed(path, maxBytes);
}

Expected<std::string> ReadPolicy::readListed(std::string_view path, size_t maxBytes) const {
  return readListed(path, maxBytes, false);
}

Expected<std::string> ReadPolicy::readListedHead(std::string_view path, size_t headBytes) const {
  return readListed(path, headBytes, true);
}

Expected<std::string> ReadPolicy::readListed(std::string_view path, size_t maxBytes, bool head) const {
  std::string p(path);
  auto file = openInputFile(p);
  if (!file) return file.error();
  const int fd = file->fd;
  if (!all_) {
    // The file actually opened, by the path the kernel keeps for the descriptor: a link swapped in since
    // allows() is caught here.
    char buffer[4096];
    std::string link = "/proc/self/fd/" + std::to_string(fd);
    ssize_t n = ::readlink(link.c_str(), buffer, sizeof buffer);
    bool inside = false;
    if (n > 0 && size_t(n) < sizeof buffer) {
      std::string opened(buffer, size_t(n));
      for (const std::string &r : roots_)
        inside = inside || isWithin(opened, r);
    }
    if (!inside) {
      ::close(fd);
      return Error{"not read: " + p + " is outside the workspace folders and trace inputs"};
    }
  }
  return readOpenFile(*file, p, maxBytes, head);
}

} // namespace inductor::index
