#include "server/Convert.h"

#include "index/files/PathResolver.h"
#include "index/support/TextLines.h"
#include "protocol/Position.h"
#include "protocol/URI.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace inductor::server {

Target resolveTarget(const index::Index &index, const std::string &uri, TextCache &texts) {
  Target t;
  auto parsed = protocol::parseURI(uri);
  if (!parsed) return t;
  if (parsed->scheme == "inductor-trace") {
    std::string name =
        !parsed->path.empty() && parsed->path[0] == '/' ? parsed->path.substr(1) : parsed->path;
    if (auto id = index.findByVirtualName(name)) {
      t.kind = Target::Kind::Artifact;
      t.artifact = *id;
      t.all = {*id};
    } else if (auto path = recordedSourcePath(uri)) {
      // The recorded text of a file that is not here: navigates like that file (its recorded lines).
      t.kind = Target::Kind::UserFile;
      t.path = std::move(*path);
    }
    return t;
  }
  // An open document holding a copy of indexed generated code navigates like it; true when it does.
  auto asCopy = [&] {
    auto doc = texts.openDocument(uri);
    if (!doc) return false;
    index::GeneratedCodeMatch m = texts.generatedCodeMatch(uri, *doc);
    if (m.artifacts.empty()) return false;
    t.kind = Target::Kind::Artifact;
    t.artifact = m.artifacts.front();
    t.all = m.artifacts;
    t.copy = true;
    return true;
  };
  if (parsed->scheme != "file") {
    asCopy(); // An untitled document.
    return t;
  }
  t.path = index::normalizePath(parsed->path);
  if (auto id = index.findByPath(t.path)) {
    t.kind = Target::Kind::Artifact;
    t.artifact = *id;
    t.all = index.findAllByPath(t.path);
    return t;
  }
  if (asCopy()) return t;
  t.kind = Target::Kind::UserFile;
  return t;
}

std::string artifactURI(const index::Index &index, index::ArtifactId id) {
  const index::Artifact &a = index.artifact(id);
  if (!a.paths.empty()) return protocol::fileURI(a.paths.front());
  return protocol::makeURI("inductor-trace", "/" + a.virtualName);
}

namespace {
constexpr std::string_view kRecordedSource = "/recorded-source";
}

std::string recordedSourceURI(const std::string &path) {
  return protocol::makeURI("inductor-trace",
                           std::string(kRecordedSource) + (path.starts_with('/') ? "" : "/") + path);
}

std::optional<std::string> recordedSourcePath(const std::string &uri) {
  auto parsed = protocol::parseURI(uri);
  if (!parsed || parsed->scheme != "inductor-trace" || !parsed->path.starts_with(kRecordedSource))
    return std::nullopt;
  std::string path = parsed->path.substr(kRecordedSource.size());
  if (path.size() < 2 || path[0] != '/') return std::nullopt;
  // A path recorded on Windows (`C:/...`) was given its own leading slash.
  if (path.size() > 2 && path[2] == ':') path.erase(0, 1);
  return path;
}

std::string recordedSourceText(const index::Index &index, const std::string &path) {
  std::vector<index::RecordedLine> lines = index.recordedSource(path);
  std::string text;
  uint32_t at = 1; // The 1-based line `text` ends on.
  // Far past any real source file: a hostile line number costs no more than this many empty lines.
  constexpr uint32_t kMaxLine = 1u << 20;
  for (const index::RecordedLine &l : lines) {
    if (l.line > kMaxLine) break;
    if (l.line < at) continue; // A line recorded twice: its first text (with text first).
    if (text.size() + (l.line - at) + l.code.size() > index::IndexLimits::kServedTextBytes) break;
    text.append(l.line - at, '\n');
    // One line, whatever the trace holds: a line break inside would move every later line.
    for (char c : l.code)
      text += c == '\n' || c == '\r' ? ' ' : c;
    at = l.line;
    // Each recorded line's own: the next one starts after it.
    text += '\n';
    ++at;
  }
  return text;
}

std::string artifactLabel(const index::Index &index, index::ArtifactId id, const std::string &uri) {
  const index::Artifact &a = index.artifact(id);
  const index::Compile *c = index.compileOf(id);
  std::string where;
  if (auto parsed = protocol::parseURI(uri); parsed && parsed->scheme == "file") {
    size_t slash = parsed->path.rfind('/');
    where = slash == std::string::npos ? parsed->path : parsed->path.substr(slash + 1);
  } else {
    switch (a.kind) {
    case index::ArtifactKind::OutputCode:
      where = "output code in the log";
      break;
    case index::ArtifactKind::WrapperCode:
      where = "wrapper code in the log";
      break;
    case index::ArtifactKind::KernelSource:
      where = "kernel source";
      break;
    case index::ArtifactKind::Graph:
      where = (a.graphName.empty() ? std::string("graph") : a.graphName) + " in the log";
      break;
    }
  }
  if (!c) return where;
  return c->label() + " · " + where;
}

std::string plural(size_t n, std::string_view one, std::string_view many) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(one);
  if (many.empty()) return out.append(one).append("s");
  return out.append(many);
}

std::string markdownLink(std::string_view text, const std::string &uri, uint32_t line) {
  std::string out = "[";
  // Brackets in the text would end the link text early.
  for (char c : text) {
    if (c == '[' || c == ']') out += '\\';
    out += c;
  }
  out += "](" + uri;
  if (line > 0) out += "#L" + std::to_string(line);
  out += ")";
  return out;
}

std::string codeSpan(std::string_view s) {
  // A backtick inside would end the span early; use a double-backtick span then.
  return s.find('`') == std::string_view::npos ? "`" + std::string(s) + "`" : "`` " + std::string(s) + " ``";
}

UniqueLocations::UniqueLocations(nlohmann::json &array) : array_(&array) {
  for (const nlohmann::json &l : array) {
    protocol::Location location;
    try {
      protocol::from_json(l, location);
    } catch (const std::exception &) {
      continue; // Not a location: nothing to compare with.
    }
    firstTime(location.uri, location.range);
  }
}

bool UniqueLocations::firstTime(std::string_view uri, const protocol::Range &r) {
  if (uris_.empty() || uri != lastUri_) {
    // The key in the map, not `uri`: the caller's string may not outlive this call.
    auto it = uris_.try_emplace(std::string(uri), static_cast<uint32_t>(uris_.size())).first;
    lastUri_ = it->first;
    lastUriNumber_ = it->second;
  }
  return seen_.insert({lastUriNumber_, r.start.line, r.start.character, r.end.line, r.end.character}).second;
}

bool UniqueLocations::add(const protocol::Location &location) {
  if (!firstTime(location.uri, location.range)) return false;
  if (writer_)
    protocol::write(*writer_, location);
  else
    array_->push_back(location);
  return true;
}

bool UniqueLocations::add(std::string_view uri, const protocol::Range &range) {
  if (!firstTime(uri, range)) return false;
  if (writer_) {
    writer_->beginObject().key("uri").value(uri).key("range");
    protocol::write(*writer_, range);
    writer_->endObject();
  } else {
    array_->push_back(protocol::Location{std::string(uri), range});
  }
  return true;
}

const std::string &TextCache::uriOf(const index::Index &index, index::ArtifactId id) {
  if (auto it = preferred_.find(id.value); it != preferred_.end()) return it->second;
  if (auto it = resolved_.find(id.value); it != resolved_.end()) return it->second;
  std::string uri;
  if (auto open = server_.openCopy(index.artifact(id).paths))
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
  e.doc = server_.openDocument(uri);
  if (!e.doc) {
    auto parsed = protocol::parseURI(uri);
    std::string path =
        parsed && parsed->scheme == "file" ? index::normalizePath(parsed->path) : std::string();
    if (!path.empty() && !index_.findByPath(path)) {
      // A user source file: read through the SourceReader (policy, size cap, one read per version).
      index::SourceRead r = server_.sources()->read(path);
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
        e.mapped = server_.textViews().linesInLog(index_, index_.firstCopy(*id));
      if (!e.mapped) e.doc = server_.document(uri);
    } else {
      e.doc = server_.document(uri);
    }
  } else {
    // Open: its views are kept while this version is.
    e.views = server_.textViews().of(e.doc, e.doc->text);
  }
  if (e.mapped || e.views) return remember(entries_.emplace(uri, std::move(e)).first);
  if (e.file)
    e.views = server_.textViews().of(e.file, e.file->text, &e.file->lines);
  else if (e.doc) // Read for this request (not open): its views go with it.
    e.views = std::make_shared<const TextViews>(e.doc, e.doc->text);
  else
    e.views = std::make_shared<const TextViews>(nullptr, std::string_view());
  return remember(entries_.emplace(uri, std::move(e)).first);
}

std::shared_ptr<const Document> TextCache::openDocument(const std::string &uri) const {
  return server_.openDocument(uri);
}

index::GeneratedCodeMatch TextCache::generatedCodeMatch(const std::string &uri, const Document &doc) {
  index::GeneratedCodeMatch m = server_.generatedCodeMatch(index_, doc);
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
  return {line, protocol::byteColumnToCharacter(text, byteColumn, server_.encoding())};
}

size_t TextCache::byteColumn(const std::string &uri, const protocol::Position &p) {
  return protocol::characterToByteColumn(lineText(uri, p.line), p.character, server_.encoding());
}

const index::OutputCodeAnalysis *TextCache::editedAnalysis(const std::string &uri, index::Language language) {
  Entry &e = get(uri);
  if (e.mapped || (!e.editedCopy && (!e.doc || !e.doc->edited))) return nullptr;
  return &e.views->analysis(language);
}

namespace {

/// Which occurrence of its key (`kernel:handle`) item `i` is among the first `count` items.
template <class Key> size_t occurrence(size_t count, size_t i, Key key) {
  size_t n = 0;
  for (size_t j = 0; j < i && j < count; ++j)
    n += key(j) == key(i);
  return n;
}

} // namespace

protocol::Range TextCache::lineRange(const std::string &uri, uint32_t line) {
  std::string_view text = lineText(uri, line);
  size_t begin = index::indentOf(text);
  size_t end = text.size();
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t'))
    --end;
  return {position(uri, line, begin), position(uri, line, end)};
}

namespace {

std::string baseName(std::string_view p) {
  size_t slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

/// `q, k, v = self.qkv(x).split(…`: recorded code shortened for a message.
std::string excerpt(std::string_view code, size_t limit = 60) {
  if (code.size() <= limit) return std::string(code);
  return std::string(protocol::utf8Prefix(code, limit)) + "…";
}

/// The index of `o` in recordedLines (sorted by line, code, function), if there.
std::optional<size_t> recordedIndex(const std::vector<index::RecordedLine> &recorded,
                                    const index::Origin &o) {
  auto key = std::make_tuple(o.line, std::string_view(o.code), std::string_view(o.function));
  // Views, not copies, of the recorded strings: this runs for every launch of a file's lenses.
  auto keyOf = [](const index::RecordedLine &r) {
    return std::make_tuple(r.line, std::string_view(r.code), std::string_view(r.function));
  };
  auto it = std::lower_bound(recorded.begin(), recorded.end(), key,
                             [&](const index::RecordedLine &r, const auto &k) { return keyOf(r) < k; });
  if (it != recorded.end() && keyOf(*it) == key) return static_cast<size_t>(it - recorded.begin());
  // A place recorded without its text (a guard's or a def line's `path:line`): the same line recorded with
  // text elsewhere in the trace moves with it.
  if (o.code.empty())
    for (auto same =
             std::lower_bound(recorded.begin(), recorded.end(), o.line,
                              [](const index::RecordedLine &r, uint32_t line) { return r.line < line; });
         same != recorded.end() && same->line == o.line; ++same)
      if (!same->code.empty()) return static_cast<size_t>(same - recorded.begin());
  return std::nullopt;
}

} // namespace

PlacedOrigin placeOrigin(TextCache &texts, const index::Index &index, const index::Origin &o) {
  PlacedOrigin p;
  p.file = baseName(o.path);
  p.line = o.line;
  p.code = std::string(index::trim(o.code));
  uint32_t line0 = o.line > 0 ? o.line - 1 : 0;
  const TextCache::UserFile &file = texts.userFile(index, o.path, o.exists);
  protocol::Location loc;
  loc.uri = file.uri;
  if (!o.exists) {
    // Never a file:// URI of a file that is not here (an editor opens it empty, or offers to create it): the
    // text the trace recorded of it, as an inductor-trace: document where the recorded line keeps its number.
    // The empty range at the line's start, as before: the recorded text is all there is of the line.
    loc.uri = recordedSourceURI(o.path);
    loc.range = {{line0, 0}, {line0, 0}};
    p.location = loc;
    p.note = "not on this machine; text from the trace";
    return p;
  }
  const std::vector<index::Relocation> *relocated = file.relocated;
  if (!relocated) {
    // The file exists but is not ours to read: the recorded line, unchecked, and say so.
    loc.range = {{line0, 0}, {line0, 0}};
    p.location = loc;
    p.note = "not read: " + file.reason;
    return p;
  }
  // Relocated with the other lines recorded for the file (anchors); alone if it is not among them.
  std::optional<size_t> k = recordedIndex(*file.recorded, o);
  index::Relocation r = k && *k < relocated->size()
                            ? (*relocated)[*k]
                            : index::relocateLine(*texts.lines(loc.uri), {o.line, o.code, o.function});
  if (!r.found()) {
    p.line = o.line;
    p.note = p.file + " changed since the trace: line " + std::to_string(o.line) +
             (p.code.empty() ? std::string() : " `" + excerpt(p.code) + "`") + " not found";
    return p;
  }
  p.line = r.line;
  loc.range = texts.lineRange(loc.uri, r.line - 1);
  p.location = loc;
  if (r.status == index::Relocation::Status::Moved)
    p.note = "line " + std::to_string(o.line) + " in the trace";
  if (p.code.empty()) p.code = std::string(index::trim(texts.lineText(loc.uri, r.line - 1)));
  return p;
}

uint32_t recordedLine(const index::Index &index, const std::string &path,
                      const std::vector<index::LaunchRef> &launches, uint32_t fallback) {
  for (index::LaunchRef ref : launches)
    for (const index::Origin &o : index.launch(ref).origins)
      if (o.line && index::normalizePath(o.path) == path) return o.line;
  return fallback;
}

std::string shortPlace(const PlacedOrigin &p) {
  return p.file + ":" + std::to_string(p.line);
}

namespace {

std::string userLinesKey(const std::string &path) {
  return std::string("userLinesNow\n") + path;
}

UserLinesNow computeUserLinesNow(TextCache &texts, const index::Index &index, const std::string &uri,
                                 const std::string &path, std::optional<uint32_t> only) {
  std::map<uint32_t, std::vector<index::LaunchRef>> out;
  const std::vector<index::Relocation> *relocated = texts.relocations(uri, path);
  const auto &recorded = index.recordedLines(path);
  // A line of a many-rank trace has thousands of launches, each with origins in a few files, and the same
  // few (line, code, function) for this line: a path is normalised, and a recorded line relocated, once.
  std::unordered_map<std::string_view, bool> isThisFile;
  auto inThisFile = [&](const std::string &p) {
    if (p == path) return true; // Most origins of this file's lines (no hashing).
    auto [it, fresh] = isThisFile.try_emplace(p, false);
    if (fresh) it->second = p == path || index::normalizePath(p) == path;
    return it->second;
  };
  // Lines now that more than one recorded line (or a launch's two origins) went to may hold a launch twice:
  // deduplicated at the end; every other line gets each launch once (a user line's launches are distinct).
  std::set<uint32_t> mixed;
  std::unordered_map<uint32_t, const index::UserLine *> lastSource;
  // One line asked for: only the recorded lines that are at it now (or are it, unrelocated) can give it
  // launches, so the others are not looked at (on a many-rank trace, a few thousand launches rather than
  // every launch from the file).
  std::unordered_set<uint32_t> from;
  if (only) {
    from.insert(*only);
    if (relocated)
      for (size_t k = 0; k < recorded.size() && k < relocated->size(); ++k)
        if ((*relocated)[k].found() && (*relocated)[k].line == *only) from.insert(recorded[k].line);
  }
  for (const index::UserLine &ul : index.userLines(path)) {
    if (only && !from.count(ul.line)) continue;
    std::vector<std::pair<const index::Origin *, std::optional<uint32_t>>> nowOf; // Per distinct text.
    auto lineNow = [&](const index::Origin &o) -> std::optional<uint32_t> {
      for (const auto &[seen, now] : nowOf)
        if (seen->code == o.code && seen->function == o.function) return now;
      std::optional<uint32_t> now = ul.line;
      if (relocated)
        if (std::optional<size_t> k = recordedIndex(recorded, o); k && *k < relocated->size())
          now = (*relocated)[*k].found() ? std::optional<uint32_t>((*relocated)[*k].line) : std::nullopt;
      nowOf.emplace_back(&o, now);
      return now;
    };
    for (index::LaunchRef ref : ul.launches) {
      std::optional<uint32_t> first; // The line this launch went to.
      for (const index::Origin &o : index.launch(ref).origins) {
        if (o.line != ul.line || !inThisFile(o.path)) continue;
        std::optional<uint32_t> now = lineNow(o);
        if (!now || (only && *now != *only) || now == first) continue;
        if (first)
          mixed.insert(*now);
        else
          first = now;
        out[*now].push_back(ref);
        auto [it, fresh] = lastSource.try_emplace(*now, &ul);
        if (!fresh && it->second != &ul) {
          mixed.insert(*now);
          it->second = &ul;
        }
      }
    }
  }
  for (uint32_t line : mixed) {
    std::vector<index::LaunchRef> &refs = out[line];
    std::unordered_set<uint64_t> seen;
    std::erase_if(refs, [&](index::LaunchRef r) {
      return !seen.insert(uint64_t{r.artifact.value} << 32 | r.index).second;
    });
  }
  return out;
}

} // namespace

std::shared_ptr<const UserLinesNow> allUserLinesNow(TextCache &texts, const index::Index &index,
                                                    const std::string &uri, const std::string &path) {
  auto make = [&] { return computeUserLinesNow(texts, index, uri, path, std::nullopt); };
  if (const TextViews *views = texts.views(uri))
    return views->derived<UserLinesNow>(index, userLinesKey(path), make);
  return std::make_shared<const UserLinesNow>(make());
}

std::map<uint32_t, std::vector<index::LaunchRef>> userLinesNow(TextCache &texts, const index::Index &index,
                                                               const std::string &uri,
                                                               const std::string &path,
                                                               std::optional<uint32_t> only) {
  if (!only) return *allUserLinesNow(texts, index, uri, path);
  // One line: from every line's answer when it is kept, else that line alone (cheaper than all of them).
  if (const TextViews *views = texts.views(uri))
    if (auto all = views->find<UserLinesNow>(index, userLinesKey(path))) {
      UserLinesNow out;
      if (auto it = all->find(*only); it != all->end()) out.insert(*it);
      return out;
    }
  return computeUserLinesNow(texts, index, uri, path, only);
}

const index::KernelLaunch *launchSiteNow(TextCache &texts, const index::Index &index, index::LaunchRef ref,
                                         const std::string &uri) {
  const index::Launch &l = index.launch(ref);
  const index::Artifact &a = index.artifact(ref.artifact);
  const index::OutputCodeAnalysis *edited = texts.editedAnalysis(uri, a.language);
  if (!edited) return &l.site;
  // The same launch in the edited text: the same key, the same occurrence of it.
  std::string key = l.site.key();
  size_t n = occurrence(a.launches.size(), ref.index, [&](size_t j) { return a.launches[j].site.key(); });
  for (const index::KernelLaunch &e : edited->launches)
    if (e.key() == key && n-- == 0) return &e;
  return nullptr;
}

std::optional<std::pair<uint32_t, uint32_t>> definitionNow(TextCache &texts, const index::Index &index,
                                                           index::ArtifactId id, uint32_t definition,
                                                           const std::string &uri) {
  const index::Artifact &a = index.artifact(id);
  if (definition >= a.code.kernels.size()) return std::nullopt;
  const index::KernelDefinition &d = a.code.kernels[definition];
  const index::OutputCodeAnalysis *edited = texts.editedAnalysis(uri, a.language);
  if (!edited) return std::make_pair(d.nameLine, d.nameColumn);
  if (const index::KernelDefinition *e = edited->findKernel(d.name))
    return std::make_pair(e->nameLine, e->nameColumn);
  return std::nullopt;
}

protocol::Range launchRange(TextCache &texts, const index::Index &index, index::LaunchRef ref,
                            const std::string &uri) {
  // A launch the edited text no longer has keeps the indexed position (the best there is to point at).
  const index::KernelLaunch *now = launchSiteNow(texts, index, ref, uri);
  const index::KernelLaunch &site = now ? *now : index.launch(ref).site;
  return {texts.position(uri, site.line, site.column),
          texts.position(uri, site.line, std::max(site.endColumn, site.column))};
}

protocol::Location launchLocation(TextCache &texts, const index::Index &index, index::LaunchRef ref) {
  protocol::Location loc;
  loc.uri = texts.uriOf(index, ref.artifact);
  loc.range = launchRange(texts, index, ref, loc.uri);
  return loc;
}

std::string shortOrigin(const index::Origin &o) {
  return baseName(o.path) + ":" + std::to_string(o.line);
}

std::vector<index::LaunchRef> withoutCopies(const index::Index &index,
                                            std::vector<index::LaunchRef> launches) {
  std::erase_if(launches,
                [&](index::LaunchRef r) { return index.firstEquivalent(r.artifact) != r.artifact; });
  return launches;
}

namespace {

/// The (possibly dotted) identifier around `column`: [begin, end) byte columns.
std::optional<std::pair<size_t, size_t>> identifierAround(std::string_view line, size_t column) {
  auto ident = [](char c) { return index::isIdentChar(c) || c == '.'; };
  if (column > line.size()) return std::nullopt;
  size_t b = column, e = column;
  while (b > 0 && ident(line[b - 1]))
    --b;
  while (e < line.size() && ident(line[e]))
    ++e;
  while (b < e && line[b] == '.')
    ++b;
  while (e > b && line[e - 1] == '.')
    --e;
  if (b == e || !index::isIdentStart(line[b])) return std::nullopt;
  return std::make_pair(b, e);
}

} // namespace

index::SymbolAt symbolAtPosition(const index::Index &index, index::ArtifactId id, TextCache &texts,
                                 const std::string &uri, const protocol::Position &position) {
  size_t column = texts.byteColumn(uri, position);
  const index::Artifact &artifact = index.artifact(id);
  if (const index::OutputCodeAnalysis *edited = texts.editedAnalysis(uri, artifact.language)) {
    // Edited generated code: find the token in the current text, then the same launch or kernel in the index.
    index::SymbolAt s;
    s.artifact = id;
    for (size_t i = 0; i < edited->launches.size(); ++i) {
      const index::KernelLaunch &e = edited->launches[i];
      if (e.line != position.line || column < e.column || column > std::max(e.endColumn, e.column)) continue;
      size_t n = occurrence(edited->launches.size(), i, [&](size_t j) { return edited->launches[j].key(); });
      for (uint32_t k = 0; k < artifact.launches.size(); ++k)
        if (artifact.launches[k].site.key() == e.key() && n-- == 0) {
          s.kind = index::SymbolAt::Kind::Launch;
          s.index = k;
          s.line = e.line;
          s.column = e.column;
          s.endColumn = e.endColumn;
          return s;
        }
    }
    for (const index::KernelDefinition &d : edited->kernels) {
      bool atName =
          d.nameLine == position.line && column >= d.nameColumn && column <= d.nameColumn + d.name.size();
      bool atDef = d.defLine && d.defColumn && *d.defLine == position.line && column >= *d.defColumn &&
                   column <= *d.defColumn + d.name.size();
      if (!atName && !atDef) continue;
      if (const index::KernelDefinition *k = artifact.code.findKernel(d.name)) {
        s.kind = index::SymbolAt::Kind::KernelDefinition;
        s.index = static_cast<uint32_t>(k - artifact.code.kernels.data());
        s.line = position.line;
        s.column = atName ? d.nameColumn : *d.defColumn;
        s.endColumn = s.column + static_cast<uint32_t>(d.name.size());
        return s;
      }
    }
    return s; // Nothing generated at this position of the edited text.
  }
  index::SymbolAt s = index.symbolAt(id, position.line, static_cast<uint32_t>(column));
  if (s.kind != index::SymbolAt::Kind::None) return s;
  std::string_view line = texts.lineText(uri, position.line);
  auto range = identifierAround(line, column);
  if (!range) return s;
  std::string word(line.substr(range->first, range->second - range->first));
  // `call_triton_x` helpers and `kernels_.triton_x` handles in AOTI wrapper code name the kernel too.
  for (std::string_view prefix : {"call_", "kernels_."})
    if (word.rfind(prefix, 0) == 0 && word.size() > prefix.size()) word = word.substr(prefix.size());
  const index::Artifact &a = index.artifact(id);
  s.line = position.line;
  s.column = static_cast<uint32_t>(range->first);
  s.endColumn = static_cast<uint32_t>(range->second);
  if (const index::KernelDefinition *d = a.code.findKernel(word)) {
    s.kind = index::SymbolAt::Kind::KernelDefinition;
    s.index = static_cast<uint32_t>(d - a.code.kernels.data());
    return s;
  }
  // "# [Provenance debug handles] extern_kernels.mm:8": the launch on the next lines with that handle.
  size_t colon = line.find(':', range->second);
  std::optional<int> handle;
  if (colon == range->second) {
    int v = 0;
    size_t i = colon + 1;
    bool digits = false;
    while (i < line.size() && index::isDigit(line[i])) {
      v = v * 10 + (line[i++] - '0');
      digits = true;
    }
    if (digits) handle = v;
  }
  for (uint32_t i = 0; i < a.launches.size(); ++i) {
    const index::KernelLaunch &site = a.launches[i].site;
    if (site.kernel == word && (!handle || site.debugHandle == handle) && site.line >= position.line) {
      s.kind = index::SymbolAt::Kind::Launch;
      s.index = i;
      return s;
    }
  }
  for (uint32_t i = 0; i < a.graphNodes.size(); ++i)
    if (a.graphNodes[i].name == word) {
      s.kind = index::SymbolAt::Kind::GraphNode;
      s.index = i;
      return s;
    }
  s.kind = index::SymbolAt::Kind::None;
  return s;
}

} // namespace inductor::server
