#include "index/analysis/PythonSyntax.h"

#include <tree_sitter/api.h>

#include <cstring>

extern "C" const TSLanguage *tree_sitter_python();

namespace inductor::index {
namespace {

struct ParserDeleter {
  void operator()(TSParser *p) const { ts_parser_delete(p); }
};

bool typeIs(TSNode n, const char *type) {
  return std::strcmp(ts_node_type(n), type) == 0;
}

// The `block` child of a compound statement or clause, if any.
std::optional<TSNode> blockChild(TSNode n) {
  uint32_t count = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode c = ts_node_named_child(n, i);
    if (typeIs(c, "block")) return c;
  }
  return std::nullopt;
}

bool isSimpleStatement(std::string_view type) {
  return (type.ends_with("_statement") && type != "if_statement" && type != "for_statement" &&
          type != "while_statement" && type != "try_statement" && type != "with_statement" &&
          type != "match_statement") ||
         type == "decorator";
}

std::string_view nodeText(std::string_view text, TSNode n) {
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (b > text.size() || e > text.size() || e < b) return {};
  return text.substr(b, e - b);
}

void collectDefinitions(std::string_view text, TSNode parent, bool inFunction,
                        std::vector<PythonSyntax::Definition> &out);

void addDefinition(std::string_view text, TSNode def, TSNode outer, bool inFunction,
                   std::vector<PythonSyntax::Definition> &out) {
  bool isFunction = typeIs(def, "function_definition");
  bool isClass = typeIs(def, "class_definition");
  if (isFunction || isClass) {
    TSNode name = ts_node_child_by_field_name(def, "name", 4);
    if (ts_node_is_null(name)) return;
    PythonSyntax::Definition d;
    d.name = std::string(nodeText(text, name));
    d.kind = isFunction ? PythonSyntax::Definition::Kind::Function : PythonSyntax::Definition::Kind::Class;
    d.line = ts_node_start_point(name).row;
    d.column = ts_node_start_point(name).column;
    d.startLine = ts_node_start_point(outer).row;
    d.endLine = ts_node_end_point(outer).row;
    TSNode body = ts_node_child_by_field_name(def, "body", 4);
    if (!ts_node_is_null(body)) collectDefinitions(text, body, isFunction, d.children);
    out.push_back(std::move(d));
    return;
  }
  if (inFunction || !typeIs(def, "expression_statement")) return;
  // `x = ...`, `x: T = ...`, `a, b = ...` (and chained `a = b = ...` through the right side).
  uint32_t count = ts_node_named_child_count(def);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode assignment = ts_node_named_child(def, i);
    while (typeIs(assignment, "assignment")) {
      TSNode left = ts_node_child_by_field_name(assignment, "left", 4);
      if (ts_node_is_null(left)) break;
      std::vector<TSNode> names;
      if (typeIs(left, "identifier")) {
        names.push_back(left);
      } else if (typeIs(left, "pattern_list") || typeIs(left, "tuple_pattern")) {
        uint32_t n = ts_node_named_child_count(left);
        for (uint32_t j = 0; j < n; ++j)
          if (TSNode c = ts_node_named_child(left, j); typeIs(c, "identifier")) names.push_back(c);
      }
      for (TSNode name : names) {
        PythonSyntax::Definition d;
        d.name = std::string(nodeText(text, name));
        d.kind = PythonSyntax::Definition::Kind::Variable;
        d.line = ts_node_start_point(name).row;
        d.column = ts_node_start_point(name).column;
        d.startLine = ts_node_start_point(outer).row;
        d.endLine = ts_node_end_point(outer).row;
        out.push_back(std::move(d));
      }
      assignment = ts_node_child_by_field_name(assignment, "right", 5);
      if (ts_node_is_null(assignment)) break;
    }
  }
}

void collectDefinitions(std::string_view text, TSNode parent, bool inFunction,
                        std::vector<PythonSyntax::Definition> &out) {
  uint32_t count = ts_node_named_child_count(parent);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_named_child(parent, i);
    if (typeIs(child, "decorated_definition")) {
      TSNode def = ts_node_child_by_field_name(child, "definition", 10);
      if (!ts_node_is_null(def)) addDefinition(text, def, child, inFunction, out);
      continue;
    }
    addDefinition(text, child, child, inFunction, out);
  }
}

/// A name, or an attribute chain of names (`self.x.y`).
bool isPlainName(TSNode n) {
  while (typeIs(n, "attribute")) {
    TSNode attribute = ts_node_child_by_field_name(n, "attribute", 9);
    if (ts_node_is_null(attribute) || !typeIs(attribute, "identifier")) return false;
    n = ts_node_child_by_field_name(n, "object", 6);
    if (ts_node_is_null(n)) return false;
  }
  return typeIs(n, "identifier");
}

/// Calls `visit` on each node of the tree under `root` whose start row is `line`, and on nodes spanning it
/// (the subtrees that cannot hold such a node are skipped: linear in the nodes on the way).
template <class Visit> void visitStartingOn(TSNode root, uint32_t line, Visit visit) {
  std::vector<TSNode> stack{root};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (ts_node_start_point(n).row > line || ts_node_end_point(n).row < line) continue;
    if (ts_node_start_point(n).row == line) visit(n);
    for (uint32_t i = ts_node_named_child_count(n); i-- > 0;)
      stack.push_back(ts_node_named_child(n, i));
  }
}

} // namespace

void PythonSyntax::TreeDeleter::operator()(TSTree *tree) const {
  ts_tree_delete(tree);
}

PythonSyntax::PythonSyntax(std::string text, TSTree *tree) : text_(std::move(text)), tree_(tree) {
  lineStarts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
}

PythonSyntax::PythonSyntax(PythonSyntax &&) noexcept = default;
PythonSyntax &PythonSyntax::operator=(PythonSyntax &&) noexcept = default;
PythonSyntax::~PythonSyntax() = default;

std::optional<PythonSyntax> PythonSyntax::parse(std::string_view text) {
  // tree-sitter offsets are uint32_t.
  if (text.size() >= UINT32_MAX) return std::nullopt;
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  if (!parser || !ts_parser_set_language(parser.get(), tree_sitter_python())) return std::nullopt;
  TSTree *tree =
      ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size()));
  if (!tree) return std::nullopt;
  return PythonSyntax(std::string(text), tree);
}

std::string_view PythonSyntax::lineText(uint32_t line) const {
  if (line >= lineStarts_.size()) return {};
  size_t begin = lineStarts_[line];
  size_t end = line + 1 < lineStarts_.size() ? lineStarts_[line + 1] - 1 : text_.size();
  std::string_view s = std::string_view(text_).substr(begin, end - begin);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

std::optional<PythonSyntax::LineRange> PythonSyntax::statementRange(uint32_t line) const {
  std::string_view lt = lineText(line);
  uint32_t col = indentOf(lt);
  if (line >= lineStarts_.size()) return std::nullopt;
  // Blank lines and lines that hold only a comment belong to no statement, unless they are inside one (a line
  // of a multi-line string).
  TSNode root = ts_tree_root_node(tree_.get());
  TSPoint point{line, col};
  TSNode n = ts_node_descendant_for_point_range(root, point, point);
  bool blankOrComment = col >= lt.size() || lt[col] == '#';
  for (; !ts_node_is_null(n); n = ts_node_parent(n)) {
    std::string_view type = ts_node_type(n);
    if (type == "module" || type == "block") return std::nullopt;
    TSPoint start = ts_node_start_point(n), end = ts_node_end_point(n);
    if (start.row > line || end.row < line) continue;
    if (blankOrComment && (start.row == line || type == "comment")) continue;
    if (isSimpleStatement(type)) return LineRange{start.row, end.row};
    if (auto block = blockChild(n)) {
      // The header runs from the statement's start to the ':' before its block. Comments between the two
      // (tree-sitter attaches a comment that opens the body to the statement, not to the block) are skipped.
      TSNode colon = ts_node_prev_sibling(*block);
      while (!ts_node_is_null(colon) && typeIs(colon, "comment"))
        colon = ts_node_prev_sibling(colon);
      uint32_t headerEnd = ts_node_is_null(colon) ? start.row : ts_node_end_point(colon).row;
      if (line <= headerEnd) return LineRange{start.row, headerEnd};
      // A line in the body that no statement of the body covers (blank, comment).
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::vector<PythonSyntax::Definition> PythonSyntax::definitions() const {
  std::vector<Definition> out;
  collectDefinitions(text_, ts_tree_root_node(tree_.get()), /*inFunction=*/false, out);
  return out;
}

std::optional<IdentifierAt> PythonSyntax::identifierAt(uint32_t line, uint32_t column) const {
  std::string_view lt = lineText(line);
  if (line >= lineStarts_.size() || column > lt.size()) return std::nullopt;
  std::optional<IdentifierAt> word = index::identifierAt(lt, line, column);
  if (!word) return std::nullopt;
  // Ask the tree what the word is: an identifier, a keyword, or part of a string or comment.
  TSPoint point{line, word->startColumn};
  TSNode n = ts_node_descendant_for_point_range(ts_tree_root_node(tree_.get()), point, point);
  for (TSNode p = n; !ts_node_is_null(p); p = ts_node_parent(p)) {
    std::string_view type = ts_node_type(p);
    if (type == "string" || type == "comment" || type == "string_content") return word;
  }
  if (ts_node_is_null(n) || !typeIs(n, "identifier")) return std::nullopt;
  return word;
}

std::optional<std::vector<std::string>> PythonSyntax::parameterNames(uint32_t line) const {
  if (line >= lineStarts_.size()) return std::nullopt;
  std::optional<TSNode> def;
  visitStartingOn(ts_tree_root_node(tree_.get()), line, [&](TSNode n) {
    if (def) return;
    if (typeIs(n, "decorated_definition")) n = ts_node_child_by_field_name(n, "definition", 10);
    if (!ts_node_is_null(n) && typeIs(n, "function_definition")) def = n;
  });
  if (!def) return std::nullopt;
  TSNode parameters = ts_node_child_by_field_name(*def, "parameters", 10);
  if (ts_node_is_null(parameters)) return std::nullopt;
  std::vector<std::string> names;
  uint32_t count = ts_node_named_child_count(parameters);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    TSNode name = p;
    if (typeIs(p, "default_parameter") || typeIs(p, "typed_default_parameter"))
      name = ts_node_child_by_field_name(p, "name", 4);
    else if (typeIs(p, "typed_parameter"))
      name = ts_node_named_child(p, 0); // An identifier, or a splat pattern (`*args: int`).
    if (!ts_node_is_null(name) && typeIs(name, "identifier")) names.emplace_back(nodeText(text_, name));
  }
  return names;
}

std::vector<std::vector<PythonSyntax::Argument>> PythonSyntax::callsOn(uint32_t line) const {
  std::vector<std::vector<Argument>> out;
  if (line >= lineStarts_.size()) return out;
  visitStartingOn(ts_tree_root_node(tree_.get()), line, [&](TSNode n) {
    if (!typeIs(n, "argument_list") || ts_node_is_null(ts_node_parent(n)) ||
        !typeIs(ts_node_parent(n), "call"))
      return;
    std::vector<Argument> &arguments = out.emplace_back();
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < count; ++i) {
      TSNode a = ts_node_named_child(n, i);
      if (typeIs(a, "comment")) continue;
      arguments.push_back({std::string(nodeText(text_, a)), typeIs(a, "keyword_argument"), isPlainName(a)});
    }
  });
  return out;
}

uint32_t PythonSyntax::lineAfterImports() const {
  TSNode module = ts_tree_root_node(tree_.get());
  uint32_t after = 0;
  uint32_t count = ts_node_named_child_count(module);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode n = ts_node_named_child(module, i);
    std::string_view type = ts_node_type(n);
    if (type == "import_statement" || type == "import_from_statement" || type == "future_import_statement")
      after = ts_node_end_point(n).row + 1;
    else if (type == "function_definition" || type == "class_definition" || type == "decorated_definition" ||
             type == "if_statement")
      break;
  }
  return after;
}

} // namespace inductor::index
