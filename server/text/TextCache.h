// server/text/TextCache.h: the texts one request reads, from the document snapshot it took
// (server/text/Documents.h): each document's text and line table, to convert byte columns into the negotiated
// encoding and to find recorded user lines in the text users have now. Per request, not thread-safe; what
// outlives the request is kept in the snapshot's TextViewCache.
#pragma once

#include "index/analysis/Relocation.h"
#include "index/files/SourceReader.h"
#include "index/model/Index.h"
#include "index/support/TextLines.h"
#include "protocol/Protocol.h"
#include "server/text/Documents.h"
#include "server/text/TextViews.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace inductor::server {

/// Per-request table of document texts and line tables (those of open documents and source files kept between
/// requests: TextViews.h), to convert byte columns into the negotiated encoding
/// for every document a response points into, and to find recorded user lines in the text users have now.
/// Texts: the open document (what the user sees, with unsaved edits), else for indexed generated code its
/// text (DocumentSnapshot::document), else for user source files the file through the snapshot's SourceReader
/// (which applies the ReadPolicy and the size cap, and says why it did not read).
class TextCache {
public:
  TextCache(DocumentSnapshot documents, const index::Index &index)
      : documents_(std::move(documents)), index_(index) {}
  /// Answers about `id` use `uri` (the document the request came from) rather than the artifact's preferred
  /// copy: a user in TORCH_COMPILE_DEBUG's output_code.py stays there instead of jumping to the cache's copy.
  void prefer(index::ArtifactId id, std::string uri) { preferred_[id.value] = std::move(uri); }
  /// The URI to point at for an artifact: the one given to prefer(), else a copy the client has open, else
  /// artifactURI(). Valid while this cache lives, until the next prefer() of the same artifact.
  const std::string &uriOf(const index::Index &index, index::ArtifactId id);
  /// Line text (without terminator), empty if unknown. Valid while this cache lives.
  std::string_view lineText(const std::string &uri, uint32_t line);
  uint32_t lineCount(const std::string &uri);
  protocol::Position position(const std::string &uri, uint32_t line, size_t byteColumn);
  /// Byte column of an LSP position in a document.
  size_t byteColumn(const std::string &uri, const protocol::Position &p);
  /// A range covering the non-blank text of a line.
  protocol::Range lineRange(const std::string &uri, uint32_t line);
  /// For generated code whose text is not the indexed one (the client edited it, or it is an edited copy):
  /// the analysis of its current text. nullptr when the document holds the indexed text.
  const index::OutputCodeAnalysis *editedAnalysis(const std::string &uri, index::Language language);
  /// Marks `uri` as an edited copy of indexed generated code (see Target::copy).
  void markEditedCopy(const std::string &uri);
  /// The open document at `uri`, or nullptr.
  std::shared_ptr<const Document> openDocument(const std::string &uri) const;
  /// The document at `uri` as the snapshot reads it for this cache's index (DocumentSnapshot::document: the
  /// open document, else the artifact's text or the file on disk). Never null.
  std::shared_ptr<const Document> document(const std::string &uri) const {
    return documents_.document(index_, uri);
  }
  /// The indexed generated code an open document's text is a copy of (DocumentSnapshot::generatedCodeMatch);
  /// marks `uri` as an edited copy when it is one.
  index::GeneratedCodeMatch generatedCodeMatch(const std::string &uri, const Document &doc);
  /// The document's lines (see get() for which text), split once.
  const index::TextLines *lines(const std::string &uri);
  /// Where the lines the trace recorded for the user file `path` (Index::recordedLines) are in its current
  /// text (the open document at `uri`, else the file): parallel to recordedLines(path). nullptr when the text
  /// cannot be read; `reason` then says why ("outside the workspace", "not found here", ...).
  const std::vector<index::Relocation> *relocations(const std::string &uri, const std::string &path,
                                                    std::string *reason = nullptr);
  /// The views of the document's text, kept between requests for open documents and source files; null for
  /// log-only generated code read in place.
  const TextViews *views(const std::string &uri) { return get(uri).views.get(); }
  /// What placing an origin in the user file recorded as `path` needs, looked up once per request (an answer
  /// places thousands of origins in a few files): its URI and, for a file that exists, where the trace's
  /// recorded lines of it (`index.recordedLines`) are now (relocations(); null, with `reason`, when the file
  /// cannot be read). Valid while this cache lives.
  struct UserFile {
    std::string uri;
    const std::vector<index::Relocation> *relocated = nullptr;
    std::string reason;
    const std::vector<index::RecordedLine> *recorded = nullptr;
  };
  const UserFile &userFile(const index::Index &index, const std::string &path, bool exists);

private:
  struct Entry {
    std::shared_ptr<const Document> doc;           ///< Open documents and generated code.
    std::shared_ptr<const index::SourceFile> file; ///< User source files read through the SourceReader.
    std::string reason;                            ///< Why a user source file was not read.
    bool editedCopy = false;
    /// Log-only generated code that is not open: its lines as views into the log's mapping
    /// (Index::textLinesInLog), instead of a copy of the whole payload in `doc` (null then, as `views`). The
    /// copies of one payload (every rank's) share the first copy's lines (Index::firstCopy).
    std::shared_ptr<const index::TextLines> mapped;
    /// The text of `doc` or `file` and what is derived from it: kept between requests for open documents
    /// and source files (DocumentSnapshot::textViews).
    std::shared_ptr<const TextViews> views;
    std::shared_ptr<const std::vector<index::Relocation>> relocated; ///< Lazily.
  };
  Entry &get(const std::string &uri);
  /// The last entry get() returned: answers convert many positions of one document in a row.
  const std::string *lastUri_ = nullptr;
  Entry *lastEntry_ = nullptr;
  DocumentSnapshot documents_;
  const index::Index &index_;
  std::map<std::string, Entry> entries_;
  std::map<uint32_t, std::string> preferred_;
  std::map<uint32_t, std::string> resolved_;            ///< uriOf() answers, per request.
  std::unordered_map<std::string, UserFile> userFiles_; ///< By recorded path.
};

} // namespace inductor::server
