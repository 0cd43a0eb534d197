// protocol/JsonRpc.cpp: building and decoding JSON-RPC 2.0 messages.
#include "protocol/JsonRpc.h"

#include <utility>

namespace inductor::protocol {

namespace {

// LSP ids are `integer | string`. JSON-RPC allows fractional numbers but discourages them, and no LSP client
// sends them, so they are rejected along with booleans, objects and arrays.
bool isValidId(const json &id) {
  return id.is_number_integer() || id.is_string();
}

MessageError invalid(std::string message, json id = nullptr) {
  return MessageError{ErrorCode::InvalidRequest, std::move(message), std::move(id)};
}

} // namespace

json makeResponse(const json &id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json makeErrorResponse(const json &id, ErrorCode code, std::string_view message, std::optional<json> data) {
  json error{{"code", static_cast<int>(code)}, {"message", message}};
  if (data) error["data"] = std::move(*data);
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

json makeNotification(std::string_view method, json params) {
  json message{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return message;
}

json makeRequest(const json &id, std::string_view method, json params) {
  json message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return message;
}

std::variant<Message, MessageError> parseMessage(std::string_view body) {
  json j = json::parse(body, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return MessageError{ErrorCode::ParseError, "message is not valid JSON", nullptr};
  if (!j.is_object())
    return invalid(j.is_array() ? "batch messages are not supported" : "message is not a JSON object");

  if (auto version = j.find("jsonrpc"); version != j.end() && *version != "2.0")
    return invalid("unsupported jsonrpc version " + version->dump());

  Message message;
  const auto idIt = j.find("id");
  const bool hasId = idIt != j.end();
  if (hasId) message.id = *idIt;
  // A response may carry "id": null (a reply to a message we sent whose id the peer could not read).
  const auto methodIt = j.find("method");
  if (methodIt == j.end()) {
    const auto resultIt = j.find("result");
    const auto errorIt = j.find("error");
    if (resultIt == j.end() && errorIt == j.end())
      return invalid("message has no method, result or error",
                     hasId && isValidId(message.id) ? message.id : json());
    if (!hasId || !(message.id.is_null() || isValidId(message.id)))
      return invalid("response has a missing or invalid id");
    message.kind = Message::Kind::Response;
    if (resultIt != j.end()) message.result = std::move(*resultIt);
    if (errorIt != j.end()) {
      const json &e = *errorIt;
      if (!e.is_object() || !e.contains("code") || !e["code"].is_number_integer() || !e.contains("message") ||
          !e["message"].is_string())
        return invalid("response error needs an integer code and a string message", message.id);
      ResponseError error;
      error.code = static_cast<ErrorCode>(e["code"].get<int>());
      error.message = e["message"].get<std::string>();
      if (auto data = e.find("data"); data != e.end()) error.data = *data;
      message.error = std::move(error);
    }
    return message;
  }

  if (hasId && !isValidId(message.id)) return invalid("id must be an integer or a string");
  if (!methodIt->is_string()) return invalid("method must be a string", message.id);
  message.method = methodIt->get<std::string>();
  message.kind = hasId ? Message::Kind::Request : Message::Kind::Notification;
  if (auto params = j.find("params"); params != j.end()) {
    if (!params->is_object() && !params->is_array() && !params->is_null())
      return invalid("params must be an object or an array", message.id);
    message.params = std::move(*params);
  }
  return message;
}

} // namespace inductor::protocol
