// protocol/JsonRpc.h: JSON-RPC 2.0 messages as LSP uses them (LSP 3.17 "Base Protocol" section, and the
// JSON-RPC 2.0 specification for the error codes below -32000).
//
// LSP ids are `integer | string`; they are kept as json so that a reply echoes the id exactly as the client
// wrote it. LSP has no batches: a top-level array is an InvalidRequest.
#pragma once

#include "protocol/Json.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace inductor::protocol {

/// Error codes of JSON-RPC 2.0 and LSP 3.17 (`ErrorCodes` and `LSPErrorCodes`). The underlying int may hold
/// any other value a peer sends.
enum class ErrorCode : int {
  // Defined by JSON-RPC.
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  // Defined by LSP, in the range JSON-RPC reserves for implementations.
  ServerNotInitialized = -32002,
  UnknownErrorCode = -32001,
  // LSP 3.17 `LSPErrorCodes`.
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

/// The `error` member of a response: `{"code": int, "message": string, "data"?: any}`.
struct ResponseError {
  ErrorCode code = ErrorCode::InternalError;
  std::string message;
  std::optional<json> data;
};

/// `{"jsonrpc":"2.0","id":id,"result":result}`. `result` may be null ("nothing here" is a null result).
json makeResponse(const json &id, json result);

/// `{"jsonrpc":"2.0","id":id,"error":{"code":..,"message":..[,"data":..]}}`. Use a null id when the
/// request's id could not be read (ParseError, InvalidRequest).
json makeErrorResponse(const json &id, ErrorCode code, std::string_view message,
                       std::optional<json> data = std::nullopt);

/// `{"jsonrpc":"2.0","method":method[,"params":params]}`; params is omitted when null.
json makeNotification(std::string_view method, json params);

/// `{"jsonrpc":"2.0","id":id,"method":method[,"params":params]}` for server-to-client requests; params is
/// omitted when null.
json makeRequest(const json &id, std::string_view method, json params);

/// A well-formed JSON-RPC message, decoded but not interpreted.
struct Message {
  enum class Kind { Request, Notification, Response };
  Kind kind = Kind::Notification;
  /// Request and Response: the id as written (number or string; null only in a Response to a message whose
  /// id the peer could not read). Notification: null.
  json id;
  /// Request and Notification; empty for Response.
  std::string method;
  /// Request and Notification: an object, an array, or null when absent.
  json params;
  /// Response: the `result` member (null when absent or for an error response).
  json result;
  /// Response: set for an error response.
  std::optional<ResponseError> error;
};

/// Why a message could not be decoded, as the reply the server should send.
struct MessageError {
  ErrorCode code = ErrorCode::InvalidRequest; // ParseError or InvalidRequest.
  std::string message;
  /// The id to reply to, when the message had a valid one; otherwise null (the JSON-RPC spec's reply to an
  /// unreadable message carries "id": null).
  json id;
};

/// Deepest nesting of arrays and objects accepted in a message body; the message object itself is level 1.
/// LSP's deepest client messages (initialize's capabilities) use about 8 levels. Deeper input is refused
/// while it is parsed, before anything recursive (copies, dumps, conversions) can run over it: nlohmann's
/// parser is iterative, but copying or printing a value recurses once per level, and 60,000 levels overflow
/// the stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

/// Parses `text` as JSON with nesting of at most `maxDepth` levels. nullopt when the text is not JSON;
/// `tooDeep` (if given) tells whether that was because of the depth limit. Never throws (except bad_alloc),
/// never recurses, and stops at the first level past the limit, so memory stays in proportion to what was
/// parsed.
std::optional<json> parseBoundedJson(std::string_view text, std::size_t maxDepth = kMaxJsonDepth,
                                     bool *tooDeep = nullptr);

/// Decodes one message body. Never throws.
///  - Nesting deeper than kMaxJsonDepth: InvalidRequest, with the message's top-level `id` when it is a valid
///    one (found by a flat scan, wherever it stands), else a null id.
///  - Not JSON: ParseError, null id.
///  - Not an object; `jsonrpc` present but not "2.0"; id neither integer nor string; `method` not a string;
///    `params` neither object, array nor null (null is taken as absent); no `method` and neither `result` nor
///    `error`; an `error` member without an integer `code` and a string `message`: InvalidRequest.
/// Deliberately tolerated: a missing `jsonrpc` member, and unknown members (both appear in the wild).
std::variant<Message, MessageError> parseMessage(std::string_view body);

} // namespace inductor::protocol
