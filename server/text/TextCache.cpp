#include "server/text/TextCache.h"

#include "index/files/PathResolver.h"
#include "index/support/TextLines.h"
#include "protocol/URI.h"
#include "server/text/Convert.h"

namespace inductor::server {

const std::string &TextCache::uriOf(const index::Index &index, index::ArtifactId id) {
  if (auto it = preferred_.find(id.value); it != preferred_.end()) return it->second;
  if (auto it = resolved_.find(id.value); it != resolved_.end()) return it->second;
  std::string uri;
  if (auto open = documents_.openCopy(index.artifact(id).paths))
    uri = *open;
  else
    uri = artifactURI(index, id);
  return resolved_.emplace(id.value, std::move(uri)).first->second;
}

TextCache::Entry &TextCache::get(const std::string &uri) {
  if (lastEntry_ && *lastUri_ == uri) return *lastEntry_;
  auto remember = [&](std::map<std::string, Entry>::iterator it) -> Entry & {
    lastUri_ = &it->first; // std::map nodes stay where they are.
    lastEntry_ = &it->second;
    return it->second;
  };
  auto it = entries_.find(uri);
  if (it != entries_.end()) return remember(it);
  Entry e;
  e.doc = documents_.openDocument(uri);
  if (!e.doc) {
    auto parsed = protocol::parseURI(uri);
    std::string path =
        parsed && parsed->scheme == "file" ? index::normalizePath(parsed->path) : std::string();
    if (!path.empty() && !index_.findByPath(path)) {
      // A user source file: read through the SourceReader (policy, size cap, one read per version).
      index::SourceRead r = documents_.sources->read(path);
      if (r.ok())
        e.file = r.file;
      else
        e.reason = r.reason();
    } else if (parsed && parsed->scheme == "inductor-trace") {
      // Answers convert a few columns of each document they point into: read those lines in place rather
      // than copying (and hashing) every payload for each request.
      std::string_view name = parsed->path;
      if (!name.empty() && name.front() == '/') name.remove_prefix(1);
      // Every rank's copy of one output code has the same lines: split once, not per rank or request.
      if (auto id = index_.findByVirtualName(name))
        e.mapped = documents_.textViews->linesInLog(index_, index_.firstCopy(*id));
      if (!e.mapped) e.doc = documents_.document(index_, uri);
    } else {
      e.doc = documents_.document(index_, uri);
    }
  } else {
    // Open: its views are kept while this version is.
    e.views = documents_.textViews->of(e.doc, e.doc->text);
  }
  if (e.mapped || e.views) return remember(entries_.emplace(uri, std::move(e)).first);
  if (e.file)
    e.views = documents_.textViews->of(e.file, e.file->text, &e.file->lines);
  else if (e.doc) // Read for this request (not open): its views go with it.
    e.views = std::make_shared<const TextViews>(e.doc, e.doc->text);
  else
    e.views = std::make_shared<const TextViews>(nullptr, std::string_view());
  return remember(entries_.emplace(uri, std::move(e)).first);
}

std::shared_ptr<const Document> TextCache::openDocument(const std::string &uri) const {
  return documents_.openDocument(uri);
}

index::GeneratedCodeMatch TextCache::generatedCodeMatch(const std::string &uri, const Document &doc) {
  index::GeneratedCodeMatch m = documents_.generatedCodeMatch(index_, doc);
  if (!m.artifacts.empty() && !m.exact) markEditedCopy(uri);
  return m;
}

void TextCache::markEditedCopy(const std::string &uri) {
  get(uri).editedCopy = true;
}

const index::TextLines *TextCache::lines(const std::string &uri) {
  Entry &e = get(uri);
  if (e.mapped) return &*e.mapped;
  return &e.views->lines();
}

const std::vector<index::Relocation> *TextCache::relocations(const std::string &uri, const std::string &path,
                                                             std::string *reason) {
  Entry &e = get(uri);
  if (!e.doc && !e.file && !e.mapped) {
    if (reason) *reason = e.reason.empty() ? "not found here" : e.reason;
    return nullptr;
  }
  if (!e.relocated)
    e.relocated = e.views ? e.views->relocations(index_, path)
                          : std::make_shared<const std::vector<index::Relocation>>(
                                index::relocateLines(*lines(uri), index_.recordedLines(path)));
  return e.relocated.get();
}

const TextCache::UserFile &TextCache::userFile(const index::Index &index, const std::string &path,
                                               bool exists) {
  auto [it, inserted] = userFiles_.try_emplace(path);
  UserFile &f = it->second;
  if (inserted) {
    f.uri = protocol::fileURI(path);
    if (exists) {
      f.relocated = relocations(f.uri, path, &f.reason);
      f.recorded = &index.recordedLines(path);
    }
  }
  return f;
}

std::string_view TextCache::lineText(const std::string &uri, uint32_t line) {
  Entry &e = get(uri);
  if (e.mapped) {
    if (line >= e.mapped->size()) return {};
    std::string_view text = (*e.mapped)[line];
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1); // As LineTable reads CRLF text.
    return text;
  }
  return e.views->table().lineText(line);
}

uint32_t TextCache::lineCount(const std::string &uri) {
  Entry &e = get(uri);
  return static_cast<uint32_t>(e.mapped ? e.mapped->size() : e.views->table().lineCount());
}

protocol::Position TextCache::position(const std::string &uri, uint32_t line, size_t byteColumn) {
  std::string_view text = lineText(uri, line);
  return {line, protocol::byteColumnToCharacter(text, byteColumn, documents_.encoding)};
}

size_t TextCache::byteColumn(const std::string &uri, const protocol::Position &p) {
  return protocol::characterToByteColumn(lineText(uri, p.line), p.character, documents_.encoding);
}

const index::OutputCodeAnalysis *TextCache::editedAnalysis(const std::string &uri, index::Language language) {
  Entry &e = get(uri);
  if (e.mapped || (!e.editedCopy && (!e.doc || !e.doc->edited))) return nullptr;
  return &e.views->analysis(language);
}

protocol::Range TextCache::lineRange(const std::string &uri, uint32_t line) {
  std::string_view text = lineText(uri, line);
  size_t begin = index::indentOf(text);
  size_t end = text.size();
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t'))
    --end;
  return {position(uri, line, begin), position(uri, line, end)};
}

} // namespace inductor::server
