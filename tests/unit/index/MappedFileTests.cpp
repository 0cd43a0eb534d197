// Tests for index/MappedFile.h: mapping, empty files, missing files, growth seen by remap(), moves, and
// files truncated or deleted while mapped (the SIGBUS guard and state()).
#include "index/MappedFile.h"

#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace inductor::index;

namespace {
// A file under /tmp removed when the test ends.
struct TempFile {
  std::string path;
  explicit TempFile(std::string_view content) {
    char name[] = "/tmp/inductor-mapped-XXXXXX";
    int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
    write(content, std::ios::trunc);
  }
  void write(std::string_view content, std::ios::openmode mode = std::ios::app) const {
    std::ofstream out(path, std::ios::binary | mode);
    out << content;
  }
  ~TempFile() { std::remove(path.c_str()); }
};
} // namespace

TEST_CASE("MappedFile: maps a file's bytes") {
  TempFile file("hello\nworld\n");
  auto mapped = MappedFile::open(file.path);
  REQUIRE(mapped);
  CHECK(mapped->text() == "hello\nworld\n");
  CHECK(mapped->size() == 12);
  CHECK(mapped->path() == file.path);
}

TEST_CASE("MappedFile: empty file has empty text, and sees bytes written later") {
  TempFile file("");
  auto mapped = MappedFile::open(file.path);
  REQUIRE(mapped);
  CHECK(mapped->text().empty());
  auto unchanged = mapped->remap();
  REQUIRE(unchanged);
  CHECK_FALSE(*unchanged);
  file.write("abc");
  auto changed = mapped->remap();
  REQUIRE(changed);
  CHECK(*changed);
  CHECK(mapped->text() == "abc");
}

TEST_CASE("MappedFile: remap() picks up appended bytes") {
  TempFile file("one\n");
  auto mapped = MappedFile::open(file.path);
  REQUIRE(mapped);
  file.write("two\n");
  CHECK(mapped->text() == "one\n"); // Not before remap().
  auto changed = mapped->remap();
  REQUIRE(changed);
  CHECK(*changed);
  CHECK(mapped->text() == "one\ntwo\n");
  mapped->dropPages(0, mapped->size()); // Dropping pages keeps the contents readable.
  CHECK(mapped->text() == "one\ntwo\n");
}

TEST_CASE("MappedFile: errors for missing files and directories") {
  auto missing = MappedFile::open("/nonexistent/dir/x.log");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("/nonexistent/dir/x.log") != std::string::npos);
  auto dir = MappedFile::open("/tmp");
  REQUIRE_FALSE(dir);
  CHECK(dir.error().message.find("not a regular file") != std::string::npos);
}

TEST_CASE("MappedFile: moves keep the text; fromString owns its copy") {
  TempFile file("payload");
  auto mapped = MappedFile::open(file.path);
  REQUIRE(mapped);
  MappedFile moved = std::move(*mapped);
  CHECK(moved.text() == "payload");
  MappedFile small = MappedFile::fromString("short", "virtual.log");
  MappedFile other = std::move(small); // Small-string storage moves with the object.
  CHECK(other.text() == "short");
  CHECK(other.path() == "virtual.log");
  auto remapped = other.remap();
  REQUIRE(remapped);
  CHECK_FALSE(*remapped);
}

TEST_CASE("MappedFile: stamps tell a grown or replaced file from the mapped one") {
  TempFile file("one\n");
  auto mapped = MappedFile::open(file.path);
  REQUIRE(mapped);
  REQUIRE(mapped->stamp());
  CHECK(mapped->stamp()->size == 4);
  auto now = MappedFile::stampOf(file.path);
  REQUIRE(now);
  CHECK(*now == *mapped->stamp());

  file.write("two\n");
  auto grown = MappedFile::stampOf(file.path);
  REQUIRE(grown);
  CHECK(grown->size == 8);
  CHECK(grown->inode == mapped->stamp()->inode);
  CHECK_FALSE(*grown == *mapped->stamp());

  TempFile other("one\n");
  REQUIRE(std::rename(other.path.c_str(), file.path.c_str()) == 0);
  auto replaced = MappedFile::stampOf(file.path);
  REQUIRE(replaced);
  CHECK(replaced->inode != mapped->stamp()->inode);

  CHECK_FALSE(MappedFile::fromString("x").stamp());
  CHECK_FALSE(MappedFile::stampOf(file.path + ".missing"));
}

TEST_CASE("MappedFile: a file truncated while mapped reads zeros past the cut instead of SIGBUS") {
  // Finding 3 of issue 11: log rotation or a rerun writing the same file killed the server with SIGBUS.
  const std::string content(256 * 1024, 'x');
  TempFile file(content);
  auto mapped = MappedFile::open(file.path);
  REQUIRE(mapped);
  CHECK_FALSE(mapped->faulted());
  CHECK(mapped->state() == FileState::Unchanged);
  REQUIRE(::truncate(file.path.c_str(), 100) == 0);
  // A read of a page past the new end faults; the guard maps zeros there and the read goes on.
  volatile char far = mapped->text()[200 * 1024];
  CHECK(far == '\0');
  CHECK(mapped->faulted());
  CHECK(mapped->state() == FileState::Truncated);
  CHECK(mapped->text()[50] == 'x'); // The page holding the new end still maps the file.
  // Even after the file grows back to its old size, what was read past the cut is not trusted.
  file.write(std::string(300 * 1024, 'y'));
  CHECK(mapped->state() == FileState::Truncated);
}

TEST_CASE("MappedFile: state() sees a shrink before the pages are touched, and makes them safe") {
  TempFile file(std::string(64 * 1024, 'a'));
  auto mapped = MappedFile::open(file.path);
  REQUIRE(mapped);
  REQUIRE(::truncate(file.path.c_str(), 10) == 0);
  CHECK(mapped->state() == FileState::Truncated);
  CHECK(mapped->faulted());
  // No fault happens any more: the tail is zero pages.
  CHECK(mapped->text()[60 * 1024] == '\0');
}

TEST_CASE("MappedFile: state() of a file that grew, was rewritten, or was deleted") {
  TempFile grown("abc\n");
  auto a = MappedFile::open(grown.path);
  REQUIRE(a);
  grown.write("def\n");
  CHECK(a->state() == FileState::Changed);
  REQUIRE(a->remap());
  CHECK(a->state() == FileState::Unchanged);

  TempFile deleted("abc\n");
  auto b = MappedFile::open(deleted.path);
  REQUIRE(b);
  std::remove(deleted.path.c_str());
  CHECK(b->state() == FileState::Deleted);
  CHECK(b->text() == "abc\n"); // The mapping still holds the pages until it is unmapped.

  CHECK(MappedFile::fromString("abc").state() == FileState::Unchanged);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INDUCTOR_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define INDUCTOR_ASAN 1
#endif

// Under ASan the child's SIGBUS goes to ASan's handler, which writes a report that the sanitizer job counts
// as a failure: this test runs in the ordinary build only.
#ifndef INDUCTOR_ASAN
TEST_CASE("MappedFile: faults outside our mappings are not swallowed") {
  // The guard must not hide real bugs: a SIGBUS at an address no MappedFile maps still kills the process.
  // Checked in a child process, with a mapping of our own alive at the same time.
  TempFile file(std::string(8192, 'a'));
  auto mapped = MappedFile::open(file.path);
  REQUIRE(mapped);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    char name[] = "/tmp/inductor-sigbus-XXXXXX";
    int fd = ::mkstemp(name);
    if (fd < 0 || ::ftruncate(fd, 8192) != 0) ::_exit(2);
    void *p = ::mmap(nullptr, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED || ::ftruncate(fd, 0) != 0) ::_exit(3);
    ::unlink(name);
    volatile char c = static_cast<const char *>(p)[4096]; // Not ours: SIGBUS, as without the guard.
    (void)c;
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGBUS);
}
#endif
