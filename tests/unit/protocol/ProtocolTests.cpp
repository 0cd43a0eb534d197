// Tests for protocol/Protocol.h: LSP types to and from JSON, error paths, capabilities, content changes.
#include "protocol/Protocol.h"

#include <doctest/doctest.h>

using namespace inductor::protocol;

namespace {

/// Parses `text` into T, requiring success.
template <class T> T parse(std::string_view text) {
  T out;
  std::string error;
  const bool ok = fromJSON(json::parse(text), out, error);
  REQUIRE_MESSAGE(ok, error);
  return out;
}

/// Parses `text` into T, requiring failure, and returns the error message.
template <class T> std::string parseError(std::string_view text) {
  T out;
  std::string error;
  const bool ok = fromJSON(json::parse(text), out, error);
  REQUIRE_MESSAGE(!ok, text);
  return error;
}

/// to_json then from_json gives back the same JSON.
template <class T> void checkRoundTrip(const json &j) {
  CAPTURE(j.dump());
  CHECK(json(parse<T>(j.dump())) == j);
}

bool contains(const std::string &haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

} // namespace

TEST_CASE("Position, Range, Location round-trip") {
  checkRoundTrip<Position>(json{{"line", 3}, {"character", 7}});
  checkRoundTrip<Range>(json::parse(R"({"start":{"line":0,"character":1},"end":{"line":2,"character":0}})"));
  checkRoundTrip<Location>(json::parse(
      R"({"uri":"file:///a.py","range":{"start":{"line":0,"character":1},"end":{"line":0,"character":4}}})"));
  const Position p = parse<Position>(R"({"line":1,"character":2,"unknown":[1,2]})");
  CHECK(p == Position{1, 2});
  // Negative numbers, which the spec forbids, are read as 0 instead of wrapping.
  CHECK(parse<Position>(R"({"line":-1,"character":-5})") == Position{0, 0});
  CHECK(Position{1, 5} < Position{2, 0});
  CHECK(Position{1, 5} < Position{1, 6});
}

TEST_CASE("wrong types and missing required members report the JSON path") {
  std::string error = parseError<TextDocumentPositionParams>(
      R"({"textDocument":{"uri":42},"position":{"line":0,"character":0}})");
  CHECK(contains(error, "/textDocument/uri"));
  CHECK(contains(error, "type must be string"));

  error =
      parseError<TextDocumentPositionParams>(R"({"textDocument":{"uri":"file:///a"},"position":{"line":0}})");
  CHECK(contains(error, "/position"));
  CHECK(contains(error, "'character' not found"));

  error = parseError<TextDocumentPositionParams>(R"({"textDocument":{"uri":"file:///a"}})");
  CHECK(contains(error, "'position' not found"));

  error = parseError<DidChangeTextDocumentParams>(
      R"({"textDocument":{"uri":"u","version":1},"contentChanges":[{"text":"a"},{"text":5}]})");
  CHECK(contains(error, "/contentChanges/1/text"));

  error = parseError<Position>(R"({"line":"1","character":0})");
  CHECK(contains(error, "/line"));

  // A params object that is not an object at all.
  error = parseError<CodeLensParams>(R"("file:///a.py")");
  CHECK_FALSE(error.empty());
}

TEST_CASE("LocationLink omits an unset originSelectionRange") {
  LocationLink link;
  link.targetUri = "inductor-trace:/t.log/3/a.py";
  link.targetRange = Range{{1, 0}, {5, 0}};
  link.targetSelectionRange = Range{{1, 4}, {1, 10}};
  json j = link;
  CHECK_FALSE(j.contains("originSelectionRange"));
  CHECK(j["targetUri"] == "inductor-trace:/t.log/3/a.py");
  link.originSelectionRange = Range{{0, 0}, {0, 3}};
  j = link;
  CHECK(j["originSelectionRange"]["end"]["character"] == 3);
  CHECK(parse<LocationLink>(j.dump()) == link);
}

TEST_CASE("text document params") {
  const DidOpenTextDocumentParams open = parse<DidOpenTextDocumentParams>(
      R"({"textDocument":{"uri":"file:///o.py","languageId":"python","version":3,"text":"x = 1\n"}})");
  CHECK(open.textDocument.uri == "file:///o.py");
  CHECK(open.textDocument.languageId == "python");
  CHECK(open.textDocument.version == 3);
  CHECK(open.textDocument.text == "x = 1\n");

  const DidChangeTextDocumentParams change = parse<DidChangeTextDocumentParams>(
      R"({"textDocument":{"uri":"file:///o.py","version":4},"contentChanges":[
           {"range":{"start":{"line":0,"character":4},"end":{"line":0,"character":5}},"rangeLength":1,"text":"2"},
           {"text":"whole"}]})");
  CHECK(change.textDocument.version == 4);
  REQUIRE(change.contentChanges.size() == 2);
  REQUIRE(change.contentChanges[0].range.has_value());
  CHECK(change.contentChanges[0].range->start == Position{0, 4});
  CHECK(change.contentChanges[0].rangeLength == 1u);
  CHECK_FALSE(change.contentChanges[1].range.has_value());
  CHECK(change.contentChanges[1].text == "whole");
  checkRoundTrip<DidChangeTextDocumentParams>(json(change));

  // A null range is the same as no range.
  CHECK_FALSE(parse<TextDocumentContentChangeEvent>(R"({"range":null,"text":"t"})").range.has_value());

  CHECK(parse<DidCloseTextDocumentParams>(R"({"textDocument":{"uri":"u"}})").textDocument.uri == "u");
  const DidSaveTextDocumentParams save = parse<DidSaveTextDocumentParams>(R"({"textDocument":{"uri":"u"}})");
  CHECK_FALSE(save.text.has_value());
  CHECK(parse<DidSaveTextDocumentParams>(R"({"textDocument":{"uri":"u"},"text":"t"})").text == "t");

  // Tolerated: a VersionedTextDocumentIdentifier without version, a TextDocumentItem without languageId.
  CHECK(parse<VersionedTextDocumentIdentifier>(R"({"uri":"u"})").version == 0);
  CHECK(parse<TextDocumentItem>(R"({"uri":"u","text":""})").languageId.empty());
}

TEST_CASE("ReferenceParams: context is optional and the base members are read") {
  const ReferenceParams refs = parse<ReferenceParams>(
      R"({"textDocument":{"uri":"u"},"position":{"line":2,"character":3},"context":{"includeDeclaration":true}})");
  CHECK(refs.textDocument.uri == "u");
  CHECK(refs.position == Position{2, 3});
  CHECK(refs.context.includeDeclaration);
  CHECK_FALSE(parse<ReferenceParams>(R"({"textDocument":{"uri":"u"},"position":{"line":0,"character":0}})")
                  .context.includeDeclaration);
  checkRoundTrip<ReferenceParams>(json(refs));
}

TEST_CASE("Hover, MarkupContent, Command, CodeLens") {
  Hover hover;
  hover.contents = MarkupContent{MarkupKind::Markdown, "**kernel** `triton_poi_fused_0`"};
  json j = hover;
  CHECK(j == json::parse(R"({"contents":{"kind":"markdown","value":"**kernel** `triton_poi_fused_0`"}})"));
  hover.range = Range{{1, 0}, {1, 5}};
  checkRoundTrip<Hover>(json(hover));
  CHECK(parse<MarkupContent>(R"({"kind":"plaintext","value":"v"})").kind == MarkupKind::PlainText);
  CHECK(parse<MarkupContent>(R"({"kind":"html","value":"v"})").kind == MarkupKind::PlainText);

  CodeLens lens;
  lens.range = Range{{4, 0}, {4, 10}};
  j = lens;
  // Unresolved lens: no command, no data.
  CHECK(j == json::parse(R"({"range":{"start":{"line":4,"character":0},"end":{"line":4,"character":10}}})"));
  lens.data = json{{"compileId", "0/0"}, {"debugHandle", 7}};
  lens.command = Command{"3 FX nodes", "inductor.showNodes", json::array({"a", 1})};
  j = lens;
  CHECK(j["data"]["debugHandle"] == 7);
  CHECK(j["command"]["arguments"] == json::array({"a", 1}));
  const CodeLens back = parse<CodeLens>(j.dump());
  CHECK(back.data == lens.data);
  REQUIRE(back.command.has_value());
  CHECK(back.command->command == "inductor.showNodes");
  // A command without arguments has no "arguments" member.
  CHECK_FALSE(json(Command{"t", "c", nullptr}).contains("arguments"));
  CHECK(parse<CodeLensParams>(R"({"textDocument":{"uri":"u"},"workDoneToken":"w"})").textDocument.uri == "u");
}

TEST_CASE("DocumentSymbol is hierarchical; SymbolInformation is flat") {
  DocumentSymbol child{"triton_poi_fused_add_0", std::nullopt,           SymbolKind::Function,
                       Range{{2, 0}, {9, 0}},    Range{{2, 4}, {2, 26}}, {}};
  DocumentSymbol parent{
      "call", std::string("wrapper"), SymbolKind::Method, Range{{0, 0}, {20, 0}}, Range{{0, 4}, {0, 8}},
      {child}};
  const json j = parent;
  CHECK(j["kind"] == 6);
  CHECK(j["detail"] == "wrapper");
  REQUIRE(j["children"].size() == 1);
  CHECK(j["children"][0]["kind"] == 12);
  CHECK_FALSE(j["children"][0].contains("children")); // Empty children are omitted.
  CHECK_FALSE(j["children"][0].contains("detail"));
  checkRoundTrip<DocumentSymbol>(j);

  SymbolInformation info{"kernel", SymbolKind::Function, Location{"file:///o.py", Range{{1, 0}, {1, 6}}},
                         "call"};
  checkRoundTrip<SymbolInformation>(json(info));
  CHECK(json(info)["containerName"] == "call");
  CHECK(parse<WorkspaceSymbolParams>(R"({"query":"triton"})").query == "triton");
  CHECK(parse<WorkspaceSymbolParams>("{}").query.empty());
  CHECK(parse<DocumentSymbolParams>(R"({"textDocument":{"uri":"u"}})").textDocument.uri == "u");
}

TEST_CASE("InitializeParams: a VS Code style request") {
  const InitializeParams init = parse<InitializeParams>(R"({
    "processId": 1234,
    "clientInfo": {"name": "Visual Studio Code", "version": "1.90.0"},
    "rootPath": "/tmp/work",
    "rootUri": "file:///tmp/work",
    "workspaceFolders": [{"uri": "file:///tmp/work", "name": "work"}],
    "initializationOptions": {"traceDir": "/tmp/work/trace"},
    "trace": "off",
    "capabilities": {
      "general": {"positionEncodings": ["utf-16"]},
      "window": {"workDoneProgress": true, "showDocument": {"support": true}},
      "workspace": {"codeLens": {"refreshSupport": true},
                    "didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": true}},
      "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                       "documentSymbol": {"hierarchicalDocumentSymbolSupport": true}},
      "experimental": {"anything": 1}
    }
  })");
  CHECK(init.processId == 1234);
  REQUIRE(init.clientInfo.has_value());
  CHECK(init.clientInfo->name == "Visual Studio Code");
  CHECK(init.rootUri == "file:///tmp/work");
  CHECK(init.rootPath == "/tmp/work");
  REQUIRE(init.workspaceFolders.has_value());
  CHECK(init.workspaceFolders->at(0).name == "work");
  CHECK(init.initializationOptions["traceDir"] == "/tmp/work/trace");
  CHECK(init.trace == "off");
  const ClientCapabilities &caps = init.capabilities;
  CHECK(caps.positionEncodings == std::vector<std::string>{"utf-16"});
  CHECK(caps.offsetEncoding.empty());
  CHECK(caps.workDoneProgress);
  CHECK(caps.showDocumentSupport);
  CHECK(caps.codeLensRefreshSupport);
  CHECK(caps.didChangeWatchedFilesDynamicRegistration);
  CHECK(caps.hoverMarkdown);
  CHECK(caps.hierarchicalDocumentSymbolSupport);
  CHECK(init.rawCapabilities["experimental"]["anything"] == 1);
  CHECK(negotiateEncoding(caps.allEncodingOffers()) == OffsetEncoding::UTF16);
}

TEST_CASE("InitializeParams: a minimal Neovim style request") {
  const InitializeParams init = parse<InitializeParams>(R"({
    "processId": null, "rootUri": null, "workspaceFolders": null,
    "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}, "offsetEncoding": ["utf-8", "utf-16"]}
  })");
  CHECK_FALSE(init.processId.has_value());
  CHECK_FALSE(init.rootUri.has_value());
  CHECK_FALSE(init.workspaceFolders.has_value());
  CHECK(init.initializationOptions.is_null());
  CHECK(init.capabilities.offsetEncoding == std::vector<std::string>{"utf-8", "utf-16"});
  CHECK_FALSE(init.capabilities.workDoneProgress);
  CHECK_FALSE(init.capabilities.hoverMarkdown);
  CHECK(negotiateEncoding(init.capabilities.allEncodingOffers()) == OffsetEncoding::UTF8);

  // No capabilities at all (the spec requires them; tolerated).
  const InitializeParams bare = parse<InitializeParams>("{}");
  CHECK_FALSE(bare.capabilities.workDoneProgress);
  CHECK(bare.capabilities.positionEncodings.empty());
}

TEST_CASE("ClientCapabilities read leaves of the wrong type as unsupported") {
  const InitializeParams init = parse<InitializeParams>(R"({"capabilities": {
    "general": {"positionEncodings": "utf-8"},
    "window": {"workDoneProgress": "yes", "showDocument": true},
    "workspace": {"codeLens": null},
    "textDocument": {"hover": {"contentFormat": [1, "markdown"]}},
    "offsetEncoding": [7, "utf-8"]
  }})");
  const ClientCapabilities &caps = init.capabilities;
  CHECK(caps.positionEncodings.empty());
  CHECK_FALSE(caps.workDoneProgress);
  CHECK_FALSE(caps.showDocumentSupport);
  CHECK_FALSE(caps.codeLensRefreshSupport);
  CHECK(caps.hoverMarkdown);
  CHECK(caps.offsetEncoding == std::vector<std::string>{"utf-8"});
}

TEST_CASE("InitializeParams: wrong types outside capabilities are errors") {
  CHECK(contains(parseError<InitializeParams>(R"({"processId":"x"})"), "/processId"));
  CHECK(contains(parseError<InitializeParams>(R"({"workspaceFolders":[{"name":"n"}]})"),
                 "/workspaceFolders/0"));
}

TEST_CASE("InitializeResult") {
  InitializeResult result;
  result.capabilities.hoverProvider = true;
  result.capabilities.textDocumentSync.change = 1;
  result.serverInfo = ServerInfo{"inductor-ls", "0.1.0"};
  json j = result;
  CHECK(j == json::parse(R"({"capabilities":{"hoverProvider":true,
                                             "textDocumentSync":{"openClose":true,"change":1,"save":false}},
                             "serverInfo":{"name":"inductor-ls","version":"0.1.0"}})"));
  result.offsetEncoding = OffsetEncoding::UTF8;
  j = result;
  CHECK(j["offsetEncoding"] == "utf-8");
}

TEST_CASE(
    "ServerCapabilities: a provider that is off or unset is omitted; options are written as LSP names them") {
  ServerCapabilities caps;
  json j = caps;
  CHECK(j == json::parse(R"({"textDocumentSync":{"openClose":true,"change":2,"save":false}})"));
  caps.positionEncoding = OffsetEncoding::UTF16;
  caps.definitionProvider = true;
  caps.codeLensProvider = ResolveOptions{};
  caps.executeCommandProvider = ExecuteCommandOptions{{"a.b"}};
  caps.codeActionProvider = CodeActionOptions{{"quickfix"}, false};
  caps.diagnosticProvider = DiagnosticOptions{"id", false, true};
  j = caps;
  CHECK(j["positionEncoding"] == "utf-16");
  CHECK(j["definitionProvider"] == true);
  CHECK(!j.contains("referencesProvider"));
  CHECK(j["codeLensProvider"] == json::parse(R"({"resolveProvider":false})"));
  CHECK(!j.contains("inlayHintProvider"));
  CHECK(j["executeCommandProvider"] == json::parse(R"({"commands":["a.b"]})"));
  CHECK(j["codeActionProvider"] ==
        json::parse(R"({"codeActionKinds":["quickfix"],"resolveProvider":false})"));
  CHECK(j["diagnosticProvider"] ==
        json::parse(R"({"identifier":"id","interFileDependencies":false,"workspaceDiagnostics":true})"));
}

TEST_CASE("Diagnostic.data: the server's DiagnosticData; anything else a client sends back reads as absent") {
  Diagnostic d;
  d.message = "m";
  CHECK(!json(d).contains("data"));
  d.data = DiagnosticData{"2026-11-27 02:31:47"};
  json j = d;
  CHECK(j["data"] == json::parse(R"({"newSinceRun":"2026-11-27 02:31:47"})"));
  Diagnostic back = j.get<Diagnostic>();
  REQUIRE(back.data);
  CHECK(back.data->newSinceRun == std::optional<std::string>("2026-11-27 02:31:47"));
  j["data"] = "opaque";
  CHECK(!j.get<Diagnostic>().data);
  j["data"] = json{{"newSinceRun", 3}, {"other", true}};
  back = j.get<Diagnostic>();
  REQUIRE(back.data);
  CHECK(!back.data->newSinceRun);
}

TEST_CASE("work done progress payloads carry their kind") {
  ProgressParams<WorkDoneProgressBegin> begin{"tok",
                                              WorkDoneProgressBegin{"Indexing trace", false, "log 1/3", 0}};
  CHECK(json(begin) == json::parse(R"({"token":"tok","value":{"kind":"begin","title":"Indexing trace",
                                        "cancellable":false,"message":"log 1/3","percentage":0}})"));
  ProgressParams<WorkDoneProgressReport> report{7, WorkDoneProgressReport{std::nullopt, std::nullopt, 50}};
  CHECK(json(report) == json::parse(R"({"token":7,"value":{"kind":"report","percentage":50}})"));
  ProgressParams<WorkDoneProgressEnd> end{7, WorkDoneProgressEnd{}};
  CHECK(json(end) == json::parse(R"({"token":7,"value":{"kind":"end"}})"));
  CHECK(json(WorkDoneProgressCreateParams{"tok"}) == json::parse(R"({"token":"tok"})"));
}

TEST_CASE("window messages, cancel, commands, configuration, watched files") {
  checkRoundTrip<LogMessageParams>(json::parse(R"({"type":4,"message":"indexed 3 logs"})"));
  checkRoundTrip<ShowMessageParams>(json::parse(R"({"type":1,"message":"trace not found"})"));
  CHECK(json(LogMessageParams{MessageType::Warning, "w"})["type"] == 2);

  ShowDocumentParams show{"file:///m.py", std::nullopt, true, Range{{3, 0}, {3, 0}}};
  CHECK(json(show) == json::parse(R"({"uri":"file:///m.py","takeFocus":true,
                                     "selection":{"start":{"line":3,"character":0},"end":{"line":3,"character":0}}})"));

  CHECK(parse<CancelParams>(R"({"id":5})").id == 5);
  CHECK(parse<CancelParams>(R"({"id":"r5"})").id == "r5");
  CHECK(contains(parseError<CancelParams>(R"({"id":[5]})"), "/id"));
  CHECK(contains(parseError<CancelParams>(R"({})"), "'id' not found"));

  const ExecuteCommandParams exec =
      parse<ExecuteCommandParams>(R"({"command":"inductor.reload","arguments":[1]})");
  CHECK(exec.command == "inductor.reload");
  CHECK(exec.arguments == json::array({1}));
  CHECK(parse<ExecuteCommandParams>(R"({"command":"c"})").arguments.is_null());
  checkRoundTrip<ExecuteCommandParams>(json(exec));

  CHECK(parse<DidChangeConfigurationParams>(R"({"settings":{"inductor":{"traceDir":"/t"}}})")
            .settings["inductor"]["traceDir"] == "/t");
  CHECK(parse<DidChangeConfigurationParams>(R"({})").settings.is_null());

  const DidChangeWatchedFilesParams watched = parse<DidChangeWatchedFilesParams>(
      R"({"changes":[{"uri":"file:///t/a.log","type":1},{"uri":"u","type":3}]})");
  REQUIRE(watched.changes.size() == 2);
  CHECK(watched.changes[0].type == FileChangeType::Created);
  CHECK(watched.changes[1].type == FileChangeType::Deleted);
  checkRoundTrip<DidChangeWatchedFilesParams>(json(watched));
}

TEST_CASE("applyContentChange: full and ranged edits in each encoding") {
  std::string text = "a\xC3\xA9\xF0\x9F\x98\x80z\nline2\n";
  TextDocumentContentChangeEvent change;

  SUBCASE("full replacement") {
    change.text = "new";
    CHECK(applyContentChange(text, change, OffsetEncoding::UTF16));
    CHECK(text == "new");
  }
  SUBCASE("UTF-16: replace the emoji (2 units) with X") {
    change.range = Range{{0, 2}, {0, 4}};
    change.text = "X";
    CHECK(applyContentChange(text, change, OffsetEncoding::UTF16));
    CHECK(text == "a\xC3\xA9Xz\nline2\n");
  }
  SUBCASE("UTF-32: the emoji is one unit") {
    change.range = Range{{0, 2}, {0, 3}};
    change.text = "X";
    CHECK(applyContentChange(text, change, OffsetEncoding::UTF32));
    CHECK(text == "a\xC3\xA9Xz\nline2\n");
  }
  SUBCASE("UTF-8: byte columns") {
    change.range = Range{{0, 1}, {0, 3}};
    change.text = "e";
    CHECK(applyContentChange(text, change, OffsetEncoding::UTF8));
    CHECK(text == "ae\xF0\x9F\x98\x80z\nline2\n");
  }
  SUBCASE("multi-line deletion and insertion at the end") {
    change.range = Range{{0, 5}, {1, 4}};
    change.text = "";
    CHECK(applyContentChange(text, change, OffsetEncoding::UTF16));
    CHECK(text == "a\xC3\xA9\xF0\x9F\x98\x80z2\n");
    TextDocumentContentChangeEvent append;
    append.range = Range{{1, 0}, {1, 0}};
    append.text = "tail";
    CHECK(applyContentChange(text, append, OffsetEncoding::UTF16));
    CHECK(text == "a\xC3\xA9\xF0\x9F\x98\x80z2\ntail");
  }
}

TEST_CASE("applyContentChange repairs bad ranges like vscode-languageserver-textdocument") {
  TextDocumentContentChangeEvent change;
  change.text = "!";

  std::string text = "ab\ncd";
  change.range = Range{{0, 9}, {0, 9}}; // Past the end of line 0: clamped before the newline.
  CHECK_FALSE(applyContentChange(text, change, OffsetEncoding::UTF16));
  CHECK(text == "ab!\ncd");

  text = "ab\ncd";
  change.range = Range{{7, 0}, {9, 9}}; // Past the end of the text: appended.
  CHECK_FALSE(applyContentChange(text, change, OffsetEncoding::UTF16));
  CHECK(text == "ab\ncd!");

  text = "ab\ncd";
  change.range = Range{{1, 1}, {0, 1}}; // Reversed: swapped.
  CHECK_FALSE(applyContentChange(text, change, OffsetEncoding::UTF16));
  CHECK(text == "a!d");

  text = "\xF0\x9F\x98\x80";
  change.range = Range{{0, 1}, {0, 1}}; // Between the halves of a surrogate pair: after the code point.
  CHECK_FALSE(applyContentChange(text, change, OffsetEncoding::UTF16));
  CHECK(text == "\xF0\x9F\x98\x80!");
}

TEST_CASE("numbers out of range are clamped, floats included (no undefined float-to-int cast)") {
  // Finding 7 of issue 11: "line": 1e30 was a float-cast overflow under UBSan.
  CHECK(parse<Position>(R"({"line":1e30,"character":-1e30})") == Position{UINT32_MAX, 0});
  CHECK(parse<Position>(R"({"line":2.9,"character":18446744073709551615})") == Position{2, UINT32_MAX});
  CHECK(parse<Position>(R"({"line":-0.5,"character":4294967296})") == Position{0, UINT32_MAX});
  const auto item = parse<TextDocumentItem>(R"({"uri":"file:///a","text":"","version":1e300})");
  CHECK(item.version == INT32_MAX);
  CHECK(parse<VersionedTextDocumentIdentifier>(R"({"uri":"u","version":-1e300})").version == INT32_MIN);
  const auto init = parse<InitializeParams>(R"({"processId":1e40,"capabilities":{}})");
  CHECK(init.processId == INT64_MAX);
  CHECK(parse<FileEvent>(R"({"uri":"u","type":1e20})").type == static_cast<FileChangeType>(INT_MAX));
  const auto change = parse<TextDocumentContentChangeEvent>(R"({"text":"","rangeLength":-7.5})");
  CHECK(change.rangeLength == 0u);
  // Not a number at all is still an error with its path.
  json bad = json::parse(R"({"line":"3","character":0})");
  Position p;
  std::string error;
  CHECK_FALSE(fromJSON(bad, p, error));
  CHECK(error.find("/line") != std::string::npos);
}

TEST_CASE("Diagnostic: optional members omitted, a numeric code read as text") {
  Diagnostic d;
  d.range = Range{{8, 4}, {8, 26}};
  d.message = "Graph break: print";
  CHECK(json(d) ==
        json::parse(R"({"range": {"start": {"line": 8, "character": 4}, "end": {"line": 8, "character": 26}},
                                   "message": "Graph break: print"})"));
  d.severity = DiagnosticSeverity::Warning;
  d.code = "gb0059";
  d.codeDescription = CodeDescription{"https://example.org/gb0059.html"};
  d.source = "torch.compile";
  d.relatedInformation.push_back({Location{"file:///m.py", Range{{55, 0}, {55, 6}}}, "in <module>"});
  json j = d;
  CHECK(j["severity"] == 2);
  CHECK(j["code"] == "gb0059");
  CHECK(j["codeDescription"]["href"] == "https://example.org/gb0059.html");
  CHECK(j["relatedInformation"][0]["message"] == "in <module>");
  Diagnostic back;
  std::string error;
  REQUIRE(fromJSON(j, back, error));
  CHECK(back.code == "gb0059");
  CHECK(back.relatedInformation.size() == 1);
  json numeric = j;
  numeric["code"] = 42;
  numeric["severity"] = 9; // Out of range: clamped.
  REQUIRE(fromJSON(numeric, back, error));
  CHECK(back.code == "42");
  CHECK(back.severity == DiagnosticSeverity::Hint);
}

TEST_CASE("pull diagnostics: params and reports") {
  DocumentDiagnosticParams p;
  std::string error;
  REQUIRE(fromJSON(json{{"textDocument", {{"uri", "file:///m.py"}}}, {"previousResultId", "7"}}, p, error));
  CHECK(p.previousResultId == "7");
  CHECK_FALSE(p.identifier);
  DocumentDiagnosticReport full;
  full.resultId = "8";
  CHECK(json(full) == json{{"kind", "full"}, {"items", json::array()}, {"resultId", "8"}});
  DocumentDiagnosticReport same;
  same.unchanged = true;
  same.resultId = "8";
  CHECK(json(same) == json{{"kind", "unchanged"}, {"resultId", "8"}});
  WorkspaceDiagnosticParams w;
  REQUIRE(fromJSON(json::object(), w, error));
  CHECK(w.previousResultIds.empty());
  REQUIRE(fromJSON(json{{"previousResultIds", {{{"uri", "file:///m.py"}, {"value", "8"}}}}}, w, error));
  REQUIRE(w.previousResultIds.size() == 1);
  CHECK(w.previousResultIds[0].value == "8");
  WorkspaceDiagnosticReport report;
  report.items.push_back({"file:///m.py", std::nullopt, same});
  json r = report;
  CHECK(r["items"][0]["uri"] == "file:///m.py");
  CHECK(r["items"][0]["version"].is_null());
  CHECK(r["items"][0]["kind"] == "unchanged");
  CHECK_FALSE(fromJSON(json{{"previousResultIds", {{{"uri", 1}}}}}, w, error));
}

TEST_CASE("code actions: params with context, actions with workspace edits") {
  CodeActionParams p;
  std::string error;
  REQUIRE(fromJSON(json::parse(R"({"textDocument": {"uri": "file:///m.py"},
      "range": {"start": {"line": 20, "character": 0}, "end": {"line": 20, "character": 0}},
      "context": {"diagnostics": [{"range": {"start": {"line": 20, "character": 4}, "end": {"line": 20, "character": 9}},
                                   "message": "m", "source": "torch.compile"}], "only": ["quickfix"]}})"),
                   p, error));
  CHECK(p.range.start.line == 20);
  REQUIRE(p.context.diagnostics.size() == 1);
  CHECK(p.context.diagnostics[0].source == "torch.compile");
  CHECK(p.context.only == std::vector<std::string>{"quickfix"});
  CodeActionParams bare;
  REQUIRE(fromJSON(json{{"textDocument", {{"uri", "file:///m.py"}}}, {"range", Range{}}}, bare, error));
  CHECK(bare.context.diagnostics.empty());
  CodeAction a;
  a.title = "Set `torch._dynamo.config.capture_scalar_outputs = True`";
  a.kind = "quickfix";
  WorkspaceEdit edit;
  edit.changes["file:///m.py"].push_back({Range{{4, 0}, {4, 0}}, "x = 1\n"});
  a.edit = edit;
  json j = a;
  CHECK(j["kind"] == "quickfix");
  CHECK_FALSE(j.contains("diagnostics"));
  CHECK(j["edit"]["changes"]["file:///m.py"][0]["newText"] == "x = 1\n");
}

TEST_CASE("ClientCapabilities: pull diagnostics and their refresh") {
  ClientCapabilities c;
  std::string error;
  REQUIRE(fromJSON(json::object(), c, error));
  CHECK_FALSE(c.diagnosticPull);
  REQUIRE(fromJSON(json::parse(R"({"textDocument": {"diagnostic": {"dynamicRegistration": true},
                                                    "publishDiagnostics": {"relatedInformation": true}},
                                   "workspace": {"diagnostics": {"refreshSupport": true}}})"),
                   c, error));
  CHECK(c.diagnosticPull);
  CHECK(c.diagnosticRefreshSupport);
  CHECK(c.diagnosticRelatedInformation);
  REQUIRE(fromJSON(json::parse(R"({"textDocument": {"diagnostic": true}})"), c, error));
  CHECK_FALSE(c.diagnosticPull);
}
