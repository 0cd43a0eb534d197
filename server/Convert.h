// server/Convert.h: conversions between LSP (URIs, UTF-16/UTF-8 positions) and index/ (paths, artifacts, byte
// columns), shared by the feature files. The only place where positions change units.
#pragma once

#include "index/GraphDump.h"
#include "index/Index.h"
#include "protocol/Position.h"
#include "protocol/Protocol.h"
#include "server/Server.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace inductor::server {

/// What an LSP document is to the index.
struct Target {
  enum class Kind { None, Artifact, UserFile } kind = Kind::None;
  index::ArtifactId artifact;
  std::string path; ///< Local path for file: URIs (artifact or user file).
  /// Every artifact with this text (several ranks or compiles can share one cache file); `artifact` first.
  std::vector<index::ArtifactId> all;
};

/// Classifies a URI: an indexed artifact (file: or inductor-trace:), else a user file (file: URI), else None.
Target resolveTarget(const index::Index &index, const std::string &uri);

/// The URI the client should open for an artifact: file:// when a local copy exists (the preferred one, see
/// index::Artifact::paths), else inductor-trace:.
std::string artifactURI(const index::Index &index, index::ArtifactId id);

/// What a location or picker entry in an artifact is, for people: its compile and graph, and its file:
/// `[0/0] backward · output_code.py`, `[1/0] inference rank 1 · output code in the log`.
std::string artifactLabel(const index::Index &index, index::ArtifactId id, const std::string &uri);

/// `1 kernel`, `2 kernels`; `many` defaults to `one` + "s".
std::string plural(size_t n, std::string_view one, std::string_view many = {});

/// A Markdown link `[text](uri#L<line>)` (line 1-based; none when 0). `text` is used as given (it may be a
/// code span); the URI is percent-encoded already (protocol::fileURI, makeURI), so it needs no escaping.
std::string markdownLink(std::string_view text, const std::string &uri, uint32_t line = 0);
/// A code span for Markdown, safe for text holding backticks.
std::string codeSpan(std::string_view s);

/// Per-request cache of document texts and line tables, to convert byte columns into the negotiated encoding
/// for every document a response points into.
class TextCache {
public:
  explicit TextCache(const Server &server) : server_(server) {}
  /// Answers about `id` use `uri` (the document the request came from) rather than the artifact's preferred
  /// copy: a user in TORCH_COMPILE_DEBUG's output_code.py stays there instead of jumping to the cache's copy.
  void prefer(index::ArtifactId id, std::string uri) { preferred_[id.value] = std::move(uri); }
  /// The URI to point at for an artifact: the one given to prefer(), else a copy the client has open, else
  /// artifactURI().
  std::string uriOf(const index::Index &index, index::ArtifactId id);
  /// Line text (without terminator), empty if unknown. Valid while this cache lives.
  std::string_view lineText(const std::string &uri, uint32_t line);
  uint32_t lineCount(const std::string &uri);
  protocol::Position position(const std::string &uri, uint32_t line, size_t byteColumn);
  /// Byte column of an LSP position in a document.
  size_t byteColumn(const std::string &uri, const protocol::Position &p);
  /// A range covering the non-blank text of a line.
  protocol::Range lineRange(const std::string &uri, uint32_t line);
  /// For generated code the client has edited: the analysis of its current text (the index's positions are
  /// those of the text it indexed). nullptr when the document is not edited.
  const index::OutputCodeAnalysis *editedAnalysis(const std::string &uri, index::Language language);

private:
  struct Entry {
    std::shared_ptr<const Document> doc;
    std::unique_ptr<protocol::LineTable> table;
    std::unique_ptr<index::OutputCodeAnalysis> edited; ///< Lazily, for edited documents.
  };
  Entry &get(const std::string &uri);
  const Server &server_;
  std::map<std::string, Entry> entries_;
  std::map<uint32_t, std::string> preferred_;
  std::map<uint32_t, std::string> resolved_; ///< uriOf() answers, per request.
};

/// Location of a user source line (Origin::line is 1-based). Uses the local file when it exists.
protocol::Location originLocation(TextCache &texts, const index::Origin &origin);
/// Location of a launch site (the kernel name token).
protocol::Location launchLocation(TextCache &texts, const index::Index &index, index::LaunchRef ref);

/// `model.py:16` for display.
std::string shortOrigin(const index::Origin &o);
/// The source text of an origin: as recorded by the trace, else read from the local file; trimmed.
std::string originCode(TextCache &texts, const index::Origin &o);

/// Launches (from a user line, a graph node) grouped for display, as the hover and the code lens of a user
/// line show them: by compile (compile id and graph kind; ranks that compiled the same graph are one group),
/// then by distinct kernel. A launch site counts once per group, whatever the number of ranks running it.
struct KernelSummary {
  struct Kernel {
    std::string name;
    index::KernelKind kind = index::KernelKind::Unknown;
    std::vector<index::LaunchRef> launches; ///< One per distinct launch site, in code order.
  };
  struct Group {
    std::string label;           ///< "[0/0] backward", "[0/0] forward · ranks 0, 1".
    std::string kindWord;        ///< Compile::kindWord(): "forward", "backward", "inference", "AOT", "other".
    std::vector<Kernel> kernels; ///< In order of first launch.
  };
  std::vector<Group> groups; ///< In compile order.
  size_t kernels = 0, launches = 0;
  /// "4 kernels, 10 launches" ("2 kernels" when each is launched once).
  std::string counts() const;
  /// " · 2 forward · 2 backward": kernels per graph kind, in a fixed order.
  std::string byKind() const;
};
KernelSummary summarizeLaunches(const index::Index &index, const std::vector<index::LaunchRef> &launches);

/// Where a `# File: PATH:LINE` comment on `lineText` points (server/DocumentLink.cpp): the local file and
/// line, resolved as origins are; nullopt when the line holds no such comment, the file is not on this
/// machine, or `byteColumn` is given and outside `PATH:LINE`. `found`, if given, receives the comment.
std::optional<protocol::Location> fileCommentTarget(const index::Index &index, std::string_view lineText,
                                                    std::optional<size_t> byteColumn, TextCache &texts,
                                                    index::FileCommentAt *found = nullptr);

/// The symbol under an LSP position in an artifact, falling back to the identifier under the cursor when the
/// index has no exact token there (a kernel named in a comment, a graph node used as an argument).
index::SymbolAt symbolAtPosition(const index::Index &index, index::ArtifactId id, TextCache &texts,
                                 const std::string &uri, const protocol::Position &position);

} // namespace inductor::server
