#include "server/text/Documents.h"

#include "protocol/URI.h"
#include "server/Logger.h"
#include "server/text/Convert.h"

namespace inductor::server {

index::GeneratedCodeMatch GeneratedCodeMatches::of(const index::Index &index, const Document &doc) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = byUri_.find(doc.uri); it != byUri_.end() && it->second.index == index.serial() &&
                                        it->second.version == doc.version &&
                                        it->second.textSize == doc.text.size())
      return it->second.match;
  }
  bool cpp = doc.uri.size() > 4 && doc.uri.compare(doc.uri.size() - 4, 4, ".cpp") == 0;
  index::GeneratedCodeMatch m = index.matchGeneratedCode(doc.text, cpp);
  std::lock_guard<std::mutex> lock(mutex_);
  byUri_[doc.uri] = Entry{doc.version, index.serial(), doc.text.size(), m};
  return m;
}

void GeneratedCodeMatches::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  byUri_.clear();
}

std::shared_ptr<const Document> DocumentSnapshot::openDocument(const std::string &uri) const {
  auto it = open.find(uri);
  return it == open.end() ? nullptr : it->second;
}

std::shared_ptr<const Document> DocumentSnapshot::document(const index::Index &index,
                                                           const std::string &uri) const {
  if (auto doc = openDocument(uri)) return doc;
  auto doc = std::make_shared<Document>();
  doc->uri = uri;
  auto parsed = protocol::parseURI(uri);
  if (!parsed) return doc;
  if (parsed->scheme == "file") {
    // A document the client has not opened: read from disk only inside the roots (ReadPolicy.h), and only up
    // to the size served per request.
    index::Expected<std::string> text =
        index.readPolicy().read(parsed->path, index::IndexLimits::kServedTextBytes);
    if (text)
      doc->text = std::move(*text);
    else
      logDebug(text.error().message);
  } else if (parsed->scheme == "inductor-trace") {
    std::string name =
        parsed->path.size() > 1 && parsed->path[0] == '/' ? parsed->path.substr(1) : parsed->path;
    if (auto id = index.findByVirtualName(name)) {
      index::Expected<std::string> text = index.readText(*id);
      if (text)
        doc->text = std::move(*text);
      else
        logWarn(uri + ": " + text.error().message);
    } else if (auto path = recordedSourcePath(uri)) {
      doc->text = recordedSourceText(index, *path); // A file not on this machine, as the trace recorded it.
    }
  }
  return doc;
}

std::optional<std::string> DocumentSnapshot::openCopy(const std::vector<std::string> &paths) const {
  if (paths.size() < 2) return std::nullopt; // One copy: artifactURI() names it already.
  for (const std::string &p : paths)
    for (const auto &[uri, doc] : open)
      if (auto parsed = protocol::parseURI(uri); parsed && parsed->scheme == "file" && parsed->path == p)
        return uri;
  return std::nullopt;
}

} // namespace inductor::server
