#include "index/model/TextQueries.h"

#include "index/files/PathResolver.h"
#include "index/support/TextLines.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace inductor::index {

std::optional<size_t> recordedLineIndex(const std::vector<RecordedLine> &recorded, const Origin &o) {
  auto key = std::make_tuple(o.line, std::string_view(o.code), std::string_view(o.function));
  // Views, not copies, of the recorded strings: this runs for every launch of a file's lenses.
  auto keyOf = [](const RecordedLine &r) {
    return std::make_tuple(r.line, std::string_view(r.code), std::string_view(r.function));
  };
  auto it = std::lower_bound(recorded.begin(), recorded.end(), key,
                             [&](const RecordedLine &r, const auto &k) { return keyOf(r) < k; });
  if (it != recorded.end() && keyOf(*it) == key) return static_cast<size_t>(it - recorded.begin());
  // A place recorded without its text (a guard's or a def line's `path:line`): the same line recorded with
  // text elsewhere in the trace moves with it.
  if (o.code.empty())
    for (auto same = std::lower_bound(recorded.begin(), recorded.end(), o.line,
                                      [](const RecordedLine &r, uint32_t line) { return r.line < line; });
         same != recorded.end() && same->line == o.line; ++same)
      if (!same->code.empty()) return static_cast<size_t>(same - recorded.begin());
  return std::nullopt;
}

UserLinesNow userLinesNow(const Index &index, const std::string &path,
                          const std::vector<Relocation> *relocated, std::optional<uint32_t> only) {
  UserLinesNow out;
  const auto &recorded = index.recordedLines(path);
  // A line of a many-rank trace has thousands of launches, each with origins in a few files, and the same
  // few (line, code, function) for this line: a path is normalised, and a recorded line relocated, once.
  std::unordered_map<std::string_view, bool> isThisFile;
  auto inThisFile = [&](const std::string &p) {
    if (p == path) return true; // Most origins of this file's lines (no hashing).
    auto [it, fresh] = isThisFile.try_emplace(p, false);
    if (fresh) it->second = p == path || normalizePath(p) == path;
    return it->second;
  };
  // Lines now that more than one recorded line (or a launch's two origins) went to may hold a launch twice:
  // deduplicated at the end; every other line gets each launch once (a user line's launches are distinct).
  std::set<uint32_t> mixed;
  std::unordered_map<uint32_t, const UserLine *> lastSource;
  // One line asked for: only the recorded lines that are at it now (or are it, unrelocated) can give it
  // launches, so the others are not looked at (on a many-rank trace, a few thousand launches rather than
  // every launch from the file).
  std::unordered_set<uint32_t> from;
  if (only) {
    from.insert(*only);
    if (relocated)
      for (size_t k = 0; k < recorded.size() && k < relocated->size(); ++k)
        if ((*relocated)[k].found() && (*relocated)[k].line == *only) from.insert(recorded[k].line);
  }
  for (const UserLine &ul : index.userLines(path)) {
    if (only && !from.count(ul.line)) continue;
    std::vector<std::pair<const Origin *, std::optional<uint32_t>>> nowOf; // Per distinct text.
    auto lineNow = [&](const Origin &o) -> std::optional<uint32_t> {
      for (const auto &[seen, now] : nowOf)
        if (seen->code == o.code && seen->function == o.function) return now;
      std::optional<uint32_t> now = ul.line;
      if (relocated)
        if (std::optional<size_t> k = recordedLineIndex(recorded, o); k && *k < relocated->size())
          now = (*relocated)[*k].found() ? std::optional<uint32_t>((*relocated)[*k].line) : std::nullopt;
      nowOf.emplace_back(&o, now);
      return now;
    };
    for (LaunchRef ref : ul.launches) {
      std::optional<uint32_t> first; // The line this launch went to.
      for (const Origin &o : index.launch(ref).origins) {
        if (o.line != ul.line || !inThisFile(o.path)) continue;
        std::optional<uint32_t> now = lineNow(o);
        if (!now || (only && *now != *only) || now == first) continue;
        if (first)
          mixed.insert(*now);
        else
          first = now;
        out[*now].push_back(ref);
        auto [it, fresh] = lastSource.try_emplace(*now, &ul);
        if (!fresh && it->second != &ul) {
          mixed.insert(*now);
          it->second = &ul;
        }
      }
    }
  }
  for (uint32_t line : mixed) {
    std::vector<LaunchRef> &refs = out[line];
    std::unordered_set<uint64_t> seen;
    std::erase_if(
        refs, [&](LaunchRef r) { return !seen.insert(uint64_t{r.artifact.value} << 32 | r.index).second; });
  }
  return out;
}

namespace {

/// The (possibly dotted) identifier around `column`: [begin, end) byte columns.
std::optional<std::pair<size_t, size_t>> identifierAround(std::string_view line, size_t column) {
  auto ident = [](char c) { return isIdentChar(c) || c == '.'; };
  if (column > line.size()) return std::nullopt;
  size_t b = column, e = column;
  while (b > 0 && ident(line[b - 1]))
    --b;
  while (e < line.size() && ident(line[e]))
    ++e;
  while (b < e && line[b] == '.')
    ++b;
  while (e > b && line[e - 1] == '.')
    --e;
  if (b == e || !isIdentStart(line[b])) return std::nullopt;
  return std::make_pair(b, e);
}

} // namespace

SymbolAt symbolAtColumn(const Index &index, ArtifactId id, uint32_t lineNumber, size_t column,
                        std::string_view line, const OutputCodeAnalysis *edited) {
  const Artifact &artifact = index.artifact(id);
  if (edited) {
    // Edited generated code: find the token in the current text, then the same launch or kernel in the index.
    SymbolAt s;
    s.artifact = id;
    for (size_t i = 0; i < edited->launches.size(); ++i) {
      const KernelLaunch &e = edited->launches[i];
      if (e.line != lineNumber || column < e.column || column > std::max(e.endColumn, e.column)) continue;
      size_t n =
          occurrenceOfKey(edited->launches.size(), i, [&](size_t j) { return edited->launches[j].key(); });
      for (uint32_t k = 0; k < artifact.launches.size(); ++k)
        if (artifact.launches[k].site.key() == e.key() && n-- == 0) {
          s.kind = SymbolAt::Kind::Launch;
          s.index = k;
          s.line = e.line;
          s.column = e.column;
          s.endColumn = e.endColumn;
          return s;
        }
    }
    for (const KernelDefinition &d : edited->kernels) {
      bool atName =
          d.nameLine == lineNumber && column >= d.nameColumn && column <= d.nameColumn + d.name.size();
      bool atDef = d.defLine && d.defColumn && *d.defLine == lineNumber && column >= *d.defColumn &&
                   column <= *d.defColumn + d.name.size();
      if (!atName && !atDef) continue;
      if (const KernelDefinition *k = artifact.code.findKernel(d.name)) {
        s.kind = SymbolAt::Kind::KernelDefinition;
        s.index = static_cast<uint32_t>(k - artifact.code.kernels.data());
        s.line = lineNumber;
        s.column = atName ? d.nameColumn : *d.defColumn;
        s.endColumn = s.column + static_cast<uint32_t>(d.name.size());
        return s;
      }
    }
    return s; // Nothing generated at this position of the edited text.
  }
  SymbolAt s = index.symbolAt(id, lineNumber, static_cast<uint32_t>(column));
  if (s.kind != SymbolAt::Kind::None) return s;
  auto range = identifierAround(line, column);
  if (!range) return s;
  std::string word(line.substr(range->first, range->second - range->first));
  // `call_triton_x` helpers and `kernels_.triton_x` handles in AOTI wrapper code name the kernel too.
  for (std::string_view prefix : {"call_", "kernels_."})
    if (word.rfind(prefix, 0) == 0 && word.size() > prefix.size()) word = word.substr(prefix.size());
  const Artifact &a = index.artifact(id);
  s.line = lineNumber;
  s.column = static_cast<uint32_t>(range->first);
  s.endColumn = static_cast<uint32_t>(range->second);
  if (const KernelDefinition *d = a.code.findKernel(word)) {
    s.kind = SymbolAt::Kind::KernelDefinition;
    s.index = static_cast<uint32_t>(d - a.code.kernels.data());
    return s;
  }
  // "# [Provenance debug handles] extern_kernels.mm:8": the launch on the next lines with that handle.
  size_t colon = line.find(':', range->second);
  std::optional<int> handle;
  if (colon == range->second) {
    int v = 0;
    size_t i = colon + 1;
    bool digits = false;
    while (i < line.size() && isDigit(line[i])) {
      v = v * 10 + (line[i++] - '0');
      digits = true;
    }
    if (digits) handle = v;
  }
  for (uint32_t i = 0; i < a.launches.size(); ++i) {
    const KernelLaunch &site = a.launches[i].site;
    if (site.kernel == word && (!handle || site.debugHandle == handle) && site.line >= lineNumber) {
      s.kind = SymbolAt::Kind::Launch;
      s.index = i;
      return s;
    }
  }
  for (uint32_t i = 0; i < a.graphNodes.size(); ++i)
    if (a.graphNodes[i].name == word) {
      s.kind = SymbolAt::Kind::GraphNode;
      s.index = i;
      return s;
    }
  s.kind = SymbolAt::Kind::None;
  return s;
}

} // namespace inductor::index
