// libFuzzer target: JSON-RPC message decoding (protocol/JsonRpc.h) and the LSP params the server reads
// (protocol/Protocol.h), then what the server does with them first (applying edits, printing ids).
// Properties: depth is bounded, an error reply always has a valid or null id, parsed params serialise.
#include "FuzzInput.h"
#include "protocol/JsonRpc.h"
#include "protocol/Protocol.h"

using namespace inductor;
using namespace inductor::protocol;

namespace {

template <class T> void params(const json &p) {
  T out;
  std::string error;
  if (fromJSON(p, out, error)) (void)json(out).dump();
}

template <class T> void readOnly(const json &p) {
  T out;
  std::string error;
  (void)fromJSON(p, out, error);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view body(reinterpret_cast<const char *>(data), size);
  auto parsed = parseMessage(body);
  if (auto *error = std::get_if<MessageError>(&parsed)) {
    fuzz::require(error->id.is_null() || error->id.is_string() || error->id.is_number_integer(), "reply id");
    (void)makeErrorResponse(error->id, error->code, error->message).dump();
    return 0;
  }
  const Message &m = std::get<Message>(parsed);
  (void)m.id.dump();
  const json p = m.params.is_null() ? json::object() : m.params;
  params<TextDocumentPositionParams>(p);
  params<ReferenceParams>(p);
  params<DidOpenTextDocumentParams>(p);
  params<DidCloseTextDocumentParams>(p);
  params<CodeLensParams>(p);
  params<DocumentSymbolParams>(p);
  params<WorkspaceSymbolParams>(p);
  params<ExecuteCommandParams>(p);
  params<DidChangeConfigurationParams>(p);
  params<CancelParams>(p);
  params<DidChangeWatchedFilesParams>(p);
  readOnly<InitializeParams>(p);
  DidChangeTextDocumentParams change;
  std::string error;
  if (fromJSON(p, change, error)) {
    std::string text = "def f(x):\n    return x  # \xc3\xa9\xf0\x9f\x98\x80\n";
    for (auto encoding : {OffsetEncoding::UTF8, OffsetEncoding::UTF16, OffsetEncoding::UTF32})
      for (const TextDocumentContentChangeEvent &e : change.contentChanges)
        if (text.size() < (1u << 20)) (void)applyContentChange(text, e, encoding);
  }
  return 0;
}
