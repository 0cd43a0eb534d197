#include "server/text/Convert.h"

#include "index/files/PathResolver.h"
#include "index/model/TextQueries.h"
#include "index/support/PathNames.h"
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

UniqueLocations::UniqueLocations(std::vector<protocol::Location> &locations) : locations_(&locations) {
  for (const protocol::Location &l : locations)
    firstTime(l.uri, l.range);
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
    locations_->push_back(location);
  return true;
}

bool UniqueLocations::add(std::string_view uri, const protocol::Range &range) {
  if (!firstTime(uri, range)) return false;
  if (writer_) {
    writer_->beginObject().key("uri").value(uri).key("range");
    protocol::write(*writer_, range);
    writer_->endObject();
  } else {
    locations_->push_back(protocol::Location{std::string(uri), range});
  }
  return true;
}

namespace {

/// `q, k, v = self.qkv(x).split(…`: recorded code shortened for a message.
std::string excerpt(std::string_view code, size_t limit = 60) {
  if (code.size() <= limit) return std::string(code);
  return std::string(protocol::utf8Prefix(code, limit)) + "…";
}

} // namespace

PlacedOrigin placeOrigin(TextCache &texts, const index::Index &index, const index::Origin &o) {
  PlacedOrigin p;
  p.file = index::baseName(o.path);
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
  std::optional<size_t> k = index::recordedLineIndex(*file.recorded, o);
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

std::string shortPlace(const PlacedOrigin &p) {
  return p.file + ":" + std::to_string(p.line);
}

namespace {

std::string userLinesKey(const std::string &path) {
  return std::string("userLinesNow\n") + path;
}

} // namespace

std::shared_ptr<const UserLinesNow> allUserLinesNow(TextCache &texts, const index::Index &index,
                                                    const std::string &uri, const std::string &path) {
  auto make = [&] { return index::userLinesNow(index, path, texts.relocations(uri, path), std::nullopt); };
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
  return index::userLinesNow(index, path, texts.relocations(uri, path), only);
}

const index::KernelLaunch *launchSiteNow(TextCache &texts, const index::Index &index, index::LaunchRef ref,
                                         const std::string &uri) {
  const index::Launch &l = index.launch(ref);
  const index::Artifact &a = index.artifact(ref.artifact);
  const index::OutputCodeAnalysis *edited = texts.editedAnalysis(uri, a.language);
  if (!edited) return &l.site;
  // The same launch in the edited text: the same key, the same occurrence of it.
  std::string key = l.site.key();
  size_t n = index::occurrenceOfKey(a.launches.size(), ref.index,
                                    [&](size_t j) { return a.launches[j].site.key(); });
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
  return std::string(index::baseName(o.path)) + ":" + std::to_string(o.line);
}

std::vector<index::LaunchRef> withoutCopies(const index::Index &index,
                                            std::vector<index::LaunchRef> launches) {
  std::erase_if(launches,
                [&](index::LaunchRef r) { return index.firstEquivalent(r.artifact) != r.artifact; });
  return launches;
}

index::SymbolAt symbolAtPosition(const index::Index &index, index::ArtifactId id, TextCache &texts,
                                 const std::string &uri, const protocol::Position &position) {
  size_t column = texts.byteColumn(uri, position);
  const index::OutputCodeAnalysis *edited = texts.editedAnalysis(uri, index.artifact(id).language);
  return index::symbolAtColumn(index, id, position.line, column, texts.lineText(uri, position.line), edited);
}

} // namespace inductor::server
