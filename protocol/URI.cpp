// protocol/URI.cpp: RFC 3986 parsing and VS Code style percent-encoding.
#include "protocol/URI.h"

namespace inductor::protocol {

namespace {

bool isAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isUnreserved(char c) {
  return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

int hexValue(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char toLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    c = toLower(c);
  return out;
}

} // namespace

std::string percentEncode(std::string_view text, bool keepSlash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (isUnreserved(c) || (keepSlash && c == '/')) {
      out += c;
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    out += '%';
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  }
  return out;
}

std::string percentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hexValue(text[i + 1]) >= 0 && hexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string URI::toString() const {
  std::string out = scheme;
  out += ':';
  // "file:x" (a relative path) has no authority and must not gain one: "file://x" reads back as host "x".
  if (!authority.empty() || (scheme == "file" && (path.empty() || path.starts_with('/'))) ||
      path.starts_with("//")) {
    out += "//";
    out += percentEncode(authority, /*keepSlash=*/false);
  }
  out += percentEncode(path, /*keepSlash=*/true);
  if (!query.empty()) {
    out += '?';
    out += percentEncode(query, /*keepSlash=*/true);
  }
  if (!fragment.empty()) {
    out += '#';
    out += percentEncode(fragment, /*keepSlash=*/true);
  }
  return out;
}

std::optional<URI> parseURI(std::string_view text) {
  const std::size_t colon = text.find(':');
  // A one-letter scheme is a Windows drive ("C:\x"), not a URI.
  if (colon == std::string_view::npos || colon < 2 || !isAlpha(text[0])) return std::nullopt;
  for (char c : text.substr(0, colon))
    if (!isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.') return std::nullopt;

  URI uri;
  uri.scheme = lower(text.substr(0, colon));
  std::string_view rest = text.substr(colon + 1);
  if (const std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
    uri.fragment = percentDecode(rest.substr(hash + 1));
    rest = rest.substr(0, hash);
  }
  if (const std::size_t question = rest.find('?'); question != std::string_view::npos) {
    uri.query = percentDecode(rest.substr(question + 1));
    rest = rest.substr(0, question);
  }
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    const std::size_t slash = rest.find('/');
    uri.authority = percentDecode(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  uri.path = percentDecode(rest);
  return uri;
}

std::string makeURI(std::string_view scheme, std::string_view path) {
  return URI{std::string(scheme), "", std::string(path), "", ""}.toString();
}

std::string fileURI(std::string_view absPath) {
  return makeURI("file", absPath);
}

std::optional<std::string> filePath(std::string_view uri) {
  std::optional<URI> parsed = parseURI(uri);
  if (!parsed || parsed->scheme != "file") return std::nullopt;
  if (!parsed->authority.empty() && lower(parsed->authority) != "localhost") return std::nullopt;
  // "file:a.py" names no file we could open.
  if (!parsed->path.starts_with('/')) return std::nullopt;
  return std::move(parsed->path);
}

} // namespace inductor::protocol
