// protocol/URI.h: URIs as LSP clients write them (RFC 3986, spelled the way VS Code's `vscode-uri` does).
//
// Two kinds matter to inductor-ls: `file:///abs/path` for files on disk, and the virtual documents of the
// `inductor-trace:` scheme that the server makes up for artifacts that live only inside a trace log, e.g.
// `inductor-trace:/dedicated_log_torch_trace_abc.log/147/0_0_0-forward-output_code.py`.
//
// Serialising percent-encodes every byte except the RFC 3986 unreserved characters (ALPHA DIGIT - . _ ~)
// and, in the path, '/'. That is what VS Code emits, so URIs we send compare equal, byte for byte, to the
// ones the client sends back. Hex digits are upper case. Non-ASCII text is encoded as its UTF-8 bytes.
// Parsing decodes every %XX (either case); a '%' not followed by two hex digits is kept literally, as VS
// Code does. Components are byte strings after decoding; nothing here validates UTF-8.
//
// Deliberately absent: Windows drive letters and UNC paths (the server runs where the traces are, on
// Linux); relative references and dot-segment removal (clients only send absolute URIs).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace inductor::protocol {

/// The components of an absolute URI `scheme:[//authority]path[?query][#fragment]`, percent-decoded.
struct URI {
  std::string scheme;    // Lower-cased on parse (schemes are case-insensitive); never empty once parsed.
  std::string authority; // Empty when absent; "file:///x" and "file:x" both have no authority.
  std::string path;      // Decoded; "/abs/path" for file URIs.
  std::string query;     // Decoded, without '?'; empty when absent.
  std::string fragment;  // Decoded, without '#'; empty when absent.

  /// Serialises as described in the file comment. "//" is written when there is an authority, for the
  /// `file` scheme with an absolute or empty path (VS Code's "file:///..."; a relative "file:x" stays as it
  /// is), and when the path itself starts with "//" (which would otherwise read back as an authority).
  /// parseURI(u.toString()) == u for every u that parseURI returns.
  std::string toString() const;

  friend bool operator==(const URI &, const URI &) = default;
};

/// Parses an absolute URI. nullopt if there is no valid scheme (`ALPHA *(ALPHA / DIGIT / "+" / "-" / ".")`
/// followed by ':'), which also rejects plain paths such as "/tmp/x" and Windows "C:\x" (one-letter schemes
/// are refused for that reason).
std::optional<URI> parseURI(std::string_view text);

/// `scheme:` + the percent-encoded `path`, with no authority, e.g. makeURI("inductor-trace", "/a b/1") ==
/// "inductor-trace:/a%20b/1".
std::string makeURI(std::string_view scheme, std::string_view path);

/// `file://` + the percent-encoded absolute path, e.g. fileURI("/tmp/a b.py") == "file:///tmp/a%20b.py".
std::string fileURI(std::string_view absPath);

/// The decoded absolute path of a `file:` URI whose authority is empty or "localhost" (query and fragment
/// are ignored); "file:/tmp/a.py" is accepted too. nullopt for any other scheme, for a remote authority, for
/// a relative path ("file:a.py"), and for unparseable text.
std::optional<std::string> filePath(std::string_view uri);

/// Percent-encodes `text`, keeping unreserved characters (and '/' when `keepSlash`).
std::string percentEncode(std::string_view text, bool keepSlash);

/// Decodes every %XX in `text`; a malformed escape is kept as written.
std::string percentDecode(std::string_view text);

} // namespace inductor::protocol
