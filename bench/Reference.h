// bench/Reference.h: the expected answers, from an in-process index of each original fixture log.
//
// Every unit of a workload is a rewritten copy of one fixture log (bench/Workload.h), so its right answers
// are those of the original log with `/tmp/work/` replaced by the unit's prefix. The reference index is built
// with index::Index::build over the single original log (no roots, so recorded paths stay as recorded), and
// the server's answers on the synthetic workload are checked against it: same origins (path and line) for
// definition, same number of launches for references, same lens counts, same artifact text.
//
// Artifacts are matched by the line of their output-code record: the server names a log-only artifact
// `inductor-trace:/<log base name>/<1-based record line>/<title>` (index/model/Index.cpp,
// Artifact::virtualName), and a unit's lines are the fixture's lines shifted by Unit::firstLine.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace inductor::bench {

/// A user source line, 1-based, with its path as recorded in the fixture (`/tmp/work/<case>/model.py`).
struct RefOrigin {
  std::string path;
  uint32_t line = 0;
  friend bool operator==(const RefOrigin &, const RefOrigin &) = default;
};

/// A position in output code where a request lands on a kernel (launch site or definition name).
struct RefPosition {
  uint32_t line = 0, column = 0;  ///< 0-based; column in the middle of the token (ASCII, so UTF-16 too).
  std::string token;              ///< The kernel name.
  std::vector<RefOrigin> origins; ///< What definition must answer, in order.
};

/// An output-code (or AOTI wrapper-code) artifact of a fixture log.
struct RefArtifact {
  uint32_t recordLine = 0; ///< 1-based line of its record in the fixture log.
  bool cpp = false;
  std::string text; ///< As the reference index serves it (recorded paths).
  std::vector<RefPosition> positions;
  size_t lenses = 0; ///< Code lenses textDocument/codeLens must return on it.
};

struct RefUserLine {
  std::string path;    ///< Recorded path.
  uint32_t line = 0;   ///< 1-based.
  size_t launches = 0; ///< What references on this line must count.
};

struct RefLog {
  std::map<uint32_t, RefArtifact> outputs; ///< By recordLine.
  std::vector<RefUserLine> userLines;
  /// Recorded path -> lenses on that file, for every file with origins (the bench asks about those it has
  /// locally: the fixture's model files, and library files of real-shaped workloads).
  std::map<std::string, size_t> lensesPerUserFile;
  /// Recorded path -> the lines the trace recorded in it (1-based line, text), in line order.
  std::map<std::string, std::vector<std::pair<uint32_t, std::string>>> recordedText;
  std::vector<std::string> kernelNames; ///< Distinct Triton/C++ kernel names (workspace/symbol).
};

/// Builds the reference of one fixture log.
RefLog buildReference(const std::string &logPath);

/// `path` with a leading "/tmp/work/" replaced by `prefix` (other paths unchanged).
std::string mapRecordedPath(const std::string &path, const std::string &prefix);

} // namespace inductor::bench
