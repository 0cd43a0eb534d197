// protocol/JsonRpc.cpp: building and decoding JSON-RPC 2.0 messages.
#include "protocol/JsonRpc.h"
#include "protocol/Position.h"

#include <string>
#include <utility>
#include <vector>

namespace inductor::protocol {

namespace {

// LSP ids are `integer | string`. JSON-RPC allows fractional numbers but discourages them, and no LSP client
// sends them, so they are rejected along with booleans, objects and arrays.
bool isValidId(const json &id) {
  return id.is_number_integer() || id.is_string();
}

/// A value as JSON text, cut to a length fit for an error message.
std::string excerpt(const json &value) {
  constexpr std::size_t kShown = 40;
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  // Cut at a character boundary: the message is sent back as JSON, which must be valid UTF-8.
  if (text.size() > kShown) text = std::string(utf8Prefix(text, kShown)) + "...";
  return text;
}

MessageError invalid(std::string message, json id = nullptr) {
  return MessageError{ErrorCode::InvalidRequest, std::move(message), std::move(id)};
}

/// A SAX handler for nlohmann::json::sax_parse that builds the value as json::parse does, and stops the parse
/// (returns false) at the first array or object past `maxDepth`. Values are placed through the public API, so
/// JSON_DIAGNOSTICS' parent pointers stay right.
class BoundedBuilder {
public:
  explicit BoundedBuilder(std::size_t maxDepth) : maxDepth_(maxDepth) {}

  json root;
  bool tooDeep = false;

  // NOLINTBEGIN(readability-identifier-naming): nlohmann's SAX interface.
  bool null() { return place(json(nullptr)); }
  bool boolean(bool v) { return place(json(v)); }
  bool number_integer(json::number_integer_t v) { return place(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return place(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t &) { return place(json(v)); }
  bool string(json::string_t &v) { return place(json(std::move(v))); }
  bool binary(json::binary_t &v) { return place(json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool key(json::string_t &k) {
    element_ = &(*stack_.back())[std::move(k)];
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string &, const json::exception &) { return false; }
  // NOLINTEND(readability-identifier-naming)

private:
  json *put(json &&v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json &parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    *element_ = std::move(v);
    return element_;
  }
  bool place(json &&v) {
    put(std::move(v));
    return true;
  }
  bool open(json &&v) {
    if (stack_.size() >= maxDepth_) {
      tooDeep = true;
      return false;
    }
    stack_.push_back(put(std::move(v)));
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  std::size_t maxDepth_;
  std::vector<json *> stack_; // The open arrays and objects, outermost first.
  json *element_ = nullptr;   // The member of the innermost object that the next value fills.
};

/// A flat scanner over a JSON text: finds the top-level member `id` of an object without building or
/// recursing into anything (nested values are skipped by counting brackets outside strings). For replying to
/// a message refused for its depth; on text that is not JSON it finds what it finds, which only picks the
/// id of an error reply.
class FlatScanner {
public:
  explicit FlatScanner(std::string_view text) : s_(text) {}

  json topLevelId() {
    blanks();
    if (!eat('{')) return nullptr;
    for (;;) {
      blanks();
      std::string_view key;
      if (!rawString(key)) return nullptr;
      blanks();
      if (!eat(':')) return nullptr;
      blanks();
      const std::size_t start = i_;
      if (!skipValue()) return nullptr;
      if (key == "\"id\"") {
        std::string_view raw = s_.substr(start, i_ - start);
        // A string or a number: one token, parsed without any nesting.
        if (!raw.empty() && (raw[0] == '"' || raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))) {
          json id = json::parse(raw, nullptr, /*allow_exceptions=*/false);
          if (isValidId(id)) return id;
        }
        return nullptr;
      }
      blanks();
      if (!eat(',')) return nullptr;
    }
  }

private:
  void blanks() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // At '"': moves past the closing quote; `raw` is the string with its quotes, escapes undecoded.
  bool rawString(std::string_view &raw) {
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    const std::size_t start = i_++;
    while (i_ < s_.size() && s_[i_] != '"')
      i_ += s_[i_] == '\\' ? 2 : 1;
    if (i_ >= s_.size()) return false;
    ++i_;
    raw = s_.substr(start, i_ - start);
    return true;
  }
  bool skipValue() {
    std::string_view ignored;
    if (i_ < s_.size() && s_[i_] == '"') return rawString(ignored);
    std::size_t depth = 0;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        if (!rawString(ignored)) return false;
        continue;
      }
      if (c == '[' || c == '{') {
        ++depth;
      } else if (c == ']' || c == '}') {
        if (depth == 0) return true; // The end of the enclosing object.
        if (--depth == 0) {
          ++i_;
          return true;
        }
      } else if (c == ',' && depth == 0) {
        return true;
      }
      ++i_;
    }
    return depth == 0;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

} // namespace

std::optional<json> parseBoundedJson(std::string_view text, std::size_t maxDepth, bool *tooDeep) {
  BoundedBuilder builder(maxDepth);
  const bool ok = json::sax_parse(text.begin(), text.end(), &builder);
  if (tooDeep) *tooDeep = builder.tooDeep;
  if (!ok) return std::nullopt;
  return std::move(builder.root);
}

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
  bool tooDeep = false;
  std::optional<json> parsed = parseBoundedJson(body, kMaxJsonDepth, &tooDeep);
  if (tooDeep)
    return invalid("message nests arrays and objects deeper than " + std::to_string(kMaxJsonDepth) +
                       " levels",
                   FlatScanner(body).topLevelId());
  if (!parsed) return MessageError{ErrorCode::ParseError, "message is not valid JSON", nullptr};
  json &j = *parsed;
  if (!j.is_object())
    return invalid(j.is_array() ? "batch messages are not supported" : "message is not a JSON object");

  if (auto version = j.find("jsonrpc"); version != j.end() && *version != "2.0")
    return invalid("unsupported jsonrpc version " + excerpt(*version));

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
