// protocol/JsonWriter.cpp: see JsonWriter.h.
#include "protocol/JsonWriter.h"

#include <cassert>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace inductor::protocol {

void JsonWriter::separate() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += ',';
  first_.back() = false;
}

JsonWriter &JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  first_.push_back(true);
  return *this;
}

JsonWriter &JsonWriter::close(char bracket) {
  assert(!first_.empty() && !afterKey_);
  first_.pop_back();
  out_ += bracket;
  return *this;
}

JsonWriter &JsonWriter::key(std::string_view name) {
  value(name);
  out_ += ':';
  afterKey_ = true;
  return *this;
}

namespace {

/// Whether `s` is printable ASCII without quotes or backslashes, eight bytes at a time (URIs are written
/// thousands of times in a many-rank reference): a byte at or above 0x7F, below 0x20, '"' or '\\' fails.
bool isPlain(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighBits = 0x8080808080808080ULL;
  // Whether any byte of `v` is zero (exact as a whole-word test).
  auto hasZero = [](uint64_t v) { return ((v - kOnes) & ~v & kHighBits) != 0; };
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    // High bits first: the "below 0x20" test below holds only for bytes under 0x80.
    if ((w & kHighBits) || ((w - kOnes * 0x20) & ~w & kHighBits) || hasZero(w ^ (kOnes * 0x7f)) ||
        hasZero(w ^ (kOnes * '"')) || hasZero(w ^ (kOnes * '\\')))
      return false;
  }
  for (; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x20 || u >= 0x7f || u == '"' || u == '\\') return false;
  }
  return true;
}

} // namespace

JsonWriter &JsonWriter::value(std::string_view s) {
  separate();
  // Printable ASCII without quotes or backslashes (URIs, most titles) is its own JSON text; anything else
  // goes through nlohmann's serializer, for its escapes and its handling of invalid UTF-8.
  if (isPlain(s)) {
    out_ += '"';
    out_ += s;
    out_ += '"';
  } else {
    out_ += json(std::string(s)).dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
  }
  return *this;
}

JsonWriter &JsonWriter::value(int64_t n) {
  separate();
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out_.append(digits, end);
  return *this;
}

JsonWriter &JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter &JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

JsonWriter &JsonWriter::dump(const json &j) {
  separate();
  out_ += j.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
  return *this;
}

JsonWriter &JsonWriter::raw(std::string_view jsonText) {
  separate();
  out_ += jsonText;
  return *this;
}

std::string JsonWriter::take() {
  std::string out = std::move(out_);
  out_.clear();
  first_.clear();
  afterKey_ = false;
  return out;
}

void write(JsonWriter &w, const Position &p) {
  w.beginObject().key("line").value(p.line).key("character").value(p.character).endObject();
}

void write(JsonWriter &w, const Range &r) {
  w.beginObject().key("start");
  write(w, r.start);
  w.key("end");
  write(w, r.end);
  w.endObject();
}

void write(JsonWriter &w, const Location &l) {
  w.beginObject().key("uri").value(l.uri).key("range");
  write(w, l.range);
  w.endObject();
}

void write(JsonWriter &w, const Command &c) {
  w.beginObject().key("title").value(c.title).key("command").value(c.command);
  if (!c.arguments.is_null()) w.key("arguments").dump(c.arguments);
  w.endObject();
}

namespace {

/// {range, command: {title, command, arguments: [uri, position, ...]}}; `more` writes the rest.
template <class More>
void writeLensOf(JsonWriter &w, const Range &range, std::string_view title, std::string_view command,
                 const std::string &uri, const Position &position, More more) {
  w.beginObject().key("range");
  write(w, range);
  w.key("command").beginObject().key("title").value(title).key("command").value(command);
  w.key("arguments").beginArray().value(uri);
  write(w, position);
  more();
  w.endArray().endObject().endObject();
}

} // namespace

void writeLens(JsonWriter &w, const Range &range, std::string_view title,
               const ShowLocationsArguments &args) {
  writeLensOf(w, range, title, ShowLocationsArguments::kName, args.uri, args.position,
              [&] { w.raw(args.locations); });
}

void writeLens(JsonWriter &w, const Range &range, std::string_view title,
               const ShowLaunchSitesArguments &args) {
  writeLensOf(w, range, title, ShowLaunchSitesArguments::kName, args.uri, args.position, [] {});
}

} // namespace inductor::protocol
