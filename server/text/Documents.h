// server/text/Documents.h: the client's documents as a request sees them. The server keeps the open documents
// (didOpen/didChange/didClose on the reader thread); a request takes a DocumentSnapshot when it starts, so
// that what it reads (server/text/TextCache.h) never reaches back into the server and stays one consistent
// set of texts while the reader thread applies later edits.
#pragma once

#include "index/files/SourceReader.h"
#include "index/model/Index.h"
#include "protocol/Position.h"
#include "server/text/TextViews.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace inductor::server {

/// An open document as the client sees it.
struct Document {
  std::string uri;
  std::string text;
  int64_t version = 0;
  /// The client changed the text since opening it: positions in it may no longer be the index's (see
  /// index::symbolAtColumn in index/model/TextQueries.h).
  bool edited = false;
};

/// Index::matchGeneratedCode of open documents, computed once per document version and index (a match reads
/// the whole text). Thread-safe; owned by the server, shared by every request's snapshot.
class GeneratedCodeMatches {
public:
  index::GeneratedCodeMatch of(const index::Index &index, const Document &doc);
  /// Forgets every match (a new index was published).
  void clear();

private:
  struct Entry {
    int64_t version = 0;
    uint64_t index = 0; ///< Index::serial (an address can be reused once an index is freed).
    size_t textSize = 0;
    index::GeneratedCodeMatch match;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> byUri_;
};

/// What a request reads documents from, taken when it starts (Server::documents()): the open documents (their
/// texts are immutable and shared), the reader of user source files for the served index, and the caches
/// kept between requests (views of texts, generated-code matches), which the server owns and outlive every
/// request. Copyable; safe to use from the request's thread.
struct DocumentSnapshot {
  std::unordered_map<std::string, std::shared_ptr<const Document>> open; ///< By URI.
  /// The reader of user source files (its ReadPolicy covers the index's roots). Never null.
  std::shared_ptr<const index::SourceReader> sources;
  TextViewCache *textViews = nullptr;      ///< Views of open documents' and source files' texts.
  GeneratedCodeMatches *matches = nullptr; ///< Never null.
  protocol::OffsetEncoding encoding = protocol::OffsetEncoding::UTF16;

  /// The open document at `uri`, or nullptr.
  std::shared_ptr<const Document> openDocument(const std::string &uri) const;
  /// The open document, else the text the index has for `uri`: an `inductor-trace:` artifact or recorded
  /// source, or a file read under `index.readPolicy()` (at most IndexLimits::kServedTextBytes). Empty text
  /// when there is none. Never null.
  std::shared_ptr<const Document> document(const index::Index &index, const std::string &uri) const;
  /// The URI of the first of `paths` (local files) that the client has open, if any: answers point into the
  /// copy of an artifact the user is looking at. Nothing for fewer than two paths (artifactURI names one).
  std::optional<std::string> openCopy(const std::vector<std::string> &paths) const;
  /// Index::matchGeneratedCode of an open document (memoized in `matches`).
  index::GeneratedCodeMatch generatedCodeMatch(const index::Index &index, const Document &doc) const {
    return matches->of(index, doc);
  }
};

/// The documents of a caller without an LSP session (`inductor-ls explain`): none open, user sources through
/// `sources`, and the caches a Server keeps for its requests, owned here. Snapshots are valid while this
/// lives.
class StandaloneDocuments {
public:
  explicit StandaloneDocuments(std::shared_ptr<const index::SourceReader> sources)
      : sources_(std::move(sources)) {}
  DocumentSnapshot snapshot() {
    DocumentSnapshot d;
    d.sources = sources_;
    d.textViews = &views_;
    d.matches = &matches_;
    return d;
  }

private:
  std::shared_ptr<const index::SourceReader> sources_;
  TextViewCache views_;
  GeneratedCodeMatches matches_;
};

} // namespace inductor::server
