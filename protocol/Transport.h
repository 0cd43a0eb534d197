// protocol/Transport.h: the wire under the language server: reading and writing whole LSP messages.
//
// The standard framing is the LSP 3.17 base protocol: a header block of `Name: value\r\n` lines ended by an
// empty line, then exactly Content-Length bytes of JSON (UTF-8). Content-Type is accepted and ignored, as
// every server does; header names are case-insensitive (RFC 7230, which the spec borrows from). A second,
// `Delimited` style exists only so that tests can be written by hand (clangd's JSONStreamStyle::Delimited).
//
// Thread-safety contract, for every Transport:
//  - readMessage() is called by one thread only (the server's reader thread); it blocks.
//  - send() may be called from any thread, concurrently with readMessage() and with other send() calls;
//    each call writes one whole frame and frames never interleave.
// The transport is the only writer of its output stream: in the server, nothing else writes to stdout.
#pragma once

#include "protocol/Json.h"

#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace inductor::protocol {

/// The outcome of one Transport::readMessage() call.
struct ReadResult {
  enum class Kind {
    /// `body` holds one message body (not yet parsed as JSON). `problems` lists anything skipped on the way
    /// (malformed header lines before a valid Content-Length); usually empty.
    Message,
    /// The input ended. `problems` is empty for a clean end (at a frame boundary); it names the I/O error
    /// otherwise. Every later call returns EndOfFile too.
    EndOfFile,
    /// One frame could not be read; `problems` says why (non-empty). The stream was advanced past what
    /// could be skipped, so the caller logs and reads on: the next frame may be fine. A frame cut short by
    /// the end of input yields Malformed, then EndOfFile.
    Malformed,
  };
  Kind kind = Kind::EndOfFile;
  std::string body;
  std::vector<std::string> problems;
};

/// A bidirectional message channel; see the file comment for the thread-safety contract.
class Transport {
public:
  virtual ~Transport() = default;

  /// Blocks until one message, the end of input, or an unreadable frame. Reader thread only.
  virtual ReadResult readMessage() = 0;

  /// Serialises `message` and writes it as one frame, then flushes. Thread-safe. Write errors (the client
  /// went away) are not reported: the reader sees the end of input and the server shuts down from there.
  /// Strings holding invalid UTF-8 are written with U+FFFD in place of the bad bytes instead of throwing.
  virtual void send(const json &message) = 0;
  /// Writes the text of one whole JSON message (JsonWriter.h: compact, valid UTF-8), given in three pieces
  /// (an envelope around a large result, which is then not copied), as one frame. Thread-safe, as send().
  /// The default joins and parses them and calls send(), for transports that keep values.
  virtual void sendText(std::string_view prefix, std::string_view body, std::string_view suffix) {
    std::string whole;
    whole.reserve(prefix.size() + body.size() + suffix.size());
    whole.append(prefix).append(body).append(suffix);
    send(json::parse(whole));
  }
  void sendText(std::string_view message) { sendText({}, message, {}); }
};

/// A Transport over two C streams, e.g. stdin and stdout.
class JSONTransport final : public Transport {
public:
  enum class Style {
    /// LSP base protocol framing (Content-Length headers). For real clients.
    Standard,
    /// Input only: messages separated by lines holding `---`; lines starting with '#' (after leading
    /// blanks) are comments; a message made only of blanks is skipped. For hand-written test inputs.
    /// Output is still Content-Length framed, as in clangd, so the same reader parses it.
    Delimited,
  };

  /// Largest Content-Length accepted, in bytes; anything bigger is refused before any allocation
  /// ("The fuzzer likes crashing us", clangd's JSONTransport.cpp). Delimited messages have the same cap.
  /// A refused frame is answered (Malformed) and its body is not skipped: the reader resynchronises on the
  /// next `Content-Length:` header, so later frames are read at once instead of being swallowed as the body
  /// of a claimed terabyte.
  static constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 30;
  /// Longest header line kept, in bytes; the rest of a longer line is discarded and reported, so that a
  /// stream with no newline cannot grow memory without bound.
  static constexpr std::size_t kMaxHeaderLineBytes = std::size_t{64} * 1024;

  /// Does not own the streams: they must outlive the transport, and the caller closes them. `pretty`
  /// indents the JSON of sent messages (for readable test logs; off for real clients).
  JSONTransport(std::FILE *in, std::FILE *out, Style style, bool pretty = false);

  ReadResult readMessage() override;
  void send(const json &message) override;
  void sendText(std::string_view prefix, std::string_view body, std::string_view suffix) override;
  using Transport::sendText;

private:
  void writeFrame(std::string_view prefix, std::string_view body = {}, std::string_view suffix = {});
  /// Reads one line without its "\n" / "\r\n" into `line`, keeping at most `maxBytes` bytes (`truncated`
  /// says whether more were dropped; `tail`, if given, then holds the last kTailBytes of the line). False at
  /// end of input (or on an I/O error) with nothing read.
  bool readLine(std::string &line, bool &truncated, std::size_t maxBytes, std::string *tail = nullptr);
  static constexpr std::size_t kTailBytes = 256;
  ReadResult readStandard();
  ReadResult readDelimited();
  ReadResult endOfFile();

  std::FILE *in_;
  std::FILE *out_;
  Style style_;
  bool pretty_;
  bool eof_ = false;     // Latched: once the input ended, every read reports EndOfFile.
  std::mutex sendMutex_; // Serialises send(); the reader never takes it.
};

} // namespace inductor::protocol
