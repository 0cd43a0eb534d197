// server/Convert.h: conversions between LSP (URIs, UTF-16/UTF-8 positions) and index/ (paths, artifacts, byte
// columns), shared by the feature files. The only place where positions change units.
#pragma once

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

/// The URI the client should open for an artifact: file:// when a local copy exists, else inductor-trace:.
std::string artifactURI(const index::Index &index, index::ArtifactId id);

/// Per-request cache of document texts and line tables, to convert byte columns into the negotiated encoding
/// for every document a response points into.
class TextCache {
public:
  explicit TextCache(const Server &server) : server_(server) {}
  /// Answers about `id` use `uri` (the document the request came from) rather than the artifact's preferred
  /// copy: a user in TORCH_COMPILE_DEBUG's output_code.py stays there instead of jumping to the cache's copy.
  void prefer(index::ArtifactId id, std::string uri) { preferred_[id.value] = std::move(uri); }
  std::string uriOf(const index::Index &index, index::ArtifactId id) const;
  /// Line text (without terminator), empty if unknown.
  std::string_view lineText(const std::string &uri, uint32_t line);
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
};

/// Location of a user source line (Origin::line is 1-based). Uses the local file when it exists.
protocol::Location originLocation(TextCache &texts, const index::Origin &origin);
/// Location of a launch site (the kernel name token).
protocol::Location launchLocation(TextCache &texts, const index::Index &index, index::LaunchRef ref);

/// `model.py:16` for display.
std::string shortOrigin(const index::Origin &o);
/// The source text of an origin: as recorded by the trace, else read from the local file; trimmed.
std::string originCode(TextCache &texts, const index::Origin &o);

/// The symbol under an LSP position in an artifact, falling back to the identifier under the cursor when the
/// index has no exact token there (a kernel named in a comment, a graph node used as an argument).
index::SymbolAt symbolAtPosition(const index::Index &index, index::ArtifactId id, TextCache &texts,
                                 const std::string &uri, const protocol::Position &position);

} // namespace inductor::server
