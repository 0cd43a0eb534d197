// Tests for index/trace/MappedFile.h: mapping, empty files, missing files, growth seen by remap(), moves, and
// files truncated or deleted while mapped (the SIGBUS guard and state()); openInputFile refusing FIFOs and
// devices without blocking.
#include "index/trace/MappedFile.h"

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
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

namespace {

/// Runs `open` on a thread and waits for it; if it has not returned after a minute (it blocks in open(2) on
/// the FIFO at `fifo`, as the code before issue 33 did), opens the FIFO's write end to release it and fails.
/// The wait is a guard that keeps a failing test from hanging the suite, not a speed assertion.
template <typename F> void expectPromptReturn(const std::string &fifo, F open) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> returned = done->get_future();
  std::thread reader([&open, done] {
    open();
    done->set_value();
  });
  if (returned.wait_for(std::chrono::minutes(1)) != std::future_status::ready) {
    FAIL_CHECK("opening the FIFO " << fifo << " blocked");
    int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); // A reader waits, so this succeeds.
    reader.join();
    if (writer >= 0) ::close(writer);
    return;
  }
  reader.join();
}

/// A FIFO under /tmp, removed when the test ends.
struct TempFifo {
  std::string dir, path;
  TempFifo() {
    char name[] = "/tmp/inductor-fifo-XXXXXX";
    REQUIRE(::mkdtemp(name) != nullptr);
    dir = name;
    path = dir + "/profile.json";
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  }
  ~TempFifo() {
    ::unlink(path.c_str());
    ::rmdir(dir.c_str());
  }
};

} // namespace

TEST_CASE("openInputFile/MappedFile: a FIFO is refused at once, with its kind named (issue 33)") {
  // Finding 3 of issue 33: MappedFile::open opened without O_NONBLOCK, so a FIFO named as a profile or run
  // log waited for a writer for ever and the index build never ended.
  TempFifo fifo;
  std::string mapped, opened;
  InputFileProblem problem = InputFileProblem::None;
  expectPromptReturn(fifo.path, [&] {
    auto file = MappedFile::open(fifo.path);
    mapped = file ? "opened" : file.error().message;
    auto input = openInputFile(fifo.path, &problem);
    if (input) ::close(input->fd);
    opened = input ? "opened" : input.error().message;
  });
  CHECK(mapped == "not a regular file (a FIFO): " + fifo.path);
  CHECK(opened == mapped);
  CHECK(problem == InputFileProblem::NotRegular);
}

TEST_CASE("openInputFile: regular files only; devices, directories and missing files say what they are") {
  TempFile file("abc");
  auto input = openInputFile(file.path);
  REQUIRE(input);
  CHECK(input->size == 3);
  CHECK((::fcntl(input->fd, F_GETFD) & FD_CLOEXEC) != 0); // Never inherited by a child.
  ::close(input->fd);

  InputFileProblem problem = InputFileProblem::None;
  auto device = openInputFile("/dev/null", &problem);
  REQUIRE_FALSE(device);
  CHECK(device.error().message == "not a regular file (a character device): /dev/null");
  CHECK(problem == InputFileProblem::NotRegular);
  auto dir = openInputFile("/tmp", &problem);
  REQUIRE_FALSE(dir);
  CHECK(dir.error().message == "not a regular file (a directory): /tmp");
  auto missing = openInputFile("/tmp/inductor-no-such-file-33", &problem);
  REQUIRE_FALSE(missing);
  CHECK(problem == InputFileProblem::Missing);
  CHECK(missing.error().message.find("cannot open /tmp/inductor-no-such-file-33") == 0);
}
