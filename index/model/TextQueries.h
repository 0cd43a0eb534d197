// index/model/TextQueries.h: queries of an index against a text as it is now rather than as the trace
// recorded it: which launches come from each line of a user file whose recorded lines moved
// (index/analysis/Relocation.h), and what is under a byte column of generated code the user may have edited.
// Pure functions of the index and their arguments, safe from any thread (the index is immutable). Lines of
// user files are 1-based; lines of generated code 0-based; columns are UTF-8 bytes, as everywhere in index/.
// Stage: the model and its queries (index/model), beside Index.h and Counts.h.
#pragma once

#include "index/analysis/OutputCode.h"
#include "index/analysis/Relocation.h"
#include "index/model/Index.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::index {

/// The launches whose origins are on each line (1-based) of a user file now: the file's lines of a launch.
using UserLinesNow = std::map<uint32_t, std::vector<LaunchRef>>;

/// The position of `origin` in `recorded` (Index::recordedLines of its file, sorted by line, code, function),
/// if there. A place recorded without its text (a guard's or a def line's `path:line`) takes the position of
/// the same line recorded with text elsewhere in the trace, so that it moves with it.
std::optional<size_t> recordedLineIndex(const std::vector<RecordedLine> &recorded, const Origin &origin);

/// The launches whose origins are on each line of the user file `path` (normalized, as Index::userLines
/// keys it) as it is now: `relocated`, parallel to Index::recordedLines(path), says where each recorded line
/// is now (index/analysis/Relocation.h); recorded lines that are no longer in the text are left out, moved
/// ones are counted where they are now. Null `relocated` (the text could not be read): the recorded lines.
/// With `only`, just that line is filled. Launches of a line are in index order of their first recorded line,
/// each once.
UserLinesNow userLinesNow(const Index &index, const std::string &path,
                          const std::vector<Relocation> *relocated,
                          std::optional<uint32_t> only = std::nullopt);

/// Which occurrence of its key item `i` is among the first `count` items (`key(j)` for j < count): the n-th
/// launch of `kernel:handle` in an edited text is the n-th in the indexed one.
template <class Key> size_t occurrenceOfKey(size_t count, size_t i, Key key) {
  size_t n = 0;
  for (size_t j = 0; j < i && j < count; ++j)
    n += key(j) == key(i);
  return n;
}

/// The symbol at (`line`, byte `column`) of artifact `id`, whose text there is `lineText`. With `edited` (the
/// analysis of an edited text of the artifact): the token in that text, then the same launch (same key, same
/// occurrence) or kernel in the index; None when the edit holds nothing generated there. Otherwise the
/// index's exact token, falling back to the identifier under the column (a kernel named in a comment, a
/// `call_`/`kernels_.` handle in AOTI wrapper code, `extern_kernels.mm:8` naming a launch by debug handle, a
/// graph node used as an argument).
SymbolAt symbolAtColumn(const Index &index, ArtifactId id, uint32_t line, size_t column,
                        std::string_view lineText, const OutputCodeAnalysis *edited = nullptr);

} // namespace inductor::index
