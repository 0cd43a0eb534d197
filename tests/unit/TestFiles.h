// Files and directories for the unit tests: one copy of what every test file needed (read a file whole, a
// temporary directory that is removed with what it holds, find a file among the fixtures, read a trace's
// payloads without the reader under test).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::test {

/// The bytes of `path`, whole (empty when it cannot be read: the test's checks then say what is missing).
inline std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The shared fixtures directory (`../shared/fixtures`, INDUCTOR_FIXTURES_DIR of the test targets), as
/// configured: it may hold `..`.
inline std::filesystem::path fixturesDir() {
  return std::filesystem::path(INDUCTOR_FIXTURES_DIR);
}

/// The process's peak resident set (VmHWM), in bytes, after trying to reset it to the current RSS when
/// `reset`
/// (`echo 5 > /proc/self/clear_refs`): a test then measures its own peak, not an earlier test's. 0 when
/// /proc cannot be read.
inline uint64_t peakRss(bool reset) {
  if (reset) std::ofstream("/proc/self/clear_refs") << "5";
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

/// The first regular file under `dir` (recursively, in directory order) named `name`; empty if there is none.
/// Throws std::filesystem::filesystem_error when `dir` cannot be listed, which fails the test.
inline std::filesystem::path findUnder(const std::filesystem::path &dir, std::string_view name) {
  for (const auto &e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() == name) return e.path();
  return {};
}

/// The first directory under `dir` (recursively, in directory order) named `name`; empty if there is none.
/// Throws as findUnder does.
inline std::filesystem::path findDir(const std::filesystem::path &dir, std::string_view name) {
  for (const auto &e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_directory() && e.path().filename() == name) return e.path();
  return {};
}

/// The payloads of the TORCH_TRACE records whose one-line envelope mentions `"name"` (an artifact name or a
/// record kind): the lines after the envelope that start with a tab, without the tab, in log order. A reader
/// of the tests' own, independent of the one under test (index/TraceLog); empty when the log cannot be read.
inline std::vector<std::string> tracePayloads(const std::filesystem::path &log, std::string_view name) {
  std::vector<std::string> out;
  std::ifstream in(log, std::ios::binary);
  std::string line;
  std::string quoted = "\"" + std::string(name) + "\"";
  bool collecting = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '\t') {
      if (collecting) out.back().append(line, 1).push_back('\n');
      continue;
    }
    collecting = line.find(quoted) != std::string::npos && line.find("\"has_payload\"") != std::string::npos;
    if (collecting) out.emplace_back();
  }
  return out;
}

/// A new directory under the system's temporary directory, `<prefix>-XXXXXX` (mkdtemp), removed with what it
/// holds when this goes out of scope. `path` is canonical (no symbolic link in it), as the index makes the
/// paths it compares. Failing to make it fails the test.
class TempDir {
public:
  explicit TempDir(std::string_view prefix = "inductor-test") : path(make(prefix)) {}
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }

  /// Writes `text` to `path/rel`, making its directories; the file's full path.
  std::string write(const std::string &rel, std::string_view text) const {
    std::filesystem::path p = std::filesystem::path(path) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  const std::string path;

private:
  static std::string make(std::string_view prefix) {
    std::string name = (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    REQUIRE(::mkdtemp(name.data()) != nullptr);
    std::error_code ec;
    std::filesystem::path canonical = std::filesystem::canonical(name, ec);
    return ec ? name : canonical.string();
  }
};

} // namespace inductor::test
