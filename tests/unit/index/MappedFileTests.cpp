// Tests for index/MappedFile.h: mapping, empty files, missing files, growth seen by remap(), moves.
#include "index/MappedFile.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
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
