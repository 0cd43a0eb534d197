// protocol/JSONTransport.cpp: all of the framing, in both styles (see Transport.h).
#include "protocol/Position.h"
#include "protocol/Transport.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace inductor::protocol {

namespace {

std::string_view trim(std::string_view s) {
  const auto notBlank = [](char c) { return c != ' ' && c != '\t' && c != '\r' && c != '\n'; };
  while (!s.empty() && !notBlank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && !notBlank(s.back()))
    s.remove_suffix(1);
  return s;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) {
             return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
           };
           return lower(x) == lower(y);
         });
}

/// Case-insensitive search for `needle` in `haystack`.
std::size_t findIgnoreCase(std::string_view haystack, std::string_view needle) {
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i)
    if (equalsIgnoreCase(haystack.substr(i, needle.size()), needle)) return i;
  return std::string_view::npos;
}

/// RFC 7230 `token` characters, the only ones allowed in a header name.
bool isTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

std::string excerpt(std::string_view line) {
  constexpr std::size_t kShown = 80;
  std::string out = "'";
  out.append(utf8Prefix(line, kShown));
  if (line.size() > kShown) out += "...";
  return out + "'";
}

/// fread that retries when a signal interrupts it, as clangd's retryAfterSignalUnlessShortRead does.
std::size_t readFully(std::FILE *in, char *buffer, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const std::size_t n = std::fread(buffer + done, 1, size - done, in);
    done += n;
    if (n == 0) {
      if (std::ferror(in) && errno == EINTR) {
        std::clearerr(in);
        continue;
      }
      break;
    }
  }
  return done;
}

/// Adds a problem to `result`, keeping at most kMaxProblems (a stream of garbage lines must not grow memory):
/// the rest are counted in the last entry.
void addProblem(ReadResult &result, std::string problem) {
  constexpr std::size_t kMaxProblems = 16;
  if (result.problems.size() < kMaxProblems) {
    result.problems.push_back(std::move(problem));
    return;
  }
  std::string &last = result.problems.back();
  std::size_t more = 1;
  if (last.starts_with("... and ")) {
    more += std::strtoull(last.c_str() + 8, nullptr, 10);
  } else {
    more = 2; // The entry replaced below, and this one.
  }
  last = "... and " + std::to_string(more) + " more problems";
}

} // namespace

JSONTransport::JSONTransport(std::FILE *in, std::FILE *out, Style style, bool pretty)
    : in_(in), out_(out), style_(style), pretty_(pretty) {}

bool JSONTransport::readLine(std::string &line, bool &truncated, std::size_t maxBytes, std::string *tail) {
  line.clear();
  truncated = false;
  if (tail) tail->clear();
  bool any = false;
  for (;;) {
    const int c = std::getc(in_);
    if (c == EOF) {
      if (std::ferror(in_) && errno == EINTR) {
        std::clearerr(in_);
        continue;
      }
      break;
    }
    any = true;
    if (c == '\n') break;
    if (line.size() < maxBytes) {
      line += static_cast<char>(c);
    } else {
      truncated = true;
      if (tail) {
        // The last kTailBytes of the dropped part, kept in a buffer of twice that size.
        if (tail->size() >= 2 * kTailBytes) tail->erase(0, tail->size() - kTailBytes);
        *tail += static_cast<char>(c);
      }
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (tail) {
    if (tail->size() > kTailBytes) tail->erase(0, tail->size() - kTailBytes);
    if (!tail->empty() && tail->back() == '\r') tail->pop_back();
  }
  return any;
}

ReadResult JSONTransport::endOfFile() {
  eof_ = true;
  ReadResult result;
  result.kind = ReadResult::Kind::EndOfFile;
  if (std::ferror(in_)) result.problems.push_back(std::string("read error: ") + std::strerror(errno));
  return result;
}

ReadResult JSONTransport::readMessage() {
  if (eof_) return endOfFile();
  return style_ == Style::Standard ? readStandard() : readDelimited();
}

ReadResult JSONTransport::readStandard() {
  ReadResult result;
  std::string line, tail;
  bool truncated = false;
  bool inHeader = false; // Whether any non-empty line of this header block was read.
  bool haveLength = false;
  bool lengthBad = false;
  std::size_t length = 0;
  for (;;) {
    if (!readLine(line, truncated, kMaxHeaderLineBytes, &tail)) {
      if (!inHeader) return endOfFile(); // Clean end: between frames.
      eof_ = true;
      result.kind = ReadResult::Kind::Malformed;
      addProblem(result, "end of input inside a header block");
      return result;
    }
    if (truncated) {
      addProblem(result, "header line longer than " + std::to_string(kMaxHeaderLineBytes) +
                             " bytes was cut: " + excerpt(line));
      // A long run of garbage (the body of a refused frame) may end with the next frame's header: keep
      // looking for it in the tail of the line.
      if (const std::size_t at = findIgnoreCase(tail, "content-length:"); at != std::string::npos)
        line = tail.substr(at);
    }
    if (line.empty()) {
      if (!inHeader) continue; // Blank lines between frames are harmless.
      break;
    }
    inHeader = true;

    std::string_view header = line;
    std::size_t colon = header.find(':');
    const bool nameOk =
        colon != std::string_view::npos && colon > 0 &&
        std::all_of(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(colon), isTokenChar);
    if (!nameOk) {
      // Resynchronise after a frame whose Content-Length was wrong or refused: the tail of the previous body
      // may share a line with the next header ("...}Content-Length: 42").
      const std::size_t at = findIgnoreCase(header, "content-length:");
      if (at == std::string_view::npos || at == 0) {
        addProblem(result, "malformed header line skipped: " + excerpt(line));
        continue;
      }
      addProblem(result, "garbage before header skipped: " + excerpt(header.substr(0, at)));
      header = header.substr(at);
      colon = header.find(':');
    }
    const std::string_view name = header.substr(0, colon);
    const std::string_view value = trim(header.substr(colon + 1));
    if (!equalsIgnoreCase(name, "Content-Length")) continue; // Content-Type and unknown headers are ignored.
    if (haveLength) addProblem(result, "duplicate Content-Length header; the last one wins");
    haveLength = true;
    unsigned long long parsed = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    lengthBad = ec != std::errc() || end != value.data() + value.size() || value.empty();
    if (lengthBad) {
      addProblem(result, "invalid Content-Length: " + excerpt(value));
    } else if (parsed > kMaxMessageBytes) {
      lengthBad = true;
      addProblem(result, "Content-Length " + std::string(value) + " exceeds the limit of " +
                             std::to_string(kMaxMessageBytes) + " bytes");
    } else {
      length = static_cast<std::size_t>(parsed);
    }
  }

  // A refused or unreadable Content-Length: its body is not skipped. Skipping a claimed terabyte would
  // swallow every later frame; instead the next read treats what follows as headers and resynchronises on the
  // next `Content-Length:` (see above), at the cost of the refused frame alone.
  if (!haveLength || lengthBad) {
    if (!haveLength) addProblem(result, "header block without Content-Length");
    result.kind = ReadResult::Kind::Malformed;
    return result;
  }
  if (length == 0) {
    result.kind = ReadResult::Kind::Malformed;
    addProblem(result, "empty message (Content-Length: 0)");
    return result;
  }
  // Grow the buffer as bytes arrive (doubling), so that a Content-Length that lies about a short input
  // costs memory in proportion to the input, not to the claim.
  std::size_t got = 0;
  while (got < length) {
    const std::size_t chunk = std::min(length - got, std::max<std::size_t>(got, std::size_t{64} * 1024));
    result.body.resize(got + chunk);
    const std::size_t n = readFully(in_, result.body.data() + got, chunk);
    got += n;
    if (n < chunk) break;
  }
  if (got < length) {
    eof_ = true;
    result.kind = ReadResult::Kind::Malformed;
    result.body.clear();
    addProblem(result,
               "end of input after " + std::to_string(got) + " of " + std::to_string(length) + " body bytes");
    return result;
  }
  result.kind = ReadResult::Kind::Message;
  return result;
}

ReadResult JSONTransport::readDelimited() {
  ReadResult result;
  std::string line;
  bool truncated = false;
  bool tooLarge = false;
  for (;;) {
    if (!readLine(line, truncated, kMaxMessageBytes)) {
      // The last message needs no trailing delimiter.
      if (!tooLarge && trim(result.body).empty()) return endOfFile();
      break;
    }
    const std::string_view content = trim(line);
    if (content.starts_with('#')) continue;
    if (content == "---") {
      if (!tooLarge && trim(result.body).empty()) {
        result.body.clear(); // An empty message (e.g. "---" twice in a row) is skipped.
        continue;
      }
      break;
    }
    if (truncated || result.body.size() + line.size() + 1 > kMaxMessageBytes) {
      tooLarge = true;
      continue;
    }
    result.body += line;
    result.body += '\n';
  }
  if (tooLarge) {
    result.kind = ReadResult::Kind::Malformed;
    result.body.clear();
    addProblem(result, "delimited message exceeds " + std::to_string(kMaxMessageBytes) + " bytes");
    return result;
  }
  result.kind = ReadResult::Kind::Message;
  return result;
}

void JSONTransport::send(const json &message) {
  // error_handler_t::replace: a document with invalid UTF-8 must not take the server down.
  writeFrame(message.dump(pretty_ ? 2 : -1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace));
}

void JSONTransport::sendText(std::string_view prefix, std::string_view body, std::string_view suffix) {
  if (pretty_) { // Test logs: indented as every other message.
    std::string whole;
    whole.append(prefix).append(body).append(suffix);
    return send(json::parse(whole));
  }
  writeFrame(prefix, body, suffix);
}

void JSONTransport::writeFrame(std::string_view prefix, std::string_view body, std::string_view suffix) {
  const std::string header =
      "Content-Length: " + std::to_string(prefix.size() + body.size() + suffix.size()) + "\r\n\r\n";
  // Written piece by piece: a large body (an artifact's text, thousands of locations) is not copied once
  // more.
  const std::lock_guard<std::mutex> lock(sendMutex_);
  for (std::string_view piece : {std::string_view(header), prefix, body, suffix})
    (void)std::fwrite(piece.data(), 1, piece.size(), out_);
  (void)std::fflush(out_);
}

} // namespace inductor::protocol
