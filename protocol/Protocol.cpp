// protocol/Protocol.cpp: JSON (de)serialisation of the LSP types, written by hand because most of them
// have optional members (NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE throws on any missing key).
#include "protocol/Protocol.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <utility>

namespace inductor::protocol {

// NOLINTBEGIN(readability-identifier-naming)

namespace {

/// An integer (or enum) read from a JSON number without undefined behaviour: nlohmann converts a float with
/// static_cast, which is undefined for `1e30` or NaN. Floats are truncated, every value is clamped to the
/// range of T (NaN reads as 0). A value that is not a number throws type_error.302 with its path, as get<T>
/// does.
template <class T> T clampedNumber(const json &v) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(clampedNumber<std::underlying_type_t<T>>(v));
  } else {
    using Limits = std::numeric_limits<T>;
    static_assert(std::is_integral_v<T> && sizeof(T) <= sizeof(std::int64_t));
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      return u > static_cast<std::uint64_t>(Limits::max()) ? Limits::max() : static_cast<T>(u);
    }
    if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if (i < 0 && !Limits::is_signed) return 0;
      if (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(Limits::max()))
        return Limits::max();
      if (Limits::is_signed && i < static_cast<std::int64_t>(Limits::min())) return Limits::min();
      return static_cast<T>(i);
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (d != d) return 0; // NaN (nlohmann never parses one, but a json value can hold it).
      if (d <= static_cast<double>(Limits::min())) return Limits::min();
      if (d >= static_cast<double>(Limits::max())) return Limits::max();
      return static_cast<T>(d);
    }
    return static_cast<T>(v.get<std::int64_t>()); // Booleans as nlohmann reads them; anything else throws.
  }
}

template <class T> constexpr bool kIsNumber = std::is_arithmetic_v<T> || std::is_enum_v<T>;

template <class T> void readValue(const json &v, T &out) {
  if constexpr (kIsNumber<T> && !std::is_same_v<T, bool> && !std::is_floating_point_v<T>)
    out = clampedNumber<T>(v);
  else
    v.get_to(out);
}

/// Reads a required member; throws out_of_range.403 (with the path of `j`) when it is missing.
template <class T> void required(const json &j, const char *key, T &out) {
  readValue(j.at(key), out);
}

/// Reads an optional member; missing and null both leave `out` unset.
template <class T> void optional(const json &j, const char *key, std::optional<T> &out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) {
    T value{};
    readValue(*it, value);
    out = std::move(value);
  }
}

/// Reads a member that has a default when missing or null.
template <class T> void defaulted(const json &j, const char *key, T &out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) readValue(*it, out);
}

/// Reads a member kept as raw json; null when missing.
void raw(const json &j, const char *key, json &out) {
  auto it = j.find(key);
  out = it != j.end() ? *it : json();
}

template <class T> void put(json &j, const char *key, const std::optional<T> &value) {
  if (value) j[key] = *value;
}

void putRaw(json &j, const char *key, const json &value) {
  if (!value.is_null()) j[key] = value;
}

/// A required non-negative integer; negative values read as 0, huge ones (and floats such as 1e30) are
/// clamped.
std::uint32_t nonNegative(const json &j, const char *key) {
  return clampedNumber<std::uint32_t>(j.at(key));
}

/// The boolean at `path` below `j`, or false when any step is missing or has another type.
bool flag(const json &j, std::initializer_list<const char *> path) {
  const json *at = &j;
  for (const char *key : path) {
    if (!at->is_object()) return false;
    auto it = at->find(key);
    if (it == at->end()) return false;
    at = &*it;
  }
  return at->is_boolean() && at->get<bool>();
}

/// The strings of the array at `path` below `j`; non-strings and wrong shapes are skipped.
std::vector<std::string> strings(const json &j, std::initializer_list<const char *> path) {
  const json *at = &j;
  for (const char *key : path) {
    if (!at->is_object()) return {};
    auto it = at->find(key);
    if (it == at->end()) return {};
    at = &*it;
  }
  std::vector<std::string> out;
  if (at->is_array())
    for (const json &item : *at)
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

} // namespace

void from_json(const json &j, Position &p) {
  p.line = nonNegative(j, "line");
  p.character = nonNegative(j, "character");
}
// Position, Range and Location fill the object member by member: an initializer list would build each nested
// value and then copy it into its parent (references of a many-rank line send thousands of these).
void to_json(json &j, const Position &p) {
  j = json::object();
  j["line"] = p.line;
  j["character"] = p.character;
}

void from_json(const json &j, Range &r) {
  required(j, "start", r.start);
  required(j, "end", r.end);
}
void to_json(json &j, const Range &r) {
  j = json::object();
  to_json(j["start"], r.start);
  to_json(j["end"], r.end);
}

void from_json(const json &j, Location &l) {
  required(j, "uri", l.uri);
  required(j, "range", l.range);
}
void to_json(json &j, const Location &l) {
  j = json::object();
  j["uri"] = l.uri;
  to_json(j["range"], l.range);
}

void from_json(const json &j, LocationLink &l) {
  optional(j, "originSelectionRange", l.originSelectionRange);
  required(j, "targetUri", l.targetUri);
  required(j, "targetRange", l.targetRange);
  required(j, "targetSelectionRange", l.targetSelectionRange);
}
void to_json(json &j, const LocationLink &l) {
  j = json{{"targetUri", l.targetUri},
           {"targetRange", l.targetRange},
           {"targetSelectionRange", l.targetSelectionRange}};
  put(j, "originSelectionRange", l.originSelectionRange);
}

void from_json(const json &j, TextDocumentIdentifier &t) {
  required(j, "uri", t.uri);
}
void to_json(json &j, const TextDocumentIdentifier &t) {
  j = json{{"uri", t.uri}};
}

void from_json(const json &j, VersionedTextDocumentIdentifier &t) {
  required(j, "uri", t.uri);
  defaulted(j, "version", t.version);
}
void to_json(json &j, const VersionedTextDocumentIdentifier &t) {
  j = json{{"uri", t.uri}, {"version", t.version}};
}

void from_json(const json &j, TextDocumentItem &t) {
  required(j, "uri", t.uri);
  defaulted(j, "languageId", t.languageId);
  defaulted(j, "version", t.version);
  required(j, "text", t.text);
}
void to_json(json &j, const TextDocumentItem &t) {
  j = json{{"uri", t.uri}, {"languageId", t.languageId}, {"version", t.version}, {"text", t.text}};
}

void from_json(const json &j, TextDocumentPositionParams &p) {
  required(j, "textDocument", p.textDocument);
  required(j, "position", p.position);
}
void to_json(json &j, const TextDocumentPositionParams &p) {
  j = json{{"textDocument", p.textDocument}, {"position", p.position}};
}

void from_json(const json &j, ReferenceContext &c) {
  defaulted(j, "includeDeclaration", c.includeDeclaration);
}
void to_json(json &j, const ReferenceContext &c) {
  j = json{{"includeDeclaration", c.includeDeclaration}};
}

void from_json(const json &j, ReferenceParams &p) {
  from_json(j, static_cast<TextDocumentPositionParams &>(p));
  defaulted(j, "context", p.context);
}
void to_json(json &j, const ReferenceParams &p) {
  to_json(j, static_cast<const TextDocumentPositionParams &>(p));
  j["context"] = p.context;
}

void from_json(const json &j, DidOpenTextDocumentParams &p) {
  required(j, "textDocument", p.textDocument);
}
void to_json(json &j, const DidOpenTextDocumentParams &p) {
  j = json{{"textDocument", p.textDocument}};
}

void from_json(const json &j, TextDocumentContentChangeEvent &e) {
  optional(j, "range", e.range);
  optional(j, "rangeLength", e.rangeLength);
  required(j, "text", e.text);
}
void to_json(json &j, const TextDocumentContentChangeEvent &e) {
  j = json{{"text", e.text}};
  put(j, "range", e.range);
  put(j, "rangeLength", e.rangeLength);
}

void from_json(const json &j, DidChangeTextDocumentParams &p) {
  required(j, "textDocument", p.textDocument);
  required(j, "contentChanges", p.contentChanges);
}
void to_json(json &j, const DidChangeTextDocumentParams &p) {
  j = json{{"textDocument", p.textDocument}, {"contentChanges", p.contentChanges}};
}

void from_json(const json &j, DidCloseTextDocumentParams &p) {
  required(j, "textDocument", p.textDocument);
}
void to_json(json &j, const DidCloseTextDocumentParams &p) {
  j = json{{"textDocument", p.textDocument}};
}

void from_json(const json &j, DidSaveTextDocumentParams &p) {
  required(j, "textDocument", p.textDocument);
  optional(j, "text", p.text);
}
void to_json(json &j, const DidSaveTextDocumentParams &p) {
  j = json{{"textDocument", p.textDocument}};
  put(j, "text", p.text);
}

bool applyContentChange(std::string &text, const TextDocumentContentChangeEvent &change,
                        OffsetEncoding encoding) {
  if (!change.range) {
    text = change.text;
    return true;
  }
  const LineTable table(text);
  bool wellFormed = true;
  const auto offsetOf = [&](const Position &p) {
    const std::size_t offset = table.offsetOfPosition(p.line, p.character, encoding);
    // Compare with the unclamped conversion to notice a position past the end of its line or text.
    if (p.line >= table.lineCount() || table.characterOfOffset(offset, encoding) != p.character)
      wellFormed = false;
    return offset;
  };
  std::size_t begin = offsetOf(change.range->start);
  std::size_t end = offsetOf(change.range->end);
  if (end < begin) {
    std::swap(begin, end);
    wellFormed = false;
  }
  // `table` views `text`: it must not be used after the replacement.
  text.replace(begin, end - begin, change.text);
  return wellFormed;
}

void from_json(const json &j, MarkupContent &m) {
  const std::string kind = j.at("kind").get<std::string>();
  m.kind = kind == "markdown" ? MarkupKind::Markdown : MarkupKind::PlainText;
  required(j, "value", m.value);
}
void to_json(json &j, const MarkupContent &m) {
  j = json{{"kind", m.kind == MarkupKind::Markdown ? "markdown" : "plaintext"}, {"value", m.value}};
}

void from_json(const json &j, Hover &h) {
  required(j, "contents", h.contents);
  optional(j, "range", h.range);
}
void to_json(json &j, const Hover &h) {
  j = json{{"contents", h.contents}};
  put(j, "range", h.range);
}

void from_json(const json &j, Command &c) {
  required(j, "title", c.title);
  required(j, "command", c.command);
  raw(j, "arguments", c.arguments);
}
void to_json(json &j, const Command &c) {
  j = json{{"title", c.title}, {"command", c.command}};
  putRaw(j, "arguments", c.arguments);
}

void from_json(const json &j, CodeLens &c) {
  required(j, "range", c.range);
  optional(j, "command", c.command);
  raw(j, "data", c.data);
}
void to_json(json &j, const CodeLens &c) {
  j = json{{"range", c.range}};
  put(j, "command", c.command);
  putRaw(j, "data", c.data);
}

void from_json(const json &j, CodeLensParams &p) {
  required(j, "textDocument", p.textDocument);
}
void to_json(json &j, const CodeLensParams &p) {
  j = json{{"textDocument", p.textDocument}};
}

void from_json(const json &j, DocumentLinkParams &p) {
  required(j, "textDocument", p.textDocument);
}
void to_json(json &j, const DocumentLinkParams &p) {
  j = json{{"textDocument", p.textDocument}};
}

void from_json(const json &j, DocumentLink &l) {
  required(j, "range", l.range);
  optional(j, "target", l.target);
  optional(j, "tooltip", l.tooltip);
  raw(j, "data", l.data);
}
void to_json(json &j, const DocumentLink &l) {
  j = json{{"range", l.range}};
  put(j, "target", l.target);
  put(j, "tooltip", l.tooltip);
  putRaw(j, "data", l.data);
}

void from_json(const json &j, DocumentSymbolParams &p) {
  required(j, "textDocument", p.textDocument);
}
void to_json(json &j, const DocumentSymbolParams &p) {
  j = json{{"textDocument", p.textDocument}};
}

void from_json(const json &j, DocumentSymbol &s) {
  required(j, "name", s.name);
  optional(j, "detail", s.detail);
  required(j, "kind", s.kind);
  required(j, "range", s.range);
  required(j, "selectionRange", s.selectionRange);
  defaulted(j, "children", s.children);
}
void to_json(json &j, const DocumentSymbol &s) {
  j = json{{"name", s.name}, {"kind", s.kind}, {"range", s.range}, {"selectionRange", s.selectionRange}};
  put(j, "detail", s.detail);
  if (!s.children.empty()) j["children"] = s.children;
}

void to_json(json &j, const DocumentSymbolResult &r) {
  j = json::array();
  if (r.hierarchical) {
    for (const DocumentSymbol &s : r.symbols)
      j.push_back(s);
    return;
  }
  auto flat = [&](const DocumentSymbol &d, const std::string &container, auto &self) -> void {
    SymbolInformation info;
    info.name = d.name;
    info.kind = d.kind;
    info.location = {r.uri, d.selectionRange};
    if (!container.empty()) info.containerName = container;
    j.push_back(info);
    for (const DocumentSymbol &c : d.children)
      self(c, d.name, self);
  };
  for (const DocumentSymbol &s : r.symbols)
    flat(s, "", flat);
}

void from_json(const json &j, SymbolInformation &s) {
  required(j, "name", s.name);
  required(j, "kind", s.kind);
  required(j, "location", s.location);
  optional(j, "containerName", s.containerName);
}
void to_json(json &j, const SymbolInformation &s) {
  j = json{{"name", s.name}, {"kind", s.kind}, {"location", s.location}};
  put(j, "containerName", s.containerName);
}

void from_json(const json &j, WorkspaceSymbolParams &p) {
  defaulted(j, "query", p.query);
}
void to_json(json &j, const WorkspaceSymbolParams &p) {
  j = json{{"query", p.query}};
}

void from_json(const json &j, WorkspaceFolder &f) {
  required(j, "uri", f.uri);
  defaulted(j, "name", f.name);
}
void to_json(json &j, const WorkspaceFolder &f) {
  j = json{{"uri", f.uri}, {"name", f.name}};
}

std::vector<std::string> ClientCapabilities::allEncodingOffers() const {
  std::vector<std::string> all = positionEncodings;
  all.insert(all.end(), offsetEncoding.begin(), offsetEncoding.end());
  return all;
}

void from_json(const json &j, ClientCapabilities &c) {
  c = ClientCapabilities();
  c.positionEncodings = strings(j, {"general", "positionEncodings"});
  c.offsetEncoding = strings(j, {"offsetEncoding"});
  c.workDoneProgress = flag(j, {"window", "workDoneProgress"});
  c.hierarchicalDocumentSymbolSupport =
      flag(j, {"textDocument", "documentSymbol", "hierarchicalDocumentSymbolSupport"});
  c.codeLensRefreshSupport = flag(j, {"workspace", "codeLens", "refreshSupport"});
  c.showDocumentSupport = flag(j, {"window", "showDocument", "support"});
  c.didChangeWatchedFilesDynamicRegistration =
      flag(j, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
  const std::vector<std::string> formats = strings(j, {"textDocument", "hover", "contentFormat"});
  c.hoverMarkdown = std::find(formats.begin(), formats.end(), "markdown") != formats.end();
  c.diagnosticPull = j.is_object() && j.contains("textDocument") && j["textDocument"].is_object() &&
                     j["textDocument"].contains("diagnostic") && j["textDocument"]["diagnostic"].is_object();
  c.diagnosticRefreshSupport = flag(j, {"workspace", "diagnostics", "refreshSupport"});
  c.diagnosticRelatedInformation = flag(j, {"textDocument", "publishDiagnostics", "relatedInformation"});
  c.inlayHintRefreshSupport = flag(j, {"workspace", "inlayHint", "refreshSupport"});
}

void from_json(const json &j, ClientInfo &c) {
  required(j, "name", c.name);
  optional(j, "version", c.version);
}

void from_json(const json &j, InitializeParams &p) {
  optional(j, "processId", p.processId);
  optional(j, "clientInfo", p.clientInfo);
  optional(j, "rootUri", p.rootUri);
  optional(j, "rootPath", p.rootPath);
  optional(j, "workspaceFolders", p.workspaceFolders);
  raw(j, "initializationOptions", p.initializationOptions);
  optional(j, "trace", p.trace);
  raw(j, "capabilities", p.rawCapabilities);
  if (p.rawCapabilities.is_object())
    from_json(p.rawCapabilities, p.capabilities);
  else
    p.capabilities = ClientCapabilities();
}

void to_json(json &j, const ServerInfo &s) {
  j = json{{"name", s.name}};
  put(j, "version", s.version);
}

void to_json(json &j, const ServerCapabilities &c) {
  j = json::object();
  if (c.positionEncoding) j["positionEncoding"] = encodingName(*c.positionEncoding);
  j["textDocumentSync"] = json{{"openClose", c.textDocumentSync.openClose},
                               {"change", c.textDocumentSync.change},
                               {"save", c.textDocumentSync.save}};
  auto flag = [&](const char *key, bool on) {
    if (on) j[key] = true;
  };
  flag("definitionProvider", c.definitionProvider);
  flag("referencesProvider", c.referencesProvider);
  flag("hoverProvider", c.hoverProvider);
  flag("documentSymbolProvider", c.documentSymbolProvider);
  flag("workspaceSymbolProvider", c.workspaceSymbolProvider);
  auto resolve = [&](const char *key, const std::optional<ResolveOptions> &o) {
    if (o) j[key] = json{{"resolveProvider", o->resolveProvider}};
  };
  resolve("codeLensProvider", c.codeLensProvider);
  resolve("inlayHintProvider", c.inlayHintProvider);
  resolve("documentLinkProvider", c.documentLinkProvider);
  if (c.executeCommandProvider)
    j["executeCommandProvider"] = json{{"commands", c.executeCommandProvider->commands}};
  if (c.codeActionProvider)
    j["codeActionProvider"] = json{{"codeActionKinds", c.codeActionProvider->codeActionKinds},
                                   {"resolveProvider", c.codeActionProvider->resolveProvider}};
  if (c.diagnosticProvider)
    j["diagnosticProvider"] = json{{"identifier", c.diagnosticProvider->identifier},
                                   {"interFileDependencies", c.diagnosticProvider->interFileDependencies},
                                   {"workspaceDiagnostics", c.diagnosticProvider->workspaceDiagnostics}};
}

void to_json(json &j, const InitializeResult &r) {
  j = json{{"capabilities", r.capabilities}};
  put(j, "serverInfo", r.serverInfo);
  if (r.offsetEncoding) j["offsetEncoding"] = encodingName(*r.offsetEncoding);
}

void to_json(json &j, const WorkDoneProgressCreateParams &p) {
  j = json{{"token", p.token}};
}

void to_json(json &j, const WorkDoneProgressBegin &p) {
  j = json{{"kind", "begin"}, {"title", p.title}};
  put(j, "cancellable", p.cancellable);
  put(j, "message", p.message);
  put(j, "percentage", p.percentage);
}

void to_json(json &j, const WorkDoneProgressReport &p) {
  j = json{{"kind", "report"}};
  put(j, "cancellable", p.cancellable);
  put(j, "message", p.message);
  put(j, "percentage", p.percentage);
}

void to_json(json &j, const WorkDoneProgressEnd &p) {
  j = json{{"kind", "end"}};
  put(j, "message", p.message);
}

void from_json(const json &j, LogMessageParams &p) {
  required(j, "type", p.type);
  required(j, "message", p.message);
}
void to_json(json &j, const LogMessageParams &p) {
  j = json{{"type", p.type}, {"message", p.message}};
}

void from_json(const json &j, ShowMessageParams &p) {
  required(j, "type", p.type);
  required(j, "message", p.message);
}
void to_json(json &j, const ShowMessageParams &p) {
  j = json{{"type", p.type}, {"message", p.message}};
}

void to_json(json &j, const ShowDocumentParams &p) {
  j = json{{"uri", p.uri}};
  put(j, "external", p.external);
  put(j, "takeFocus", p.takeFocus);
  put(j, "selection", p.selection);
}

void from_json(const json &j, CancelParams &p) {
  const json &id = j.at("id");
  if (!id.is_number_integer() && !id.is_string())
    (void)id.get<std::string>(); // Throws type_error.302 with the path of "id".
  p.id = id;
}
void to_json(json &j, const CancelParams &p) {
  j = json{{"id", p.id}};
}

void from_json(const json &j, ExecuteCommandParams &p) {
  required(j, "command", p.command);
  raw(j, "arguments", p.arguments);
}
void to_json(json &j, const ExecuteCommandParams &p) {
  j = json{{"command", p.command}};
  putRaw(j, "arguments", p.arguments);
}

void from_json(const json &j, DidChangeConfigurationParams &p) {
  raw(j, "settings", p.settings);
}
void to_json(json &j, const DidChangeConfigurationParams &p) {
  j = json{{"settings", p.settings}};
}

void from_json(const json &j, FileEvent &e) {
  required(j, "uri", e.uri);
  required(j, "type", e.type);
}
void to_json(json &j, const FileEvent &e) {
  j = json{{"uri", e.uri}, {"type", e.type}};
}

void from_json(const json &j, DidChangeWatchedFilesParams &p) {
  required(j, "changes", p.changes);
}
void to_json(json &j, const DidChangeWatchedFilesParams &p) {
  j = json{{"changes", p.changes}};
}

// Inlay hints, diagnostics and code actions.

void from_json(const json &j, InlayHint &h) {
  required(j, "position", h.position);
  const json &label = j.at("label");
  if (label.is_string()) {
    h.label = label.get<std::string>();
  } else {
    h.label.clear(); // InlayHintLabelPart[]: the values joined.
    for (const json &part : label)
      h.label += part.at("value").get<std::string>();
  }
  std::optional<int> kind;
  optional(j, "kind", kind);
  if (kind) h.kind = static_cast<InlayHintKind>(*kind);
  if (auto it = j.find("tooltip"); it != j.end() && !it->is_null()) {
    MarkupContent m;
    if (it->is_string()) {
      m.kind = MarkupKind::PlainText;
      m.value = it->get<std::string>();
    } else {
      it->get_to(m);
    }
    h.tooltip = m;
  }
  optional(j, "paddingLeft", h.paddingLeft);
  optional(j, "paddingRight", h.paddingRight);
  raw(j, "data", h.data);
}
void to_json(json &j, const InlayHint &h) {
  j = json{{"position", h.position}, {"label", h.label}};
  if (h.kind) j["kind"] = static_cast<int>(*h.kind);
  put(j, "tooltip", h.tooltip);
  put(j, "paddingLeft", h.paddingLeft);
  put(j, "paddingRight", h.paddingRight);
  putRaw(j, "data", h.data);
}

void from_json(const json &j, InlayHintParams &p) {
  required(j, "textDocument", p.textDocument);
  required(j, "range", p.range);
}
void to_json(json &j, const InlayHintParams &p) {
  j = json{{"textDocument", p.textDocument}, {"range", p.range}};
}

void from_json(const json &j, CodeDescription &c) {
  required(j, "href", c.href);
}
void to_json(json &j, const CodeDescription &c) {
  j = json{{"href", c.href}};
}

void from_json(const json &j, DiagnosticRelatedInformation &r) {
  required(j, "location", r.location);
  required(j, "message", r.message);
}
void to_json(json &j, const DiagnosticRelatedInformation &r) {
  j = json{{"location", r.location}, {"message", r.message}};
}

void from_json(const json &j, DiagnosticData &d) {
  d.newSinceRun.reset();
  if (auto it = j.find("newSinceRun"); it != j.end() && it->is_string())
    d.newSinceRun = it->get<std::string>();
}
void to_json(json &j, const DiagnosticData &d) {
  j = json::object();
  put(j, "newSinceRun", d.newSinceRun);
}

void from_json(const json &j, Diagnostic &d) {
  required(j, "range", d.range);
  if (auto it = j.find("severity"); it != j.end() && it->is_number_integer())
    d.severity = static_cast<DiagnosticSeverity>(std::clamp(it->get<int>(), 1, 4));
  if (auto it = j.find("code"); it != j.end()) {
    if (it->is_string())
      d.code = it->get<std::string>();
    else if (it->is_number_integer())
      d.code = std::to_string(it->get<std::int64_t>());
  }
  optional(j, "codeDescription", d.codeDescription);
  optional(j, "source", d.source);
  required(j, "message", d.message);
  defaulted(j, "relatedInformation", d.relatedInformation);
  d.data.reset();
  if (auto it = j.find("data"); it != j.end() && it->is_object()) d.data = it->get<DiagnosticData>();
}
void to_json(json &j, const Diagnostic &d) {
  j = json{{"range", d.range}, {"message", d.message}};
  if (d.severity) j["severity"] = static_cast<int>(*d.severity);
  put(j, "code", d.code);
  put(j, "codeDescription", d.codeDescription);
  put(j, "source", d.source);
  if (!d.relatedInformation.empty()) j["relatedInformation"] = d.relatedInformation;
  put(j, "data", d.data);
}

void to_json(json &j, const PublishDiagnosticsParams &p) {
  j = json{{"uri", p.uri}, {"diagnostics", p.diagnostics}};
  put(j, "version", p.version);
}

void from_json(const json &j, DocumentDiagnosticParams &p) {
  required(j, "textDocument", p.textDocument);
  optional(j, "identifier", p.identifier);
  optional(j, "previousResultId", p.previousResultId);
}

void to_json(json &j, const DocumentDiagnosticReport &r) {
  if (r.unchanged) {
    j = json{{"kind", "unchanged"}, {"resultId", r.resultId.value_or("")}};
    return;
  }
  j = json{{"kind", "full"}, {"items", r.items}};
  put(j, "resultId", r.resultId);
}

void from_json(const json &j, PreviousResultId &p) {
  required(j, "uri", p.uri);
  required(j, "value", p.value);
}

void from_json(const json &j, WorkspaceDiagnosticParams &p) {
  optional(j, "identifier", p.identifier);
  defaulted(j, "previousResultIds", p.previousResultIds);
}

void to_json(json &j, const WorkspaceDiagnosticReport &r) {
  json items = json::array();
  for (const WorkspaceDocumentDiagnosticReport &item : r.items) {
    json report = item.report;
    report["uri"] = item.uri;
    report["version"] = item.version ? json(*item.version) : json(nullptr);
    items.push_back(std::move(report));
  }
  j = json{{"items", std::move(items)}};
}

void from_json(const json &j, TextEdit &e) {
  required(j, "range", e.range);
  required(j, "newText", e.newText);
}
void to_json(json &j, const TextEdit &e) {
  j = json{{"range", e.range}, {"newText", e.newText}};
}

void from_json(const json &j, WorkspaceEdit &e) {
  defaulted(j, "changes", e.changes);
}
void to_json(json &j, const WorkspaceEdit &e) {
  j = json{{"changes", e.changes}};
}

void from_json(const json &j, CodeActionContext &c) {
  defaulted(j, "diagnostics", c.diagnostics);
  defaulted(j, "only", c.only);
}
void to_json(json &j, const CodeActionContext &c) {
  j = json{{"diagnostics", c.diagnostics}};
  if (!c.only.empty()) j["only"] = c.only;
}

void from_json(const json &j, CodeActionParams &p) {
  required(j, "textDocument", p.textDocument);
  required(j, "range", p.range);
  defaulted(j, "context", p.context);
}

void to_json(json &j, const CodeActionParams &p) {
  j = json{{"textDocument", p.textDocument}, {"range", p.range}, {"context", p.context}};
}

void from_json(const json &j, CodeAction &a) {
  required(j, "title", a.title);
  optional(j, "kind", a.kind);
  defaulted(j, "diagnostics", a.diagnostics);
  optional(j, "isPreferred", a.isPreferred);
  optional(j, "edit", a.edit);
  optional(j, "command", a.command);
  raw(j, "data", a.data);
}
void to_json(json &j, const CodeAction &a) {
  j = json{{"title", a.title}};
  put(j, "kind", a.kind);
  if (!a.diagnostics.empty()) j["diagnostics"] = a.diagnostics;
  put(j, "isPreferred", a.isPreferred);
  put(j, "edit", a.edit);
  put(j, "command", a.command);
  putRaw(j, "data", a.data);
}

void to_json(json &j, const FileSystemWatcher &w) {
  j = json{{"globPattern", w.globPattern}};
  put(j, "kind", w.kind);
}

void to_json(json &j, const DidChangeWatchedFilesRegistrationOptions &o) {
  j = json{{"watchers", o.watchers}};
}

void to_json(json &j, const Registration &r) {
  j = json{{"id", r.id}, {"method", r.method}};
  putRaw(j, "registerOptions", r.registerOptions);
}

void to_json(json &j, const RegistrationParams &p) {
  j = json{{"registrations", p.registrations}};
}

// NOLINTEND(readability-identifier-naming)

} // namespace inductor::protocol
