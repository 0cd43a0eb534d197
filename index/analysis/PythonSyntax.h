// index/analysis/PythonSyntax.h: a tree-sitter parse of one Python document that the user has open (output
// code, a graph dump, a kernel file, or their own model.py), for editor features that need real syntax:
// placing code lenses on statements, treating the lines of a multi-line statement as one, and document
// symbols. The bulk indexer does not use it: it runs the line-based analyzers of OutputCode.h and
// GraphDump.h, which are much faster.
//
// Grammar: tree-sitter-python 0.23.6 (third_party/, ABI 14) on Debian's libtree-sitter 0.20.7, which accepts
// ABI 13-14 only; a grammar of another ABI makes parse() return nullopt rather than crash.
//
// Positions are 0-based lines and 0-based UTF-8 byte columns (tree-sitter's TSPoint counts bytes).
//
// Ownership and threads: an instance owns a copy of the text and the syntax tree (RAII; move-only). Its const
// member functions must not run concurrently on one instance (tree-sitter trees are not thread-safe): use one
// instance per thread. Nothing here throws.
#pragma once

#include "index/analysis/GraphDump.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct TSTree;

namespace inductor::index {

class PythonSyntax {
public:
  /// Parses `text` (copied). nullopt only if tree-sitter cannot be set up (grammar ABI mismatch, out of
  /// memory); text with syntax errors still parses, with error nodes in the tree.
  static std::optional<PythonSyntax> parse(std::string_view text);

  PythonSyntax(PythonSyntax &&) noexcept;
  PythonSyntax &operator=(PythonSyntax &&) noexcept;
  ~PythonSyntax();

  /// Inclusive line range.
  struct LineRange {
    uint32_t firstLine = 0, lastLine = 0;
    bool operator==(const LineRange &) const = default;
  };

  /// The smallest statement containing `line`: a simple statement (all its lines, e.g. a call spanning lines
  /// or `x = async_compile.triton('x', '''...''')` with its whole embedded source), or the header of a
  /// compound statement (`def f(\n a,\n):`, `with ...:`, `else:`; decorators count as statements of their
  /// own). nullopt for blank lines, comment-only lines and lines out of range.
  std::optional<LineRange> statementRange(uint32_t line) const;

  /// A document symbol.
  struct Definition {
    enum class Kind { Function, Class, Variable };
    std::string name;
    Kind kind = Kind::Variable;
    uint32_t line = 0, column = 0; ///< Position of the name.
    uint32_t startLine = 0;        ///< First line of the definition, decorators included.
    uint32_t endLine = 0;          ///< Last line of the definition (inclusive).
    /// Nested functions and classes; for classes also class-level assignments.
    std::vector<Definition> children;
  };

  /// Functions, classes and module-level assignments (`x = ...`, `x: T = ...`, `a, b = ...`), in document
  /// order. Assignments inside functions are locals and are not listed.
  std::vector<Definition> definitions() const;

  /// The identifier at `column` of `line` (a caret just after it counts). Keywords and punctuation give
  /// nullopt. Inside strings and comments, which hold identifiers the user wants to follow (the Triton source
  /// embedded in output code, `# [Provenance debug handles] NAME:N`), the word is taken from the text.
  std::optional<IdentifierAt> identifierAt(uint32_t line, uint32_t column) const;

  /// The parameter names of the function defined on `line` (0-based: the line of its `def`, or of its first
  /// decorator, which is what a code object's co_firstlineno names), in order: plain, defaulted and typed
  /// parameters; `*args`, `**kwargs` and the `*` and `/` markers are left out, `self` and `cls` kept. nullopt
  /// when no function definition starts on that line.
  std::optional<std::vector<std::string>> parameterNames(uint32_t line) const;

  /// One argument of a call: its text, whether it is `name=value`, and whether it is a plain name or a dotted
  /// attribute of names (`x`, `self.x`: what code can name again on another line).
  struct Argument {
    std::string text;
    bool keyword = false;
    bool plainName = false;
  };
  /// The argument lists of the calls whose `(` is on `line` (0-based), in document order; an argument list
  /// may run on over later lines. Empty when there is none.
  std::vector<std::vector<Argument>> callsOn(uint32_t line) const;

  /// The line after the module's leading imports (`import`, `from ... import (...)` however many lines it
  /// takes), read up to the first definition or `if`: where a statement that needs the imports goes. 0 when
  /// there are none.
  uint32_t lineAfterImports() const;

  /// Line `line` (0-based) of the parsed text, without its line break (`\n`, `\r\n`); empty past the end.
  /// A view into this object's copy of the text.
  std::string_view lineText(uint32_t line) const;

private:
  struct TreeDeleter {
    void operator()(TSTree *tree) const;
  };
  PythonSyntax(std::string text, TSTree *tree);

  std::string text_;
  std::vector<uint32_t> lineStarts_; ///< Byte offset of each line in text_.
  std::unique_ptr<TSTree, TreeDeleter> tree_;
};

} // namespace inductor::index
