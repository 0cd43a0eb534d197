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

#include "index/analysis/PythonSyntax.h"
#include "index/support/TextLines.h"
#include "protocol/URI.h"

#include <algorithm>
#include <map>
#include <optional>

namespace inductor::server {

namespace {

/// The parameters of the function defined on `line` (0-based), `self`/`cls` dropped (a method's caller does
/// not pass them).
std::vector<std::string> parameters(const index::PythonSyntax &syntax, uint32_t line) {
  std::vector<std::string> names = syntax.parameterNames(line).value_or(std::vector<std::string>{});
  if (!names.empty() && (names[0] == "self" || names[0] == "cls")) names.erase(names.begin());
  return names;
}

/// The argument at `position` of a call on `line` (0-based) that passes `count` arguments; nullopt when no
/// call fits or the argument is not a plain name (only a name can be marked dynamic before the call).
std::optional<std::string> callArgument(const index::PythonSyntax &syntax, uint32_t line, size_t count,
                                        size_t position) {
  for (const std::vector<index::PythonSyntax::Argument> &args : syntax.callsOn(line)) {
    size_t positional = std::count_if(args.begin(), args.end(), [](const auto &a) { return !a.keyword; });
    if (args.size() != count || positional <= position) continue;
    if (args[position].plainName) return args[position].text;
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
  // The files a fix reads as Python (tree-sitter), parsed once per request.
  std::map<std::string, std::optional<index::PythonSyntax>> syntaxes;
  auto syntaxOf = [&](const std::string &fileUri) -> const index::PythonSyntax * {
    auto [it, fresh] = syntaxes.try_emplace(fileUri);
    if (fresh)
      it->second = index::PythonSyntax::parse((fileUri == uri ? doc : texts.document(fileUri))->text);
    return it->second ? &*it->second : nullptr;
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
        const index::PythonSyntax *defSyntax = syntaxOf(defUri);
        const index::PythonSyntax *callerSyntax = syntaxOf(callerUri);
        if (!defSyntax || !callerSyntax || def.line == 0 || caller.line == 0) continue;
        std::vector<std::string> params = parameters(*defSyntax, def.line - 1);
        auto at = std::find(params.begin(), params.end(), param);
        if (at == params.end()) continue;
        auto arg = callArgument(*callerSyntax, caller.line - 1, params.size(),
                                static_cast<size_t>(at - params.begin()));
        if (!arg) continue;
        // The caller's syntax holds its text: no split of the whole file per event.
        std::string_view callLine = callerSyntax->lineText(caller.line - 1);
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
            const index::PythonSyntax *syntax = syntaxOf(uri);
            if (!syntax) continue;
            add("Set `" + assignment + "`", line, uri,
                {insertAt(syntax->lineAfterImports(), assignment + "\n")});
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
