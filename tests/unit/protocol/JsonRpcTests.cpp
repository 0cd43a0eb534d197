// Tests for protocol/JsonRpc.h: message builders and parseMessage's error grading.
#include "protocol/JsonRpc.h"

#include <doctest/doctest.h>

using namespace inductor::protocol;

namespace {

Message parseOk(std::string_view body) {
  auto parsed = parseMessage(body);
  REQUIRE_MESSAGE(std::holds_alternative<Message>(parsed), body);
  return std::get<Message>(std::move(parsed));
}

MessageError parseBad(std::string_view body) {
  auto parsed = parseMessage(body);
  REQUIRE_MESSAGE(std::holds_alternative<MessageError>(parsed), body);
  return std::get<MessageError>(std::move(parsed));
}

} // namespace

TEST_CASE("builders produce JSON-RPC 2.0 messages") {
  CHECK(makeResponse(1, json{{"a", 1}}) == json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"a":1}})"));
  // A null result is kept: "nothing here" is `"result": null`, not an absent member.
  CHECK(makeResponse("x", nullptr) == json::parse(R"({"jsonrpc":"2.0","id":"x","result":null})"));
  CHECK(makeErrorResponse(7, ErrorCode::RequestCancelled, "cancelled") ==
        json::parse(R"({"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"cancelled"}})"));
  CHECK(makeErrorResponse(nullptr, ErrorCode::ParseError, "bad", json{{"why", "x"}}) ==
        json::parse(
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad","data":{"why":"x"}}})"));
  CHECK(makeNotification("initialized", json::object()) ==
        json::parse(R"({"jsonrpc":"2.0","method":"initialized","params":{}})"));
  CHECK(makeNotification("exit", nullptr) == json::parse(R"({"jsonrpc":"2.0","method":"exit"})"));
  CHECK(
      makeRequest("p1", "window/workDoneProgress/create", json{{"token", "t"}}) ==
      json::parse(
          R"({"jsonrpc":"2.0","id":"p1","method":"window/workDoneProgress/create","params":{"token":"t"}})"));
}

TEST_CASE("error codes have the spec's values") {
  CHECK(static_cast<int>(ErrorCode::ParseError) == -32700);
  CHECK(static_cast<int>(ErrorCode::InvalidRequest) == -32600);
  CHECK(static_cast<int>(ErrorCode::MethodNotFound) == -32601);
  CHECK(static_cast<int>(ErrorCode::InvalidParams) == -32602);
  CHECK(static_cast<int>(ErrorCode::InternalError) == -32603);
  CHECK(static_cast<int>(ErrorCode::ServerNotInitialized) == -32002);
  CHECK(static_cast<int>(ErrorCode::UnknownErrorCode) == -32001);
  CHECK(static_cast<int>(ErrorCode::RequestFailed) == -32803);
  CHECK(static_cast<int>(ErrorCode::ServerCancelled) == -32802);
  CHECK(static_cast<int>(ErrorCode::ContentModified) == -32801);
  CHECK(static_cast<int>(ErrorCode::RequestCancelled) == -32800);
}

TEST_CASE("requests, notifications and responses are told apart") {
  Message request = parseOk(R"({"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"x":1}})");
  CHECK(request.kind == Message::Kind::Request);
  CHECK(request.id == 3);
  CHECK(request.method == "textDocument/hover");
  CHECK(request.params == json{{"x", 1}});

  Message stringId = parseOk(R"({"jsonrpc":"2.0","id":"abc","method":"shutdown"})");
  CHECK(stringId.kind == Message::Kind::Request);
  CHECK(stringId.id == "abc");
  CHECK(stringId.params.is_null());

  Message notification = parseOk(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  CHECK(notification.kind == Message::Kind::Notification);
  CHECK(notification.id.is_null());

  Message result = parseOk(R"({"jsonrpc":"2.0","id":0,"result":[1,2]})");
  CHECK(result.kind == Message::Kind::Response);
  CHECK(result.id == 0);
  CHECK(result.result == json::array({1, 2}));
  CHECK_FALSE(result.error.has_value());

  Message error =
      parseOk(R"({"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"nope","data":[1]}})");
  CHECK(error.kind == Message::Kind::Response);
  REQUIRE(error.error.has_value());
  CHECK(error.error->code == ErrorCode::MethodNotFound);
  CHECK(error.error->message == "nope");
  CHECK(error.error->data == json::array({1}));

  // A response may carry a null id (the peer could not read our request's id).
  Message nullId = parseOk(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})");
  CHECK(nullId.kind == Message::Kind::Response);
  CHECK(nullId.id.is_null());
}

TEST_CASE("tolerated deviations") {
  // No "jsonrpc" member, unknown members, params as an array, params null, unknown error codes.
  CHECK(parseOk(R"({"id":1,"method":"m","extra":true})").kind == Message::Kind::Request);
  CHECK(parseOk(R"({"jsonrpc":"2.0","method":"m","params":[1]})").params == json::array({1}));
  CHECK(parseOk(R"({"jsonrpc":"2.0","method":"m","params":null})").params.is_null());
  CHECK(parseOk(R"({"id":1,"error":{"code":12345,"message":"custom"}})").error->code ==
        static_cast<ErrorCode>(12345));
}

TEST_CASE("malformed JSON is a ParseError with a null id") {
  for (const char *body : {"", "{", "{\"id\":1,", "not json", "{\"a\":1}}"}) {
    CAPTURE(body);
    const MessageError error = parseBad(body);
    CHECK(error.code == ErrorCode::ParseError);
    CHECK(error.id.is_null());
    CHECK_FALSE(error.message.empty());
  }
}

TEST_CASE("invalid JSON-RPC is an InvalidRequest") {
  struct Case {
    const char *body;
    json id; // The id the error reply should carry.
  };
  const Case cases[] = {
      {"[]", nullptr},
      {R"([{"jsonrpc":"2.0","method":"m"}])", nullptr},
      {"42", nullptr},
      {R"("str")", nullptr},
      {R"({"jsonrpc":"1.0","id":1,"method":"m"})", nullptr},
      {R"({"jsonrpc":"2.0","id":1})", 1},
      {R"({"jsonrpc":"2.0"})", nullptr},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"m"})", nullptr},
      {R"({"jsonrpc":"2.0","id":true,"method":"m"})", nullptr},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":"m"})", nullptr},
      {R"({"jsonrpc":"2.0","id":null,"method":"m"})", nullptr},
      {R"({"jsonrpc":"2.0","id":4,"method":7})", 4},
      {R"({"jsonrpc":"2.0","id":"q","method":"m","params":3})", "q"},
      {R"({"jsonrpc":"2.0","method":"m","params":"s"})", nullptr},
      {R"({"jsonrpc":"2.0","result":1})", nullptr},
      {R"({"jsonrpc":"2.0","id":[1],"result":1})", nullptr},
      {R"({"jsonrpc":"2.0","id":5,"error":"bad"})", 5},
      {R"({"jsonrpc":"2.0","id":5,"error":{"code":"x","message":"m"}})", 5},
      {R"({"jsonrpc":"2.0","id":5,"error":{"code":1}})", 5},
  };
  for (const Case &c : cases) {
    CAPTURE(c.body);
    const MessageError error = parseBad(c.body);
    CHECK(error.code == ErrorCode::InvalidRequest);
    CHECK(error.id == c.id);
    CHECK_FALSE(error.message.empty());
  }
}

TEST_CASE("a built message parses back") {
  const json request = makeRequest(9, "workspace/codeLens/refresh", nullptr);
  const Message parsed = parseOk(request.dump());
  CHECK(parsed.kind == Message::Kind::Request);
  CHECK(parsed.id == 9);
  CHECK(parsed.method == "workspace/codeLens/refresh");

  const Message error = parseOk(makeErrorResponse("r", ErrorCode::ContentModified, "stale").dump());
  REQUIRE(error.error.has_value());
  CHECK(error.error->code == ErrorCode::ContentModified);
  CHECK_FALSE(error.error->data.has_value());
}

TEST_CASE("params keep JSON paths relative to params (for InvalidParams messages)") {
  const Message m = parseOk(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"textDocument":{"uri":42}}})");
  std::string what;
  try {
    (void)m.params.at("textDocument").at("uri").get<std::string>();
  } catch (const json::exception &e) {
    what = e.what();
  }
  CHECK(what.find("(/textDocument/uri)") != std::string::npos);
  // A copy of the message (as a request handed to a worker) keeps the paths.
  const Message copy = m;
  what.clear();
  try {
    (void)copy.params.at("textDocument").at("uri").get<std::string>();
  } catch (const json::exception &e) {
    what = e.what();
  }
  CHECK(what.find("(/textDocument/uri)") != std::string::npos);
}

TEST_CASE("nesting deeper than kMaxJsonDepth is refused while parsing, with the id when there is one") {
  // Finding 2 of issue 11: 60,000 levels overflowed the stack in recursive copies and dumps.
  const auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  const std::string deep = nested(60000);
  struct Case {
    std::string body;
    json id;
  };
  const Case cases[] = {
      {R"({"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":)" + deep + "}", 7},
      {R"({"jsonrpc":"2.0","method":"m","params":)" + deep + R"(,"id":"late"})", "late"},
      {R"({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"a":)" + deep + "}}", nullptr},
      {R"({"jsonrpc":"2.0","id":)" + deep + R"(,"method":"m"})", nullptr},
      {R"({"jsonrpc":)" + deep + R"(,"id":3,"method":"m"})", 3},
      {R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":)" + deep + "}}", nullptr},
      {R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":{"pathMappings":)" +
           deep + "}}}",
       1},
      {std::string(60000, '['), nullptr}, // Not even finished: refused for its depth before that matters.
  };
  for (const Case &c : cases) {
    CAPTURE(c.body.substr(0, 80));
    const MessageError error = parseBad(c.body);
    CHECK(error.code == ErrorCode::InvalidRequest);
    CHECK(error.id == c.id);
    CHECK(error.message.find("deeper than 64") != std::string::npos);
  }
  // The limit itself is accepted: the message object is level 1.
  const std::string atLimit = R"({"jsonrpc":"2.0","method":"m","params":)" + nested(kMaxJsonDepth - 1) + "}";
  CHECK(parseOk(atLimit).params.is_array());
  const std::string overLimit = R"({"jsonrpc":"2.0","method":"m","params":)" + nested(kMaxJsonDepth) + "}";
  CHECK(parseBad(overLimit).code == ErrorCode::InvalidRequest);
}

TEST_CASE("parseBoundedJson parses like json::parse within the limit") {
  for (const char *text : {R"({"a":[1,2.5,"x",null,true,{"b":{}}],"c":-3,"a2":18446744073709551615})", "[]",
                           "0", R"("s")", R"({"k":1,"k":2})"}) {
    CAPTURE(text);
    auto parsed = parseBoundedJson(text);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == json::parse(text));
  }
  bool tooDeep = true;
  CHECK_FALSE(parseBoundedJson("{\"a\":", 64, &tooDeep).has_value());
  CHECK_FALSE(tooDeep);
  CHECK_FALSE(parseBoundedJson("[[[1]]]", 2, &tooDeep).has_value());
  CHECK(tooDeep);
  CHECK(parseBoundedJson("[[1]]", 2, &tooDeep).has_value());
  CHECK_FALSE(tooDeep);
  // Parent pointers (JSON_DIAGNOSTICS) are right: a type error names the path.
  std::string error;
  try {
    (void)parseBoundedJson(R"({"x":[{"y":1}]})")->at("x").at(0).at("y").get<std::string>();
  } catch (const json::exception &e) {
    error = e.what();
  }
  CHECK(error.find("/x/0/y") != std::string::npos);
}

TEST_CASE("an error message quoting the request is valid UTF-8 however the quote is cut") {
  // Found by fuzz_jsonrpc_message (10-minute run): the excerpt of a bad "jsonrpc" value was cut in the middle
  // of a multi-byte character, and a strict serialiser threw on the reply.
  for (std::string filler : {"", "a", "ab", "abc"}) {
    std::string body = R"({"jsonrpc": ")" + filler + std::string(30, 'x') +
                       "\\u2eee\\u2eee\\u2eee\\u2eee\\u2eee\\u2eee" + R"(", "id": 1, "method": "m"})";
    auto parsed = parseMessage(body);
    const auto *error = std::get_if<MessageError>(&parsed);
    REQUIRE(error);
    CHECK_NOTHROW((void)makeErrorResponse(error->id, error->code, error->message).dump());
    CHECK(error->message.find("...") != std::string::npos);
  }
}
