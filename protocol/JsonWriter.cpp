// protocol/JsonWriter.cpp: see JsonWriter.h.
#include "protocol/JsonWriter.h"

#include <cassert>
#include <charconv>

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

JsonWriter &JsonWriter::value(std::string_view s) {
  separate();
  // Printable ASCII without quotes or backslashes (URIs, most titles) is its own JSON text; anything else
  // goes through nlohmann's serializer, for its escapes and its handling of invalid UTF-8.
  bool plain = true;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
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

} // namespace inductor::protocol
