// index/analysis/Relocation.h: where a line recorded by a trace is in the current text of its source file.
//
// Users edit their model after taking a trace, and the library installed on their laptop is rarely the exact
// version the cluster ran. Every origin carries the text the trace recorded for its line (stack traces and
// graph dumps print it), so a recorded line is found again by its text, never trusted by number alone:
//  1. the line at the recorded number still holds the recorded text (compared trimmed), inside a definition
//  of
//     the recorded function when the file still defines it: Unchanged;
//  2. else the lines holding that text are the candidates. When the file still defines the recorded function
//     (`def NAME` / `async def NAME`, any class), only candidates inside such a definition count: a statement
//     found in another function is another statement. Among the candidates, the one nearest to where the line
//     is expected wins: the recorded number shifted as much as the nearest recorded lines that were found
//     without ambiguity (unchanged, or a single candidate) moved, kept between those anchors when possible.
//     That is the "nearest matching line" of the issue, made robust for files where the same statement
//     appears in many functions (every `forward` of a transformers model). Moved;
//  3. no candidate: NotFound. The caller says so ("changed since the trace: line 17 `q, k, v = …` not found")
//     and gives no location: never a silent wrong line.
// A recorded line without text (some graph dumps) cannot be checked: Unverified, at the recorded number when
// the file still has that line, else NotFound.
//
// Lines here are 1-based, as the trace records them. Pure functions; nothing is kept. Cost: one pass over the
// current lines plus a hash lookup per recorded line.
#pragma once

#include "index/support/TextLines.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace inductor::index {

/// A line as the trace recorded it.
struct RecordedLine {
  uint32_t line = 0;         ///< 1-based.
  std::string_view code;     ///< The recorded source text (trimmed or not); empty when none was recorded.
  std::string_view function; ///< The enclosing function as recorded (`forward`, `<module>`), may be empty.
};

struct Relocation {
  enum class Status {
    Unchanged,  ///< The recorded line still holds the recorded text.
    Moved,      ///< The text was found at another line (`line`).
    NotFound,   ///< No line holds the recorded text (or, without text, the file is shorter than the line).
    Unverified, ///< No recorded text to check: `line` is the recorded line.
  } status = Status::NotFound;
  uint32_t line = 0; ///< 1-based current line; 0 when NotFound.
  /// Whether the answer is a line of the current text (Unchanged, Moved or Unverified).
  bool found() const { return status != Status::NotFound; }
};

/// Relocates every recorded line of one file at once (anchors found for some help place the others). The
/// result is parallel to `recorded`. `current` is the file's text now (see TextLines.h).
std::vector<Relocation> relocateLines(const TextLines &current, const std::vector<RecordedLine> &recorded);

/// One line alone: relocateLines with no other anchors.
Relocation relocateLine(const TextLines &current, const RecordedLine &recorded);

} // namespace inductor::index
