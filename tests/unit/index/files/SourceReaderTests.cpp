// Tests for index/files/SourceReader.h: the policy and the size cap are applied and said, each version of a
// file is read once, the cache is bounded.
#include "index/files/SourceReader.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <sys/stat.h>
#include <thread>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

TEST_CASE("SourceReader: reads inside the roots once per version, and says why it did not read") {
  TempDir ws, outside;
  std::string model = ws.write("model.py", "import torch\n\nx = 1\n");
  std::string secret = outside.write("secret.py", "password = 1\n");
  std::string big = ws.write("big.py", std::string(2048, 'x'));
  fs::create_symlink(secret, ws.path + "/link.py");
  fs::create_directories(ws.path + "/dir.py");
  ::mkfifo((ws.path + "/fifo.py").c_str(), 0600);

  SourceReaderOptions options;
  options.maxFileBytes = 1024;
  SourceReader reader(ReadPolicy({ws.path}), options);
  SourceRead r = reader.read(model);
  REQUIRE(r.ok());
  CHECK(r.reason().empty());
  CHECK(r.file->lines.size() == 3);
  CHECK(r.file->lines[2] == "x = 1");
  CHECK(reader.read(ws.path + "/./model.py").file == r.file); // Cached, by normalized path.
  CHECK(reader.filesRead() == 1);

  CHECK(reader.read(secret).status == SourceStatus::Refused);
  CHECK(reader.read(secret).reason() == "outside the workspace");
  CHECK(reader.read(ws.path + "/link.py").status == SourceStatus::Refused); // Judged by its target.
  CHECK(reader.read(big).status == SourceStatus::TooLarge);
  CHECK(reader.read(big).reason() == "larger than 1 KB");
  CHECK(SourceReader(ReadPolicy({ws.path}), {size_t{16} << 20}).read(big).ok());
  CHECK(reader.read(ws.path + "/missing.py").status == SourceStatus::Missing);
  CHECK(reader.read(ws.path + "/missing.py").reason() == "not found here");
  CHECK(reader.read(ws.path + "/dir.py").status == SourceStatus::NotAFile);
  CHECK(reader.read(ws.path + "/fifo.py").status == SourceStatus::NotAFile); // Without blocking.
  CHECK(reader.read("").status == SourceStatus::Missing);
  CHECK(reader.filesRead() == 1);

  // A new version (size or modification time changed) is read again; the old one stays valid for its holder.
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ws.write("model.py", "import torch\n# edited\n\nx = 1\n");
  SourceRead again = reader.read(model);
  REQUIRE(again.ok());
  CHECK(again.file != r.file);
  CHECK(again.file->lines.size() == 4);
  CHECK(r.file->lines.size() == 3);
  CHECK(reader.filesRead() == 2);
  CHECK(SourceReader(ReadPolicy::allowAll()).read(secret).ok());
}

TEST_CASE("SourceReader: the cache is bounded, least recently used out; concurrent readers agree") {
  TempDir ws;
  std::vector<std::string> files;
  files.reserve(8);
  for (int i = 0; i < 8; ++i)
    files.push_back(ws.write("f" + std::to_string(i) + ".py", std::string(100, 'a' + i) + "\n"));
  SourceReaderOptions options;
  options.maxCacheBytes = 350; // Three files.
  SourceReader reader(ReadPolicy({ws.path}), options);
  for (const std::string &f : files)
    REQUIRE(reader.read(f).ok());
  CHECK(reader.filesRead() == 8);
  CHECK(reader.read(files[7]).ok());
  CHECK(reader.filesRead() == 8); // Still cached.
  CHECK(reader.read(files[0]).ok());
  CHECK(reader.filesRead() == 9); // Evicted, read again.

  SourceReader shared(ReadPolicy({ws.path}));
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 50; ++k)
        for (const std::string &f : files)
          if (shared.read(f).file->text.size() == 101) ++ok;
    });
  for (auto &t : threads)
    t.join();
  CHECK(ok == 4 * 50 * 8);
}
