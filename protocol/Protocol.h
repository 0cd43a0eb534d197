// protocol/Protocol.h: the LSP 3.17 types inductor-ls speaks, one struct per spec type
// (https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/).
//
// Names and field spellings are the spec's own, so `textDocument`, `position`, `contentChanges` read the
// same here as on the wire. Deviations are marked. Each type has nlohmann `from_json` and/or `to_json`
// next to it (found by ADL, so `json j = location;` and `j.get<Position>()` work):
//  - from_json tolerates unknown members, and missing or null optional members; a required member that
//    is missing or a member of the wrong type throws nlohmann::json::exception whose message carries the
//    JSON path (JSON_DIAGNOSTICS). Call it through fromJSON() below, which catches; the server's binder
//    does so in exactly one place and answers InvalidParams.
//  - to_json omits optional members that are unset, as the spec prefers to `null`.
// URIs are kept as the strings the client sent (see protocol/URI.h to interpret them), because the server
// must echo them back byte for byte.
#pragma once

#include "protocol/Json.h"
#include "protocol/Position.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace inductor::protocol {

// NOLINTBEGIN(readability-identifier-naming): the spec's names.

/// Parses `j` into `out`. On failure returns false, leaves `out` in an unspecified (but valid) state and
/// sets `error` to nlohmann's message, which names the offending JSON path, e.g.
/// "[json.exception.type_error.302] (/textDocument/uri) type must be string, but is number".
template <class T> bool fromJSON(const json &j, T &out, std::string &error) {
  try {
    j.get_to(out);
    return true;
  } catch (const json::exception &e) {
    error = e.what();
    return false;
  }
}

/// A position in a text document. WARNING: `character` is in the negotiated position encoding (see
/// protocol/Position.h): UTF-16 code units unless `utf-8` or `utf-32` was agreed in `initialize`. It is not
/// a byte column; convert with LineTable before handing it to index/.
struct Position {
  std::uint32_t line = 0;      // 0-based.
  std::uint32_t character = 0; // 0-based, in code units of the negotiated encoding.
  friend bool operator==(const Position &, const Position &) = default;
  // Hand-written rather than a defaulted operator<=>, which clang-tidy 14 flags (modernize-use-nullptr).
  friend bool operator<(const Position &a, const Position &b) {
    return std::tie(a.line, a.character) < std::tie(b.line, b.character);
  }
};
/// Negative numbers (which the spec forbids) are read as 0 rather than wrapping around.
void from_json(const json &j, Position &p);
void to_json(json &j, const Position &p);

/// [start, end): `end` is exclusive.
struct Range {
  Position start;
  Position end;
  friend bool operator==(const Range &, const Range &) = default;
};
void from_json(const json &j, Range &r);
void to_json(json &j, const Range &r);

struct Location {
  std::string uri;
  Range range;
  friend bool operator==(const Location &, const Location &) = default;
};
void from_json(const json &j, Location &l);
void to_json(json &j, const Location &l);

struct LocationLink {
  std::optional<Range> originSelectionRange; // Span of the origin (e.g. the clicked kernel name).
  std::string targetUri;
  Range targetRange;          // The whole target (e.g. a function body), for previews.
  Range targetSelectionRange; // Selected and revealed; must be contained in targetRange.
  friend bool operator==(const LocationLink &, const LocationLink &) = default;
};
void from_json(const json &j, LocationLink &l);
void to_json(json &j, const LocationLink &l);

struct TextDocumentIdentifier {
  std::string uri;
};
void from_json(const json &j, TextDocumentIdentifier &t);
void to_json(json &j, const TextDocumentIdentifier &t);

struct VersionedTextDocumentIdentifier {
  std::string uri;
  /// Required by the spec; 0 when a client omits it (tolerated).
  std::int32_t version = 0;
};
void from_json(const json &j, VersionedTextDocumentIdentifier &t);
void to_json(json &j, const VersionedTextDocumentIdentifier &t);

struct TextDocumentItem {
  std::string uri;
  std::string languageId;
  std::int32_t version = 0;
  std::string text; // The full UTF-8 content.
};
void from_json(const json &j, TextDocumentItem &t);
void to_json(json &j, const TextDocumentItem &t);

/// Also the params of textDocument/definition, /declaration, /hover (DefinitionParams, HoverParams, ...:
/// their work-done and partial-result tokens are not read).
struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};
void from_json(const json &j, TextDocumentPositionParams &p);
void to_json(json &j, const TextDocumentPositionParams &p);

struct ReferenceContext {
  bool includeDeclaration = false;
};
void from_json(const json &j, ReferenceContext &c);
void to_json(json &j, const ReferenceContext &c);

struct ReferenceParams : TextDocumentPositionParams {
  /// Required by the spec; a missing context is read as includeDeclaration = false (tolerated).
  ReferenceContext context;
};
void from_json(const json &j, ReferenceParams &p);
void to_json(json &j, const ReferenceParams &p);

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
};
void from_json(const json &j, DidOpenTextDocumentParams &p);
void to_json(json &j, const DidOpenTextDocumentParams &p);

struct TextDocumentContentChangeEvent {
  /// The replaced range; unset means `text` is the whole new document.
  std::optional<Range> range;
  /// Deprecated by the spec in favour of `range`; read but ignored.
  std::optional<std::uint32_t> rangeLength;
  std::string text;
};
void from_json(const json &j, TextDocumentContentChangeEvent &e);
void to_json(json &j, const TextDocumentContentChangeEvent &e);

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  /// Applied in order, each to the result of the previous one.
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};
void from_json(const json &j, DidChangeTextDocumentParams &p);
void to_json(json &j, const DidChangeTextDocumentParams &p);

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier textDocument;
};
void from_json(const json &j, DidCloseTextDocumentParams &p);
void to_json(json &j, const DidCloseTextDocumentParams &p);

struct DidSaveTextDocumentParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> text; // Present only if the server asked for includeText.
};
void from_json(const json &j, DidSaveTextDocumentParams &p);
void to_json(json &j, const DidSaveTextDocumentParams &p);

/// Applies one change to `text` (UTF-8), interpreting the positions in `encoding`. A change without a range
/// replaces the whole text. Ranges are made well-formed the way vscode-languageserver-textdocument does:
/// positions past the end of a line or of the text are clamped, and a range whose end precedes its start
/// is reversed. Returns false when such a repair was needed (the edit is still applied), so the caller can
/// log the client's mistake.
bool applyContentChange(std::string &text, const TextDocumentContentChangeEvent &change,
                        OffsetEncoding encoding);

enum class MarkupKind { PlainText, Markdown }; // "plaintext", "markdown".

struct MarkupContent {
  MarkupKind kind = MarkupKind::Markdown;
  std::string value;
};
/// An unknown kind is read as plaintext (the only kind every client renders).
void from_json(const json &j, MarkupContent &m);
void to_json(json &j, const MarkupContent &m);

/// Deviation: `contents` is always MarkupContent; the deprecated MarkedString forms are never produced
/// (and not read).
struct Hover {
  MarkupContent contents;
  std::optional<Range> range;
};
void from_json(const json &j, Hover &h);
void to_json(json &j, const Hover &h);

struct Command {
  std::string title;
  std::string command; // The identifier the client sends back in workspace/executeCommand.
  json arguments;      // An array, or null when there are none (then omitted on the wire).
};
void from_json(const json &j, Command &c);
void to_json(json &j, const Command &c);

struct CodeLens {
  Range range;
  std::optional<Command> command; // Unset until codeLens/resolve fills it in.
  /// Everything codeLens/resolve needs (the request keeps no state); null means absent.
  json data;
};
void from_json(const json &j, CodeLens &c);
void to_json(json &j, const CodeLens &c);

struct CodeLensParams {
  TextDocumentIdentifier textDocument;
};
void from_json(const json &j, CodeLensParams &p);
void to_json(json &j, const CodeLensParams &p);

/// textDocument/documentLink.
struct DocumentLinkParams {
  TextDocumentIdentifier textDocument;
};
void from_json(const json &j, DocumentLinkParams &p);
void to_json(json &j, const DocumentLinkParams &p);

struct DocumentLink {
  Range range;
  std::optional<std::string> target; ///< A URI; a fragment `#L<line>` selects a line in VS Code.
  std::optional<std::string> tooltip;
  json data; ///< Null means absent.
};
void from_json(const json &j, DocumentLink &l);
void to_json(json &j, const DocumentLink &l);

struct DocumentSymbolParams {
  TextDocumentIdentifier textDocument;
};
void from_json(const json &j, DocumentSymbolParams &p);
void to_json(json &j, const DocumentSymbolParams &p);

/// LSP 3.17 SymbolKind, with the spec's numbering. Values outside 1..26 read from the wire are kept.
enum class SymbolKind {
  File = 1,
  Module = 2,
  Namespace = 3,
  Package = 4,
  Class = 5,
  Method = 6,
  Property = 7,
  Field = 8,
  Constructor = 9,
  Enum = 10,
  Interface = 11,
  Function = 12,
  Variable = 13,
  Constant = 14,
  String = 15,
  Number = 16,
  Boolean = 17,
  Array = 18,
  Object = 19,
  Key = 20,
  Null = 21,
  EnumMember = 22,
  Struct = 23,
  Event = 24,
  Operator = 25,
  TypeParameter = 26,
};

/// Hierarchical symbol, for clients with hierarchicalDocumentSymbolSupport.
struct DocumentSymbol {
  std::string name;
  std::optional<std::string> detail;
  SymbolKind kind = SymbolKind::Function;
  Range range;          // The whole symbol, e.g. a kernel's definition and body.
  Range selectionRange; // Its name; contained in `range`.
  std::vector<DocumentSymbol> children;
};
void from_json(const json &j, DocumentSymbol &s);
void to_json(json &j, const DocumentSymbol &s);

/// Flat symbol, for workspace/symbol and for clients without hierarchical support.
struct SymbolInformation {
  std::string name;
  SymbolKind kind = SymbolKind::Function;
  Location location;
  std::optional<std::string> containerName;
};
void from_json(const json &j, SymbolInformation &s);
void to_json(json &j, const SymbolInformation &s);

/// textDocument/documentSymbol's answer: `symbols` as DocumentSymbol[] for a client with
/// hierarchicalDocumentSymbolSupport, else as SymbolInformation[] (each symbol's selectionRange in `uri`, its
/// children after it with its name as their containerName), as LSP 3.17 lets a server answer either.
struct DocumentSymbolResult {
  std::string uri; ///< The document's, for the flat form's locations.
  std::vector<DocumentSymbol> symbols;
  bool hierarchical = true;
};
void to_json(json &j, const DocumentSymbolResult &r);

struct WorkspaceSymbolParams {
  std::string query; // Empty means "all symbols".
};
void from_json(const json &j, WorkspaceSymbolParams &p);
void to_json(json &j, const WorkspaceSymbolParams &p);

struct WorkspaceFolder {
  std::string uri;
  std::string name;
};
void from_json(const json &j, WorkspaceFolder &f);
void to_json(json &j, const WorkspaceFolder &f);

/// Client capabilities that affect inductor-ls.
/// This struct doesn't mirror LSP! It flattens the few leaves of the spec's ClientCapabilities tree the
/// server acts on; the raw tree stays in InitializeParams::rawCapabilities. Every field defaults to what a
/// client that says nothing supports. Read-only: from_json only.
struct ClientCapabilities {
  /// general.positionEncodings (LSP 3.17), in the client's order of preference.
  std::vector<std::string> positionEncodings;
  /// offsetEncoding: clangd's pre-3.17 extension with the same meaning, still sent by some clients
  /// (nvim-lspconfig's clangd config). Read from the capabilities object itself.
  std::vector<std::string> offsetEncoding;
  /// window.workDoneProgress: the server may create progress with window/workDoneProgress/create.
  bool workDoneProgress = false;
  /// textDocument.documentSymbol.hierarchicalDocumentSymbolSupport.
  bool hierarchicalDocumentSymbolSupport = false;
  /// workspace.codeLens.refreshSupport: the server may send workspace/codeLens/refresh.
  bool codeLensRefreshSupport = false;
  /// window.showDocument.support: the server may send window/showDocument.
  bool showDocumentSupport = false;
  /// workspace.didChangeWatchedFiles.dynamicRegistration: file watchers may be registered at run time.
  bool didChangeWatchedFilesDynamicRegistration = false;
  /// textDocument.hover.contentFormat contains "markdown".
  bool hoverMarkdown = false;
  /// textDocument.diagnostic is present: the client pulls diagnostics (textDocument/diagnostic).
  bool diagnosticPull = false;
  /// workspace.diagnostics.refreshSupport: the server may send workspace/diagnostic/refresh.
  bool diagnosticRefreshSupport = false;
  /// textDocument.publishDiagnostics.relatedInformation.
  bool diagnosticRelatedInformation = false;
  /// workspace.inlayHint.refreshSupport: the server may send workspace/inlayHint/refresh.
  bool inlayHintRefreshSupport = false;

  /// All offers of both fields, positionEncodings first, for negotiateEncoding().
  std::vector<std::string> allEncodingOffers() const;
};
/// Tolerant beyond the rest of this file: a leaf of the wrong type is read as "not supported" instead of
/// failing initialize, since clients disagree on shapes here more than anywhere else.
void from_json(const json &j, ClientCapabilities &c);

struct ClientInfo {
  std::string name;
  std::optional<std::string> version;
};
void from_json(const json &j, ClientInfo &c);

struct InitializeParams {
  std::optional<std::int64_t> processId; // Null when the client was not started by a process.
  std::optional<ClientInfo> clientInfo;
  std::optional<std::string> rootUri;  // Deprecated in favour of workspaceFolders.
  std::optional<std::string> rootPath; // Deprecated in favour of rootUri.
  std::optional<std::vector<WorkspaceFolder>> workspaceFolders;
  json initializationOptions;       // Raw; null when absent. The server reads its own options from it.
  std::optional<std::string> trace; // "off" | "messages" | "verbose".
  ClientCapabilities capabilities;
  json rawCapabilities; // The capabilities object as sent, for anything ClientCapabilities lacks.
};
void from_json(const json &j, InitializeParams &p);

struct ServerInfo {
  std::string name;
  std::optional<std::string> version;
};
void to_json(json &j, const ServerInfo &s);

/// LSP's `{resolveProvider}` options, shared by the providers that take only that (codeLens, inlayHint,
/// documentLink).
struct ResolveOptions {
  bool resolveProvider = false;
};

/// LSP's `TextDocumentSyncOptions`; `change` is TextDocumentSyncKind (1 full, 2 incremental).
struct TextDocumentSyncOptions {
  bool openClose = true;
  int change = 2;
  bool save = false;
};

struct ExecuteCommandOptions {
  std::vector<std::string> commands; ///< The identifiers workspace/executeCommand accepts.
};

struct CodeActionOptions {
  std::vector<std::string> codeActionKinds;
  bool resolveProvider = false;
};

/// LSP 3.17 `DiagnosticOptions` (pull diagnostics).
struct DiagnosticOptions {
  std::string identifier;
  bool interFileDependencies = false;
  bool workspaceDiagnostics = false;
};

/// The ServerCapabilities the server announces: only what it implements. A provider that is false or unset is
/// omitted on the wire. Write-only (a server never reads another's capabilities).
struct ServerCapabilities {
  std::optional<OffsetEncoding> positionEncoding; ///< LSP 3.17; set when the client offered encodings.
  TextDocumentSyncOptions textDocumentSync;
  bool definitionProvider = false;
  bool referencesProvider = false;
  bool hoverProvider = false;
  bool documentSymbolProvider = false;
  bool workspaceSymbolProvider = false;
  std::optional<ResolveOptions> codeLensProvider;
  std::optional<ResolveOptions> inlayHintProvider;
  std::optional<ResolveOptions> documentLinkProvider;
  std::optional<ExecuteCommandOptions> executeCommandProvider;
  std::optional<CodeActionOptions> codeActionProvider;
  std::optional<DiagnosticOptions> diagnosticProvider;
};
void to_json(json &j, const ServerCapabilities &c);

struct InitializeResult {
  ServerCapabilities capabilities;
  std::optional<ServerInfo> serverInfo;
  /// clangd extension answering ClientCapabilities::offsetEncoding; set only when the client sent that.
  std::optional<OffsetEncoding> offsetEncoding;
};
void to_json(json &j, const InitializeResult &r);

/// `$/progress` with a work-done payload. `token` is `integer | string`, kept as json.
template <class T> struct ProgressParams {
  json token;
  T value;
};
template <class T> void to_json(json &j, const ProgressParams<T> &p) {
  j = json{{"token", p.token}, {"value", p.value}};
}

/// window/workDoneProgress/create.
struct WorkDoneProgressCreateParams {
  json token;
};
void to_json(json &j, const WorkDoneProgressCreateParams &p);

struct WorkDoneProgressBegin {
  std::string title;
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<std::uint32_t> percentage; // 0..100.
};
void to_json(json &j, const WorkDoneProgressBegin &p); // Adds "kind": "begin".

struct WorkDoneProgressReport {
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<std::uint32_t> percentage;
};
void to_json(json &j, const WorkDoneProgressReport &p); // Adds "kind": "report".

struct WorkDoneProgressEnd {
  std::optional<std::string> message;
};
void to_json(json &j, const WorkDoneProgressEnd &p); // Adds "kind": "end".

/// Log = 4; Debug = 5 is new in LSP 3.18 and shown as Log by older clients.
enum class MessageType { Error = 1, Warning = 2, Info = 3, Log = 4, Debug = 5 };

/// window/logMessage.
struct LogMessageParams {
  MessageType type = MessageType::Log;
  std::string message;
};
void from_json(const json &j, LogMessageParams &p);
void to_json(json &j, const LogMessageParams &p);

/// window/showMessage.
struct ShowMessageParams {
  MessageType type = MessageType::Info;
  std::string message;
};
void from_json(const json &j, ShowMessageParams &p);
void to_json(json &j, const ShowMessageParams &p);

/// window/showDocument (needs ClientCapabilities::showDocumentSupport).
struct ShowDocumentParams {
  std::string uri;
  std::optional<bool> external;
  std::optional<bool> takeFocus;
  std::optional<Range> selection;
};
void to_json(json &j, const ShowDocumentParams &p);

/// $/cancelRequest. `id` is `integer | string`, kept as json to match Message::id exactly.
struct CancelParams {
  json id;
};
/// Throws (InvalidParams) when `id` is missing or neither integer nor string.
void from_json(const json &j, CancelParams &p);
void to_json(json &j, const CancelParams &p);

/// workspace/executeCommand.
struct ExecuteCommandParams {
  std::string command;
  json arguments; // An array, or null when absent.
};
void from_json(const json &j, ExecuteCommandParams &p);
void to_json(json &j, const ExecuteCommandParams &p);

/// workspace/didChangeConfiguration. `settings` is whatever the client sends (null if absent).
struct DidChangeConfigurationParams {
  json settings;
};
void from_json(const json &j, DidChangeConfigurationParams &p);
void to_json(json &j, const DidChangeConfigurationParams &p);

enum class FileChangeType { Created = 1, Changed = 2, Deleted = 3 };

struct FileEvent {
  std::string uri;
  FileChangeType type = FileChangeType::Changed;
};
void from_json(const json &j, FileEvent &e);
void to_json(json &j, const FileEvent &e);

/// workspace/didChangeWatchedFiles.
struct DidChangeWatchedFilesParams {
  std::vector<FileEvent> changes;
};
void from_json(const json &j, DidChangeWatchedFilesParams &p);
void to_json(json &j, const DidChangeWatchedFilesParams &p);

// ---------------------------------------------------------------------------------------------------------
// Inlay hints, diagnostics and code actions (LSP 3.17).

enum class InlayHintKind { Type = 1, Parameter = 2 };

/// Deviation: `label` is always a string (the InlayHintLabelPart[] form is never produced) and `tooltip`
/// always MarkupContent.
struct InlayHint {
  Position position;
  std::string label;
  std::optional<InlayHintKind> kind;
  std::optional<MarkupContent> tooltip;
  std::optional<bool> paddingLeft, paddingRight;
  json data; ///< Null means absent.
};
void from_json(const json &j, InlayHint &h);
void to_json(json &j, const InlayHint &h);

struct InlayHintParams {
  TextDocumentIdentifier textDocument;
  Range range; ///< The visible range the client asks hints for.
};
void from_json(const json &j, InlayHintParams &p);
void to_json(json &j, const InlayHintParams &p);

/// DiagnosticSeverity.
enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct CodeDescription {
  std::string href; // A URI, e.g. the page of a graph-break site.
};
void from_json(const json &j, CodeDescription &c);
void to_json(json &j, const CodeDescription &c);

struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
};
void from_json(const json &j, DiagnosticRelatedInformation &r);
void to_json(json &j, const DiagnosticRelatedInformation &r);

/// Deviation: `code` is a string only (the spec allows `integer | string`; a number read from the wire is
/// kept as its decimal text); `tags` and `data` are not modelled.
/// The server's own `Diagnostic.data` (LSP: any), described as `DiagnosticData` in
/// protocol/inductor-protocol.json. Read back from a client's codeAction context: unknown members are
/// ignored, anything but an object reads as absent.
struct DiagnosticData {
  /// The id of the baseline run when the diagnostic's event is new since that run
  /// (server/format/CompareFormat).
  std::optional<std::string> newSinceRun;
};
void from_json(const json &j, DiagnosticData &d);
void to_json(json &j, const DiagnosticData &d);

struct Diagnostic {
  Range range;
  std::optional<DiagnosticSeverity> severity;
  std::optional<std::string> code;
  std::optional<CodeDescription> codeDescription;
  std::optional<std::string> source;
  std::string message;
  std::vector<DiagnosticRelatedInformation> relatedInformation; // Omitted on the wire when empty.
  std::optional<DiagnosticData> data;
};
void from_json(const json &j, Diagnostic &d);
void to_json(json &j, const Diagnostic &d);

/// textDocument/publishDiagnostics.
struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<std::int32_t> version;
  std::vector<Diagnostic> diagnostics;
};
void to_json(json &j, const PublishDiagnosticsParams &p);

/// textDocument/diagnostic. `identifier` is the server's diagnosticProvider identifier.
struct DocumentDiagnosticParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> identifier;
  std::optional<std::string> previousResultId;
};
void from_json(const json &j, DocumentDiagnosticParams &p);

/// DocumentDiagnosticReport: "full" with `items`, or "unchanged" (same resultId as the client's).
/// Deviation: `relatedDocuments` is not modelled.
struct DocumentDiagnosticReport {
  bool unchanged = false;
  std::optional<std::string> resultId;
  std::vector<Diagnostic> items;
};
void to_json(json &j, const DocumentDiagnosticReport &r);

struct PreviousResultId {
  std::string uri;
  std::string value;
};
void from_json(const json &j, PreviousResultId &p);

/// workspace/diagnostic.
struct WorkspaceDiagnosticParams {
  std::optional<std::string> identifier;
  std::vector<PreviousResultId> previousResultIds;
};
void from_json(const json &j, WorkspaceDiagnosticParams &p);

/// WorkspaceDocumentDiagnosticReport: a DocumentDiagnosticReport with its document.
struct WorkspaceDocumentDiagnosticReport {
  std::string uri;
  std::optional<std::int32_t> version; // null on the wire when the document is not open.
  DocumentDiagnosticReport report;
};
struct WorkspaceDiagnosticReport {
  std::vector<WorkspaceDocumentDiagnosticReport> items;
};
void to_json(json &j, const WorkspaceDiagnosticReport &r);

struct TextEdit {
  Range range;
  std::string newText;
};
void from_json(const json &j, TextEdit &e);
void to_json(json &j, const TextEdit &e);

/// Deviation: only `changes` (uri -> edits), which every client supports; no documentChanges.
struct WorkspaceEdit {
  std::map<std::string, std::vector<TextEdit>> changes;
};
void from_json(const json &j, WorkspaceEdit &e);
void to_json(json &j, const WorkspaceEdit &e);

struct CodeActionContext {
  std::vector<Diagnostic> diagnostics;
  std::vector<std::string> only; // Requested kinds; empty: all.
};
void from_json(const json &j, CodeActionContext &c);
void to_json(json &j, const CodeActionContext &c);

struct CodeActionParams {
  TextDocumentIdentifier textDocument;
  Range range;
  CodeActionContext context;
};
void from_json(const json &j, CodeActionParams &p);
void to_json(json &j, const CodeActionParams &p);

struct CodeAction {
  std::string title;
  std::optional<std::string> kind; // "quickfix", ...
  std::vector<Diagnostic> diagnostics;
  std::optional<bool> isPreferred;
  std::optional<WorkspaceEdit> edit;
  std::optional<Command> command;
  json data; ///< Null means absent.
};
void from_json(const json &j, CodeAction &a);
void to_json(json &j, const CodeAction &a);

/// WatchKind bit flags of a FileSystemWatcher.
enum WatchKind : uint32_t { WatchCreate = 1, WatchChange = 2, WatchDelete = 4 };

/// Deviation: `globPattern` is only the string form (GlobPattern also allows a RelativePattern).
struct FileSystemWatcher {
  std::string globPattern;
  std::optional<uint32_t> kind; ///< WatchKind flags; unset means all three.
};
void to_json(json &j, const FileSystemWatcher &w);

struct DidChangeWatchedFilesRegistrationOptions {
  std::vector<FileSystemWatcher> watchers;
};
void to_json(json &j, const DidChangeWatchedFilesRegistrationOptions &o);

/// One dynamic registration (client/registerCapability). `registerOptions` is the method's options, raw.
struct Registration {
  std::string id;
  std::string method;
  json registerOptions;
};
void to_json(json &j, const Registration &r);

/// client/registerCapability.
struct RegistrationParams {
  std::vector<Registration> registrations;
};
void to_json(json &j, const RegistrationParams &p);

// NOLINTEND(readability-identifier-naming)

} // namespace inductor::protocol
