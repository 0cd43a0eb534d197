#include "index/analysis/GraphDump.h"

#include <array>
#include <charconv>
#include <unordered_map>

namespace inductor::index {
namespace {

constexpr size_t npos = std::string_view::npos;

// `PATH:LINE in FUNCTION, code: CODE` (the text after `File: `). The path may itself contain ':' or '#'
// (`aot#link-tree`), so the line number is the last `:<digits> in ` before `, code: `.
SourceComment parseFileComment(std::string_view text, uint32_t commentLine) {
  SourceComment c;
  c.commentLine = commentLine;
  std::string_view head = text;
  size_t code = text.find(", code: ");
  if (code != npos) {
    c.code = std::string(trim(text.substr(code + 8)));
    head = text.substr(0, code);
  }
  size_t in = head.rfind(" in ");
  std::string_view location = head;
  if (in != npos) {
    c.function = std::string(trim(head.substr(in + 4)));
    location = head.substr(0, in);
  }
  size_t colon = location.rfind(':');
  if (colon != npos && colon + 1 < location.size()) {
    std::string_view digits = location.substr(colon + 1);
    uint32_t n = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && p == digits.data() + digits.size()) {
      c.line = n;
      location = location.substr(0, colon);
    }
  }
  c.file = std::string(trim(location));
  return c;
}

} // namespace

std::optional<FileCommentAt> findFileComment(std::string_view lineText) {
  size_t hash = lineText.find('#');
  if (hash == npos) return std::nullopt;
  size_t file = lineText.find("File: ", hash);
  if (file == npos || (file > hash + 1 && lineText[file - 1] != ' ')) return std::nullopt;
  size_t start = file + 6;
  while (start < lineText.size() && lineText[start] == ' ')
    ++start;
  std::string_view text = lineText.substr(start);
  FileCommentAt at;
  at.comment = parseFileComment(text, 0);
  if (at.comment.file.empty()) return std::nullopt;
  // PATH:LINE ends where ` in FUNCTION` or `, code: ` begins (the same cut parseFileComment makes).
  std::string_view head = text.substr(0, std::min(text.find(", code: "), text.size()));
  size_t in = head.rfind(" in ");
  if (in != npos) head = head.substr(0, in);
  while (!head.empty() && head.back() == ' ')
    head.remove_suffix(1);
  at.begin = static_cast<uint32_t>(start);
  at.end = static_cast<uint32_t>(start + head.size());
  return at;
}

namespace {

// Collects the nodes of one analysis with their names and targets in one text (GraphDumpAnalysis::names);
// the views are made once that text no longer grows.
struct NodeBuilder {
  GraphDumpAnalysis &out;
  std::string text;
  std::vector<std::array<uint32_t, 4>> spans; // Per node: name offset, length; target offset, length.
  std::unordered_map<std::string_view, uint32_t> targets; // Views of the input lines -> offset in `text`.

  void add(GraphNodeDef node, std::string_view name, std::string_view target) {
    auto offset = static_cast<uint32_t>(text.size());
    text += name;
    uint32_t targetOffset = 0;
    if (!target.empty()) {
      auto [it, fresh] = targets.try_emplace(target, static_cast<uint32_t>(text.size()));
      if (fresh) text += target;
      targetOffset = it->second;
    }
    spans.push_back(
        {offset, static_cast<uint32_t>(name.size()), targetOffset, static_cast<uint32_t>(target.size())});
    out.nodes.push_back(node);
  }

  void finish() {
    text.shrink_to_fit();
    auto names = std::make_unique<const std::string>(std::move(text));
    for (size_t i = 0; i < out.nodes.size(); ++i) {
      const auto &[n, nl, t, tl] = spans[i];
      out.nodes[i].name = std::string_view(*names).substr(n, nl);
      out.nodes[i].target = std::string_view(*names).substr(t, tl);
    }
    out.names = std::move(names);
  }
};

// Splits the parameter text of `def forward(...)` starting at `pos` of `line` and adds a node per parameter
// (except `self`). Commas inside quotes or brackets (`"f32[64, 256]"`) do not split. Stops at the `)` closing
// the list or at a `#` comment; returns true if the closing `)` was found.
bool addParameters(std::string_view line, size_t pos, uint32_t lineNo, bool nested, NodeBuilder &out) {
  int depth = 0;
  bool expectName = true;
  CodeChars code(line, pos);
  for (size_t i = code.next(); i != npos; i = code.next()) {
    char c = line[i];
    if (c == '#' && depth == 0) return false;
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return c == ')';
      --depth;
      continue;
    }
    if (depth > 0) continue;
    if (c == ',') {
      expectName = true;
      continue;
    }
    if (expectName && c != ' ' && c != '*' && c != '\t') {
      expectName = false;
      size_t len = identLength(line, i);
      if (!len) continue;
      std::string_view name = line.substr(i, len);
      if (name != "self") {
        GraphNodeDef node;
        node.line = lineNo;
        node.column = static_cast<uint32_t>(i);
        node.nested = nested;
        out.add(node, name, {});
      }
      code.seek(i + len);
    }
  }
  return false;
}

} // namespace

const GraphNodeDef *GraphDumpAnalysis::findNode(std::string_view name) const {
  const GraphNodeDef *nestedMatch = nullptr;
  for (const GraphNodeDef &n : nodes) {
    if (n.name != name) continue;
    if (!n.nested) return &n;
    if (!nestedMatch) nestedMatch = &n;
  }
  return nestedMatch;
}

const SourceComment *GraphDumpAnalysis::originOf(const GraphNodeDef &node) const {
  if (!node.origin || *node.origin >= origins.size()) return nullptr;
  return &origins[*node.origin];
}

GraphDumpAnalysis analyzeGraphDump(const TextLines &lines) {
  GraphDumpAnalysis out;
  NodeBuilder nodes{out, {}, {}, {}};
  // Indentation of the current `def` line, if we are inside a function body.
  std::optional<uint32_t> defIndent;
  bool nested = false;
  bool inParameters = false; // Inside a multi-line `def forward(` parameter list.
  std::optional<uint32_t> origin;

  for (uint32_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    uint32_t ind = indentOf(line);
    std::string_view rest = line.substr(ind);
    if (rest.empty()) continue;
    if (inParameters) {
      if (rest[0] == ')') {
        inParameters = false;
        continue;
      }
      if (rest[0] == '#') continue;
      if (addParameters(line, ind, i, nested, nodes)) inParameters = false;
      continue;
    }
    if (rest.starts_with("class ")) {
      defIndent.reset();
      nested = ind > 0;
      origin.reset();
      continue;
    }
    if (rest.starts_with("def ")) {
      defIndent = ind;
      origin.reset();
      size_t open = rest.find('(');
      if (open != npos && rest.starts_with("def forward("))
        inParameters = !addParameters(line, ind + open + 1, i, nested, nodes);
      continue;
    }
    if (!defIndent || ind <= *defIndent) continue;
    if (rest[0] == '#') {
      std::string_view body = trim(rest.substr(1));
      size_t file = body.find("File: ");
      if (file != npos && (file == 0 || body[file - 1] == ' ')) {
        out.origins.push_back(parseFileComment(body.substr(file + 6), i));
        origin = static_cast<uint32_t>(out.origins.size() - 1);
      } else if (body.empty() || body.find("No stacktrace found for following nodes") != npos) {
        // torch/fx/graph.py prints an empty `# ` when a stack trace exists but cannot be summarized.
        origin.reset();
      }
      continue;
    }
    size_t len = identLength(rest, 0);
    if (!len) continue;
    std::string_view name = rest.substr(0, len);
    if (name == "return" || name == "pass" || name == "del") continue;
    size_t p = len;
    bool annotated = false;
    if (p < rest.size() && rest[p] == ':') {
      annotated = true;
      // Skip the annotation: a quoted type string, or up to ` = ` / a comment.
      ++p;
      while (p < rest.size() && rest[p] == ' ')
        ++p;
      if (p < rest.size() && (rest[p] == '"' || rest[p] == '\'')) {
        size_t close = rest.find(rest[p], p + 1);
        p = close == npos ? rest.size() : close + 1;
      } else {
        size_t eq = rest.find(" = ", p);
        p = eq == npos ? rest.size() : eq;
      }
    }
    while (p < rest.size() && rest[p] == ' ')
      ++p;
    GraphNodeDef node;
    std::string_view target;
    if (p < rest.size() && rest[p] == '=' && (p + 1 >= rest.size() || rest[p + 1] != '=')) {
      ++p;
      while (p < rest.size() && rest[p] == ' ')
        ++p;
      size_t callee = dottedLength(rest, p);
      if (callee && p + callee < rest.size() && rest[p + callee] == '(') target = rest.substr(p, callee);
      node.origin = origin;
    } else if (!annotated || (p < rest.size() && rest[p] != '#')) {
      // Neither `NAME = ...` nor `NAME: "T"  # comment`: a statement that defines no node (tuple unpacking,
      // an expression).
      continue;
    }
    node.line = i;
    node.column = ind;
    node.nested = nested;
    nodes.add(node, name, target);
  }
  nodes.finish();
  // Kept for the index's lifetime: without the slack of growth (a large graph's was up to a third).
  out.nodes.shrink_to_fit();
  out.origins.shrink_to_fit();
  return out;
}

std::optional<IdentifierAt> identifierAt(std::string_view lineText, uint32_t line, uint32_t column,
                                         bool dotted) {
  if (column > lineText.size()) return std::nullopt;
  size_t pos = column;
  if (pos == lineText.size() || !isIdentChar(lineText[pos])) {
    // A caret right after the word.
    if (pos == 0 || !isIdentChar(lineText[pos - 1])) return std::nullopt;
    --pos;
  }
  auto partOfName = [&](size_t i) {
    if (isIdentChar(lineText[i])) return true;
    // A dot joins two identifier characters in a dotted name.
    return dotted && lineText[i] == '.' && i > 0 && i + 1 < lineText.size() && isIdentChar(lineText[i - 1]) &&
           isIdentStart(lineText[i + 1]);
  };
  size_t start = pos, end = pos + 1;
  while (start > 0 && partOfName(start - 1))
    --start;
  while (end < lineText.size() && partOfName(end))
    ++end;
  // Components must not start with a digit (`1.5`, `x.0` are not dotted names).
  if (!isIdentStart(lineText[start])) return std::nullopt;
  if (dotted) {
    for (size_t i = start; i < end; ++i)
      if (lineText[i] == '.' && !isIdentStart(lineText[i + 1])) return std::nullopt;
  }
  IdentifierAt id;
  id.text = std::string(lineText.substr(start, end - start));
  id.line = line;
  id.startColumn = static_cast<uint32_t>(start);
  id.endColumn = static_cast<uint32_t>(end);
  return id;
}

} // namespace inductor::index
