// server/text/Convert.h: conversions between LSP (URIs, UTF-16/UTF-8 positions, locations) and index/ (paths,
// artifacts, byte columns, origins), shared by the feature files. The only place where positions change units
// (with server/text/TextCache.h, which holds the texts they are counted in). Markdown helpers:
// server/text/Markdown.h; queries that are pure functions of the index: index/model/TextQueries.h.
#pragma once

#include "index/analysis/GraphDump.h"
#include "index/analysis/Relocation.h"
#include "index/files/SourceReader.h"
#include "index/model/Index.h"
#include "index/model/TextQueries.h"
#include "protocol/JsonWriter.h"
#include "protocol/Position.h"
#include "protocol/Protocol.h"
#include "server/text/Markdown.h"
#include "server/text/TextCache.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace inductor::server {

/// What an LSP document is to the index.
struct Target {
  enum class Kind { None, Artifact, UserFile } kind = Kind::None;
  index::ArtifactId artifact;
  std::string path; ///< Local path for file: URIs (artifact or user file).
  /// Every artifact with this text (several ranks or compiles can share one cache file); `artifact` first.
  std::vector<index::ArtifactId> all;
  /// An open document that is not an indexed file but whose text is (or was copied from) indexed generated
  /// code (Index::matchGeneratedCode): it navigates like the indexed artifact.
  bool copy = false;
};

/// Appends locations to a vector, or writes them to a JsonWriter inside an array, once each (launch sites
/// that ranks share, repeated origins), by their fields: a linear search of the array per location was
/// quadratic, and thousands of launches (a model line of a 16-compile, 8-rank trace) took a second per
/// request; serialising each one for its key was a third of a many-rank reference. The vector or writer must
/// outlive this; what the vector holds already counts as seen.
class UniqueLocations {
public:
  explicit UniqueLocations(std::vector<protocol::Location> &locations);
  explicit UniqueLocations(protocol::JsonWriter &writer) : writer_(&writer) {}
  /// Appends `location` unless an equal one is there; whether it was appended.
  bool add(const protocol::Location &location);
  /// The same for a location given by parts (no Location, no copy of the URI).
  bool add(std::string_view uri, const protocol::Range &range);

private:
  bool firstTime(std::string_view uri, const protocol::Range &range);
  std::vector<protocol::Location> *locations_ = nullptr;
  protocol::JsonWriter *writer_ = nullptr;
  std::unordered_map<std::string, uint32_t> uris_; ///< Each distinct URI's number, for the keys.
  /// The last URI looked up and its number: locations come in runs of one document (each artifact's
  /// launches).
  std::string_view lastUri_;
  uint32_t lastUriNumber_ = 0;
  struct Key {
    uint32_t uri, startLine, startCharacter, endLine, endCharacter;
    friend bool operator==(const Key &, const Key &) = default;
  };
  struct KeyHash {
    size_t operator()(const Key &k) const {
      uint64_t h = k.uri;
      for (uint32_t v : {k.startLine, k.startCharacter, k.endLine, k.endCharacter})
        h = h * 0x9E3779B97F4A7C15ULL + v;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_set<Key, KeyHash> seen_;
};

/// Classifies a URI: an indexed artifact (file: or inductor-trace:), else an open document whose text is a
/// copy of indexed generated code (an exact or an edited copy), else a user file (file: URI), else None.
Target resolveTarget(const index::Index &index, const std::string &uri, TextCache &texts);

/// The URI the client should open for an artifact: file:// when a local copy exists (the preferred one, see
/// index::Artifact::paths), else inductor-trace:.
std::string artifactURI(const index::Index &index, index::ArtifactId id);

/// The `inductor-trace:` URI of a user source file that is not on this machine (`path` as recorded:
/// Origin::path of an origin whose file does not exist): `inductor-trace:/recorded-source/tmp/work/model.py`.
/// Its text is what the trace recorded of the file (recordedSourceText); answers point there rather than to a
/// file:// URI the editor would open empty or offer to create.
std::string recordedSourceURI(const std::string &path);
/// The recorded path of a recordedSourceURI() (after an index's virtual names were looked up: a log-only
/// artifact's name comes first); nullopt for any other URI.
std::optional<std::string> recordedSourcePath(const std::string &uri);
/// The text of a recordedSourceURI(): each line the trace recorded of the file (Index::recordedSource) at its
/// own line number, the others empty, so that recorded line numbers hold in it; empty when nothing was
/// recorded. Bounded by the recorded lines (a line number past IndexLimits::kServedTextBytes is dropped).
std::string recordedSourceText(const index::Index &index, const std::string &path);

/// What a location or picker entry in an artifact is, for people: its compile and graph, and its file:
/// `[0/0] backward · output_code.py`, `[1/0] inference rank 1 · output code in the log`.
std::string artifactLabel(const index::Index &index, index::ArtifactId id, const std::string &uri);

/// An origin as it is now in its file: the recorded line found again by its text
/// (index/analysis/Relocation.h).
struct PlacedOrigin {
  /// None when the recorded line is no longer in the file: never a silent wrong line.
  std::optional<protocol::Location> location;
  /// 1-based line to show: the line now, or the recorded one when it could not be checked; the recorded one
  /// when not found.
  uint32_t line = 0;
  std::string file; ///< Base name, for display.
  std::string code; ///< The source text: as recorded (trimmed), else the file's line now.
  /// Empty, or what the user should know: "line 17 in the trace", "model.py changed since the trace: line 17
  /// `q, k, v = …` not found", "not read: outside the workspace", "not on this machine; text from
  /// the trace".
  std::string note;
  bool found() const { return location.has_value(); }
};
/// Places an origin (see PlacedOrigin). Files that do not exist here keep their recorded path and line (an
/// empty range at the line's start); files that exist but cannot be read keep the recorded line, and the note
/// says why.
PlacedOrigin placeOrigin(TextCache &texts, const index::Index &index, const index::Origin &origin);
/// `model.py:19` for display.
std::string shortPlace(const PlacedOrigin &p);

/// The launches whose origins are on each line (1-based) of the user file `path` as it is now (the open
/// document at `uri`, else the file): recorded lines that are no longer in the text are left out, moved ones
/// are counted where they are now. When the text cannot be read, the recorded lines. With `only`, just that
/// line (1-based) is filled. Launches of a line are in index order of their first recorded line.
///
/// Every line's answer is kept with the text (TextViews::derived) once all lines were asked for: later calls,
/// with or without `only`, read it.
using UserLinesNow = index::UserLinesNow;
/// (index::userLinesNow over the text as it is now, found through `texts`.)
UserLinesNow userLinesNow(TextCache &texts, const index::Index &index, const std::string &uri,
                          const std::string &path, std::optional<uint32_t> only = std::nullopt);
/// userLinesNow() of every line, shared: kept with the text when it is kept (an open document or a source
/// file, see TextViews).
std::shared_ptr<const UserLinesNow> allUserLinesNow(TextCache &texts, const index::Index &index,
                                                    const std::string &uri, const std::string &path);

/// `model.py:16` for display: the recorded line (see shortPlace for the line now).
std::string shortOrigin(const index::Origin &o);
/// A launch as it is in the document at `uri` now: the indexed site, or, in an edited document (or an edited
/// copy), the same launch (same key, same occurrence) in the edited text; null when the edit removed it.
/// Owned by the index or by the edited text's views: valid while `texts` lives.
const index::KernelLaunch *launchSiteNow(TextCache &texts, const index::Index &index, index::LaunchRef ref,
                                         const std::string &uri);
/// The (line, column) of a kernel definition's name in the document at `uri` now (see launchSiteNow).
std::optional<std::pair<uint32_t, uint32_t>> definitionNow(TextCache &texts, const index::Index &index,
                                                           index::ArtifactId id, uint32_t definition,
                                                           const std::string &uri);
/// Range of a launch site (the kernel name token) in the document at `uri` (texts.uriOf of its artifact).
protocol::Range launchRange(TextCache &texts, const index::Index &index, index::LaunchRef ref,
                            const std::string &uri);
/// Location of a launch site (the kernel name token).
protocol::Location launchLocation(TextCache &texts, const index::Index &index, index::LaunchRef ref);

/// `launches` without those in a later copy of an output code, byte for byte or up to the device
/// (Index::firstEquivalent: the output code every rank of a data-parallel job writes), in their order: a
/// copy's launches are the first copy's, at the same places.
std::vector<index::LaunchRef> withoutCopies(const index::Index &index,
                                            std::vector<index::LaunchRef> launches);

/// Where a `# File: PATH:LINE` comment on `lineText` points (server/features/DocumentLink.cpp): the local
/// file and line, resolved as origins are; nullopt when the line holds no such comment, the file is not on
/// this machine, or `byteColumn` is given and outside `PATH:LINE`. `found`, if given, receives the comment.
std::optional<protocol::Location> fileCommentTarget(const index::Index &index, std::string_view lineText,
                                                    std::optional<size_t> byteColumn, TextCache &texts,
                                                    index::FileCommentAt *found = nullptr);

/// The symbol under an LSP position in an artifact, in the document's text now (index::symbolAtColumn),
/// falling back to the identifier under the cursor when the index has no exact token there (a kernel named in
/// a comment, a graph node used as an argument).
index::SymbolAt symbolAtPosition(const index::Index &index, index::ArtifactId id, TextCache &texts,
                                 const std::string &uri, const protocol::Position &position);

} // namespace inductor::server
