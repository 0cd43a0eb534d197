// server/features/CodeAction.cpp: textDocument/codeAction. Quick fixes for compile-health events whose fix
// PyTorch states mechanically, as WorkspaceEdits the user applies (the server never writes a file):
//  - a recompile on a tensor's size ("tensor 'x' size mismatch at index 0"): `torch._dynamo.mark_dynamic(x,
//  0)`
//    before the call that compiled the function, when the argument there is a plain name;
//  - a hint that sets a config flag (`torch._dynamo.config.capture_scalar_outputs = True` for `.item()`,
//    `capture_dynamic_output_shape_ops` for `nonzero`): the assignment after the file's imports;
//  - "Remove the `torch._dynamo.graph_break()` call": the line, deleted.
// Each action lists the diagnostics of the request's context it fixes (same source and line). Quick fixes
// come first; the debug printer's commands (RuntimeCodeActions.cpp) after them.
#include "server/features/Features.h"
#include "server/features/RuntimeFeatures.h"
#include "server/format/Health.h"
#include "server/text/Convert.h"

#include "index/support/TextLines.h"
#include "protocol/URI.h"

#include <algorithm>

namespace inductor::server {

namespace {

bool isName(std::string_view s) {
  if (s.empty() || !index::isIdentStart(s[0])) return false;
  for (char c : s)
    if (!index::isIdentChar(c) && c != '.') return false;
  return s.back() != '.';
}

/// Splits `s` at top-level commas (outside brackets and strings).
std::vector<std::string> splitArguments(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(std::string(index::trim(s.substr(start, i - start))));
      start = i + 1;
    }
  }
  std::string last(index::trim(s.substr(start)));
  if (!last.empty()) out.push_back(last);
  return out;
}

/// The text between the '(' at `open` and its matching ')', or nullopt when it does not close.
std::optional<std::string_view> inParens(std::string_view s, size_t open) {
  int depth = 0;
  char quote = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(')
      ++depth;
    else if (c == ')' && --depth == 0)
      return s.substr(open + 1, i - open - 1);
  }
  return std::nullopt;
}

/// Parameter names of the `def` at `line` (0-based), the signature possibly spanning lines; `self`/`cls`
/// dropped.
std::vector<std::string> parameters(const index::TextLines &lines, uint32_t line) {
  std::string sig;
  for (uint32_t l = line; l < lines.size() && l < line + 20; ++l) {
    sig += std::string(lines[l]) + " ";
    size_t open = sig.find('(');
    if (open != std::string::npos && inParens(sig, open)) break;
  }
  size_t open = sig.find('(');
  if (open == std::string::npos || sig.find("def ") == std::string::npos) return {};
  auto inside = inParens(sig, open);
  if (!inside) return {};
  std::vector<std::string> names;
  for (std::string p : splitArguments(*inside)) {
    if (p == "*" || p == "/" || p.starts_with("*")) continue;
    size_t end = 0;
    while (end < p.size() && index::isIdentChar(p[end]))
      ++end;
    names.push_back(p.substr(0, end));
  }
  if (!names.empty() && (names[0] == "self" || names[0] == "cls")) names.erase(names.begin());
  return names;
}

/// The argument at `position` of a call on `line` that takes `count` arguments; nullopt when no call fits or
/// the argument is not a plain name (only a name can be marked dynamic before the call).
std::optional<std::string> callArgument(std::string_view line, size_t count, size_t position) {
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] != '(' || !(index::isIdentChar(line[i - 1]) || line[i - 1] == ')')) continue;
    auto inside = inParens(line, i);
    if (!inside) continue;
    std::vector<std::string> args = splitArguments(*inside);
    size_t positional = 0;
    for (const std::string &a : args)
      positional += a.find('=') == std::string::npos || a.find("==") != std::string::npos;
    if (args.size() != count || positional <= position) continue;
    if (isName(args[position])) return args[position];
  }
  return std::nullopt;
}

/// `torch._dynamo.config.NAME = VALUE` statements a hint asks for.
std::vector<std::string> configAssignments(const std::string &hint) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = hint.find('`', pos)) != std::string::npos) {
    size_t end = hint.find('`', pos + 1);
    if (end == std::string::npos) break;
    std::string code = hint.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (code.starts_with("torch._dynamo.config.") && code.find(" = ") != std::string::npos &&
        code.find('\n') == std::string::npos)
      out.push_back(code);
  }
  return out;
}

/// The line after the file's leading imports (0 when it has none).
uint32_t afterImports(const index::TextLines &lines) {
  uint32_t after = 0;
  for (uint32_t l = 0; l < lines.size(); ++l) {
    std::string_view t = lines[l];
    if (t.starts_with("import ") || t.starts_with("from ")) {
      after = l + 1;
      continue;
    }
    if (t.starts_with("def ") || t.starts_with("class ") || t.starts_with("@") || t.starts_with("if ")) break;
  }
  return after;
}

protocol::TextEdit insertAt(uint32_t line, std::string text) {
  protocol::TextEdit e;
  e.range = {{line, 0}, {line, 0}};
  e.newText = std::move(text);
  return e;
}

} // namespace

std::vector<protocol::CodeAction> codeAction(const FeatureContext &ctx,
                                             const protocol::CodeActionParams &params) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  std::vector<protocol::CodeAction> out;
  const std::string &uri = ctx.uri;
  // Quick fixes first, then the printer's commands (server/features/RuntimeCodeActions.cpp: on launches, and
  // on user lines once a run log is there); those have no kind, so a client asking for given kinds only does
  // not get them.
  auto finish = [&] {
    if (params.context.only.empty())
      for (protocol::CodeAction &a : runtimeCodeActions(index, texts, uri, params.range))
        out.push_back(std::move(a));
    return std::move(out);
  };
  const Target &target = ctx.target;
  if (target.kind != Target::Kind::UserFile) return finish();
  if (!params.context.only.empty() &&
      std::none_of(params.context.only.begin(), params.context.only.end(),
                   [](const std::string &k) { return k == "quickfix" || k.starts_with("quickfix."); }))
    return finish();
  const index::CompileHealth &h = index.compileHealth();
  auto doc = texts.document(uri);
  index::TextLines lines = index::splitLines(doc->text);
  std::set<std::string> titles;
  auto fixed = [&](uint32_t line) {
    std::vector<protocol::Diagnostic> ds;
    for (const protocol::Diagnostic &d : params.context.diagnostics)
      if (d.source == "torch.compile" && d.range.start.line == line) ds.push_back(d);
    return ds;
  };
  auto add = [&](std::string title, uint32_t line, const std::string &editUri,
                 std::vector<protocol::TextEdit> edits) {
    if (!titles.insert(title).second) return;
    protocol::CodeAction a;
    a.title = std::move(title);
    a.kind = "quickfix";
    a.diagnostics = fixed(line);
    protocol::WorkspaceEdit edit;
    edit.changes[editUri] = std::move(edits);
    a.edit = std::move(edit);
    out.push_back(std::move(a));
  };
  uint32_t first = params.range.start.line, last = std::max(params.range.end.line, first);
  for (uint32_t line = first; line <= last && line < first + 200; ++line) {
    for (uint32_t e : index.healthAt(target.path, line + 1).events) {
      const index::HealthEvent &ev = h.events[e];
      const index::FrameCompile &c = h.compiles[ev.compile];
      // A size recompile: mark the dimension dynamic where the function is called.
      if (ev.kind == index::HealthEventKind::Recompile && ev.sizeIndex && ev.guardSource.starts_with("L['") &&
          c.caller && h.frames[c.frame].def && !h.frames[c.frame].resumeOf) {
        std::string param = ev.guardSource.substr(3, ev.guardSource.find('\'', 3) - 3);
        const index::Origin &def = h.places[*h.frames[c.frame].def];
        const index::Origin &caller = h.places[*c.caller];
        if (!def.exists || !caller.exists) continue;
        std::string defUri = protocol::fileURI(def.path), callerUri = protocol::fileURI(caller.path);
        auto defDoc = defUri == uri ? doc : texts.document(defUri);
        auto callerDoc = callerUri == uri ? doc : texts.document(callerUri);
        index::TextLines defLines = index::splitLines(defDoc->text);
        index::TextLines callerLines = index::splitLines(callerDoc->text);
        std::vector<std::string> params = parameters(defLines, def.line - 1);
        auto at = std::find(params.begin(), params.end(), param);
        if (at == params.end() || caller.line == 0 || caller.line > callerLines.size()) continue;
        std::string_view callLine = callerLines[caller.line - 1];
        auto arg = callArgument(callLine, params.size(), static_cast<size_t>(at - params.begin()));
        if (!arg) continue;
        std::string indent(callLine.substr(0, index::indentOf(callLine)));
        std::string dim = std::to_string(*ev.sizeIndex);
        std::string title = "Mark dimension " + dim + " of `" + *arg + "` dynamic before calling `";
        title += h.frames[c.frame].function + "` (torch._dynamo.mark_dynamic)";
        std::string statement = indent;
        statement += "torch._dynamo.mark_dynamic(" + *arg + ", " + dim + ")\n";
        add(std::move(title), line, callerUri, {insertAt(caller.line - 1, std::move(statement))});
      }
      if (ev.kind == index::HealthEventKind::GraphBreak || ev.kind == index::HealthEventKind::Failure) {
        for (const std::string &hint : ev.hints) {
          for (const std::string &assignment : configAssignments(hint)) {
            if (doc->text.find(assignment) != std::string::npos) continue;
            add("Set `" + assignment + "`", line, uri, {insertAt(afterImports(lines), assignment + "\n")});
          }
          // Only on the line of the call itself, not on a call that led to it (HealthEvent::shownAt).
          if (hint.find("Remove the `torch._dynamo.graph_break()` call") != std::string::npos &&
              ev.shownAt == ev.at && line < lines.size() &&
              lines[line].find("graph_break(") != std::string_view::npos) {
            protocol::TextEdit erase;
            erase.range = {{line, 0}, {line + 1, 0}};
            add("Remove the `torch._dynamo.graph_break()` call", line, uri, {erase});
          }
        }
      }
    }
  }
  return finish();
}

} // namespace inductor::server
