// Annotated test inputs, marked as clangd's unit tests mark theirs (clangd/unittests/Annotations.h): `^` is a
// point, `[[...]]` a range, `$name^` and `$name[[...]]` named ones. code() is the text without the marks;
// points and ranges are LSP positions in it (0-based lines, UTF-16 characters), so a test states where an
// answer must point by marking the place in the input it writes, not by counting columns.
#pragma once

#include "protocol/Protocol.h"

#include <doctest/doctest.h>

#include <cctype>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace inductor::test {

class Annotations {
public:
  explicit Annotations(std::string_view text) {
    protocol::Position at{0, 0};
    std::vector<std::pair<std::string, protocol::Position>> open; // Ranges begun and not ended.
    for (size_t i = 0; i < text.size();) {
      std::string name;
      if (text[i] == '$') { // A name, then the mark it names.
        size_t j = i + 1;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
          ++j;
        name = std::string(text.substr(i + 1, j - i - 1));
        i = j;
        REQUIRE_MESSAGE((text.substr(i, 1) == "^" || text.substr(i, 2) == "[["), "a $name before no mark");
      }
      if (text[i] == '^') {
        points_[name].push_back(at);
        ++i;
        continue;
      }
      if (text.substr(i, 2) == "[[") {
        open.emplace_back(name, at);
        i += 2;
        continue;
      }
      if (text.substr(i, 2) == "]]" && !open.empty()) {
        ranges_[open.back().first].push_back({open.back().second, at});
        open.pop_back();
        i += 2;
        continue;
      }
      unsigned char c = static_cast<unsigned char>(text[i]);
      code_ += text[i++];
      if (c == '\n') {
        ++at.line;
        at.character = 0;
      } else if ((c & 0xC0) != 0x80) { // A UTF-8 lead byte: one UTF-16 unit, two past the BMP.
        at.character += c >= 0xF0 ? 2 : 1;
      }
    }
    REQUIRE_MESSAGE(open.empty(), "a [[ without its ]]");
  }

  const std::string &code() const { return code_; }
  /// The one point named `name` (REQUIREd to be one).
  protocol::Position point(const std::string &name = "") const { return one(points_, name, "point"); }
  std::vector<protocol::Position> points(const std::string &name = "") const { return all(points_, name); }
  /// The one range named `name` (REQUIREd to be one).
  protocol::Range range(const std::string &name = "") const { return one(ranges_, name, "range"); }
  std::vector<protocol::Range> ranges(const std::string &name = "") const { return all(ranges_, name); }

private:
  std::string code_;
  std::map<std::string, std::vector<protocol::Position>> points_;
  std::map<std::string, std::vector<protocol::Range>> ranges_;

  template <class T>
  static std::vector<T> all(const std::map<std::string, std::vector<T>> &marks, const std::string &name) {
    auto it = marks.find(name);
    return it == marks.end() ? std::vector<T>{} : it->second;
  }
  template <class T>
  static T one(const std::map<std::string, std::vector<T>> &marks, const std::string &name,
               const char *what) {
    std::vector<T> found = all(marks, name);
    REQUIRE_MESSAGE(found.size() == 1, "not one " << what << " named '" << name << "'");
    return found.front();
  }
};

} // namespace inductor::test

// Positions and ranges as failures print them: `5:8-5:20` (0-based line:character).
template <> struct doctest::StringMaker<inductor::protocol::Position> {
  static doctest::String convert(const inductor::protocol::Position &p) {
    return (std::to_string(p.line) + ":" + std::to_string(p.character)).c_str();
  }
};
template <> struct doctest::StringMaker<inductor::protocol::Range> {
  static doctest::String convert(const inductor::protocol::Range &r) {
    return (std::to_string(r.start.line) + ":" + std::to_string(r.start.character) + "-" +
            std::to_string(r.end.line) + ":" + std::to_string(r.end.character))
        .c_str();
  }
};
template <> struct doctest::StringMaker<std::vector<inductor::protocol::Range>> {
  static doctest::String convert(const std::vector<inductor::protocol::Range> &v) {
    doctest::String out = "[";
    for (size_t i = 0; i < v.size(); ++i)
      out += (i ? ", " : "") + doctest::StringMaker<inductor::protocol::Range>::convert(v[i]);
    return out + "]";
  }
};
