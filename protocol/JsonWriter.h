// protocol/JsonWriter.h: compact JSON text written directly, without building nlohmann values first.
// For the answers that hold thousands of items (code lenses of a large output code, the references of a model
// line on many ranks): building them as nlohmann objects (a std::map and its nodes per object, parent links
// with JSON_DIAGNOSTICS) and then serialising them was 70% of such a request (perf, bench/README.md). The
// text is what nlohmann's dump(-1, ' ', false, error_handler_t::replace) writes for the same value: strings
// with invalid UTF-8 get U+FFFD for the bad bytes, as JSONTransport::send does.
#pragma once

#include "protocol/InductorProtocol.h"
#include "protocol/Json.h"
#include "protocol/Protocol.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::protocol {

/// Appends one JSON value to a string, item by item. Commas and colons are placed by the writer; calls must
/// nest properly (a key() before each value inside an object), which debug builds assert.
class JsonWriter {
public:
  JsonWriter &beginObject() { return open('{'); }
  JsonWriter &endObject() { return close('}'); }
  JsonWriter &beginArray() { return open('['); }
  JsonWriter &endArray() { return close(']'); }
  /// An object member's name; the next call writes its value.
  JsonWriter &key(std::string_view name);
  JsonWriter &value(std::string_view s);
  JsonWriter &value(const char *s) { return value(std::string_view(s)); }
  JsonWriter &value(int64_t n);
  JsonWriter &value(uint32_t n) { return value(static_cast<int64_t>(n)); }
  JsonWriter &value(bool b);
  JsonWriter &null();
  JsonWriter &value(const std::string &s) { return value(std::string_view(s)); }
  /// An nlohmann value, serialised as JSONTransport would.
  JsonWriter &dump(const json &j);
  /// Text that is one JSON value already (another writer's take()).
  JsonWriter &raw(std::string_view jsonText);

  /// The text written so far; the writer is empty afterwards.
  std::string take();
  size_t size() const { return out_.size(); }
  /// Room for `bytes` of text, for writers that know roughly how much they will write.
  void reserve(size_t bytes) { out_.reserve(bytes); }

private:
  void separate();                 ///< A comma before every item of a container but its first.
  JsonWriter &open(char bracket);  ///< Starts an object or array.
  JsonWriter &close(char bracket); ///< Ends the innermost one.
  std::string out_;
  std::vector<bool> first_; ///< Per open container: no item written yet.
  bool afterKey_ = false;
};

/// The JSON text of a `T`, written by a JsonWriter: the typed result of an answer of thousands of items
/// (the references of a model line on many ranks, the lenses of a large output code), sent as it is written
/// (server's Reply::text) rather than built as a T and serialised.
template <class T> struct Written { std::string text; };

/// The LSP shapes answers write in bulk.
void write(JsonWriter &w, const Position &p);
void write(JsonWriter &w, const Range &r);
void write(JsonWriter &w, const Location &l);
/// A Command (`arguments` written when not null).
void write(JsonWriter &w, const Command &c);

/// The CodeLens of a client command written in bulk (the lenses of a large output code): {range, command:
/// {title, command, arguments}}; the arguments as InductorProtocol.h describes them.
void writeLens(JsonWriter &w, const Range &range, std::string_view title, const ShowLocationsArguments &args);
void writeLens(JsonWriter &w, const Range &range, std::string_view title,
               const ShowLaunchSitesArguments &args);

} // namespace inductor::protocol
