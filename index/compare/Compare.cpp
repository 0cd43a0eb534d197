// The comparison of two runs (Compare.h): lines matched by their text now, events by kind, text and reason.
#include "index/compare/Compare.h"

#include "index/model/Counts.h"

#include "index/files/PathResolver.h"
#include "index/files/SourceReader.h"
#include "index/model/TextQueries.h"
#include "index/runtime/Runtime.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace inductor::index {

namespace {

/// The normalized local paths of the user files that a run's launches came from, sorted.
std::set<std::string> userPaths(const Index &index) {
  std::set<std::string> out;
  std::unordered_set<const void *> seen; // Launches share their origins (Launch::origins): each list once.
  for (const Artifact &a : index.artifacts())
    for (const Launch &l : a.launches) {
      if (l.origins.empty() || !seen.insert(l.origins.identity()).second) continue;
      for (const Origin &o : l.origins)
        out.insert(normalizePath(o.path));
    }
  return out;
}

/// Identity of each kernel's generated code in one index, read once per output code: a hash of the
/// embedded kernel source's lines (trimmed at the end), else of the definition's code lines (comments, which
/// name FX nodes and cache paths, aside); 0 for extern kernels. The copies of an output code on other
/// devices (Index::firstEquivalent) are read once, as the first, so that ranks do not differ by device.
class KernelCode {
public:
  explicit KernelCode(const Index &index) : index_(index) {}

  uint64_t hashOf(LaunchRef ref) {
    const Launch &l = index_.launch(ref);
    if (l.definition < 0) return 0;
    ArtifactId id = index_.firstEquivalent(ref.artifact);
    auto [it, fresh] = byArtifact_.try_emplace(id.value);
    if (fresh) it->second = read(id);
    size_t d = static_cast<size_t>(l.definition);
    return d < it->second.size() ? it->second[d] : 0;
  }

private:
  std::vector<uint64_t> read(ArtifactId id) const {
    const Artifact &a = index_.artifact(id);
    std::vector<uint64_t> out(a.code.kernels.size(), 0);
    std::string text;
    TextLines lines;
    if (auto inLog = index_.textLinesInLog(id)) {
      lines = std::move(*inLog);
    } else {
      Expected<std::string> read = index_.readText(id);
      if (!read) return out; // Unreadable now: every kernel compares as unknown code (0), never as changed.
      text = std::move(*read);
      lines = splitLines(text);
    }
    for (size_t k = 0; k < a.code.kernels.size(); ++k) {
      const KernelDefinition &d = a.code.kernels[k];
      bool embedded = d.sourceLastLine > d.sourceFirstLine;
      uint32_t first = embedded ? d.sourceFirstLine : d.firstLine;
      uint32_t last = embedded ? d.sourceLastLine : d.lastLine;
      uint64_t h = 1469598103934665603ull;
      for (uint32_t i = first; i <= last && i < lines.size(); ++i) {
        std::string_view line = lines[i];
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t'))
          line.remove_suffix(1);
        if (!embedded && trim(line).starts_with("#")) continue;
        h = (h ^ std::hash<std::string_view>{}(line)) * 1099511628211ull;
      }
      out[k] = h | 1; // Never 0: that is an extern kernel's.
    }
    return out;
  }

  const Index &index_;
  std::unordered_map<uint32_t, std::vector<uint64_t>> byArtifact_;
};

/// One line of the comparison while it is being gathered: the launches of each run that are on it.
struct Slot {
  uint32_t line = 0;
  std::string text;
  std::vector<LaunchRef> before, after;
  std::unordered_set<uint64_t> seenBefore, seenAfter;
};

uint64_t packed(LaunchRef r) {
  return (uint64_t(r.artifact.value) << 32) | r.index;
}

/// Puts every launch of `index` from the user file `path` on the slot of its line now: by where its recorded
/// line is in `now` (`relocated`), else, when that text is no longer there, by the recorded text.
void gather(const Index &index, const std::string &path, const TextLines &now,
            const std::vector<Relocation> &relocated, bool after, std::map<std::string, Slot> &slots) {
  const std::vector<RecordedLine> &recorded = index.recordedLines(path);
  std::unordered_map<std::string_view, bool> isThisFile;
  auto inThisFile = [&](const std::string &p) {
    if (p == path) return true;
    auto [it, fresh] = isThisFile.try_emplace(p, false);
    if (fresh) it->second = normalizePath(p) == path;
    return it->second;
  };
  for (const UserLine &ul : index.userLines(path))
    for (LaunchRef ref : ul.launches)
      for (const Origin &o : index.launch(ref).origins) {
        if (o.line != ul.line || !inThisFile(o.path)) continue;
        std::optional<size_t> k = recordedLineIndex(recorded, o);
        std::string key;
        uint32_t line = o.line;
        std::string text;
        if (k && *k < relocated.size() && relocated[*k].found()) {
          line = relocated[*k].line;
          key = "@" + std::to_string(line);
          text = line <= now.size() ? std::string(trim(now[line - 1])) : std::string(trim(o.code));
        } else {
          // No longer in the text: matched with the other run's line of the same recorded text, if any.
          text = std::string(trim(o.code));
          key = text.empty() ? "#" + std::to_string(o.line) : "=" + text;
        }
        Slot &slot = slots[key];
        if (slot.line == 0 || (after && key[0] != '@')) {
          slot.line = line; // A line no longer in the text: the current run's number, else the baseline's.
          slot.text = text;
        }
        auto &seen = after ? slot.seenAfter : slot.seenBefore;
        if (seen.insert(packed(ref)).second) (after ? slot.after : slot.before).push_back(ref);
      }
}

/// GPU time of some launches of a run: per step when steps are marked; none without profiles, or when none
/// of them was timed.
std::optional<uint64_t> gpuTime(const Index &index, const std::vector<LaunchRef> &launches) {
  const RuntimeTimes &times = index.runtime().times;
  if (!times.present()) return std::nullopt;
  // The figure the lens and hover show of the same launches (Runtime.h).
  LaunchesTiming t = timeOfLaunches(index, launches);
  if (!t.timed()) return std::nullopt;
  return times.perStep(t.ns);
}

/// The kernel names of some launches and the code identities of each name.
std::map<std::string, std::set<uint64_t>> kernelsOf(const Index &index, KernelCode &code,
                                                    const std::vector<LaunchRef> &launches) {
  std::map<std::string, std::set<uint64_t>> out;
  for (LaunchRef r : launches)
    out[index.launch(r).site.kernel].insert(code.hashOf(r));
  return out;
}

/// The current run's recorded lines at their recorded numbers: the text that stands for a file that cannot
/// be read (see the file comment of Compare.h). Views into `index`.
TextLines recordedText(const Index &index, const std::string &path) {
  TextLines out;
  for (const RecordedLine &r : index.recordedLines(path)) {
    if (r.line == 0 || r.code.empty()) continue;
    if (out.size() < r.line) out.resize(r.line);
    if (out[r.line - 1].empty()) out[r.line - 1] = r.code;
  }
  return out;
}

std::vector<ComparedLine> compareLinesWith(const Index &baseline, const Index &current,
                                           const std::string &path, const TextLines *text,
                                           KernelCode &codeBefore, KernelCode &codeAfter) {
  TextLines stand;
  if (!text) {
    stand = recordedText(current, path);
    text = &stand;
  }
  std::vector<Relocation> relocatedBefore = relocateLines(*text, baseline.recordedLines(path));
  std::vector<Relocation> relocatedAfter = relocateLines(*text, current.recordedLines(path));
  std::map<std::string, Slot> slots;
  gather(baseline, path, *text, relocatedBefore, false, slots);
  gather(current, path, *text, relocatedAfter, true, slots);
  std::vector<ComparedLine> out;
  for (auto &[key, slot] : slots) {
    ComparedLine l;
    l.path = path;
    l.line = slot.line;
    l.text = std::move(slot.text);
    auto before = kernelsOf(baseline, codeBefore, slot.before);
    auto after = kernelsOf(current, codeAfter, slot.after);
    for (const auto &[name, hashes] : before)
      l.kernelsBefore.push_back(name);
    for (const auto &[name, hashes] : after) {
      l.kernelsAfter.push_back(name);
      auto b = before.find(name);
      // Code unknown on either side (0: extern, or unreadable output code) is not a change.
      if (b != before.end() && b->second != hashes && !b->second.count(0) && !hashes.count(0))
        l.kernelsChanged.push_back(name);
    }
    l.change = slot.before.empty()                                              ? Change::New
               : slot.after.empty()                                             ? Change::Gone
               : l.kernelsBefore != l.kernelsAfter || !l.kernelsChanged.empty() ? Change::Changed
                                                                                : Change::Same;
    l.gpuNsBefore = gpuTime(baseline, slot.before);
    l.gpuNsAfter = gpuTime(current, slot.after);
    LaunchSummary summaryBefore = summarizeLaunches(baseline, slot.before);
    LaunchSummary summaryAfter = summarizeLaunches(current, slot.after);
    l.kernelCountBefore = summaryBefore.kernels;
    l.kernelCountAfter = summaryAfter.kernels;
    l.compilesBefore = summaryBefore.compiles;
    l.compilesAfter = summaryAfter.compiles;
    l.launchesBefore = std::move(slot.before);
    l.launchesAfter = std::move(slot.after);
    out.push_back(std::move(l));
  }
  std::sort(out.begin(), out.end(), [](const ComparedLine &a, const ComparedLine &b) {
    return std::tie(a.line, a.text) < std::tie(b.line, b.text);
  });
  return out;
}

// Events.

bool compared(HealthEventKind kind) {
  return kind == HealthEventKind::GraphBreak || kind == HealthEventKind::Recompile ||
         kind == HealthEventKind::Failure;
}

/// The place an event is shown at (HealthEvent::shownAt, else `at`).
const Origin *placeOf(const Index &index, const HealthEvent &e) {
  std::optional<uint32_t> at = e.shownAt ? e.shownAt : e.at;
  return at ? &index.place(*at) : nullptr;
}

/// The recorded text of a place: its own, else what the same run recorded for that line elsewhere.
std::string placeText(const Index &index, const Origin &o) {
  if (!trim(o.code).empty()) return std::string(trim(o.code));
  for (const RecordedLine &r : index.recordedLines(o.path))
    if (r.line == o.line && !trim(r.code).empty()) return std::string(trim(r.code));
  return {};
}

/// A run's compared events by identity (kind, file, line text, reason), each key's events in index order.
std::map<std::string, std::vector<uint32_t>> eventsByKey(const Index &index) {
  std::map<std::string, std::vector<uint32_t>> out;
  const CompileHealth &h = index.compileHealth();
  for (uint32_t i = 0; i < h.events.size(); ++i) {
    const HealthEvent &e = h.events[i];
    if (!compared(e.kind)) continue;
    const Origin *o = placeOf(index, e);
    std::string key = std::to_string(int(e.kind)) + '\n' + (o ? normalizePath(o->path) : "") + '\n' +
                      (o ? placeText(index, *o) : "") + '\n' + e.title;
    out[key].push_back(i);
  }
  return out;
}

} // namespace

std::string_view changeName(Change change) {
  switch (change) {
  case Change::New:
    return "new";
  case Change::Gone:
    return "gone";
  case Change::Changed:
    return "changed";
  case Change::Same:
    break;
  }
  return "same";
}

const ComparedLine *Comparison::lineAt(std::string_view path, uint32_t line) const {
  std::string p = normalizePath(path);
  for (const ComparedLine &l : lines)
    if (l.line == line && l.path == p) return &l;
  return nullptr;
}

std::vector<ComparedLine> compareLines(const Index &baseline, const Index &current, const std::string &path,
                                       const TextLines *text) {
  KernelCode before(baseline), after(current);
  return compareLinesWith(baseline, current, normalizePath(path), text, before, after);
}

std::vector<uint32_t> newEvents(const Index &baseline, const Index &current) {
  auto before = eventsByKey(baseline);
  std::vector<uint32_t> out;
  for (const auto &[key, events] : eventsByKey(current))
    if (!before.count(key)) out.insert(out.end(), events.begin(), events.end());
  std::sort(out.begin(), out.end());
  return out;
}

Comparison compareRuns(const Index &baseline, const Index &current, const CompareOptions &options) {
  Comparison out;
  out.baseline = {options.baselineId.empty() ? baseline.run().id : options.baselineId, baseline.traceFiles()};
  out.current = {options.currentId.empty() ? current.run().id : options.currentId, current.traceFiles()};
  out.perStepBefore = baseline.runtime().times.stepsMarked();
  out.perStepAfter = current.runtime().times.stepsMarked();

  // The current text of each user file, read once.
  std::unique_ptr<SourceReader> reader;
  std::map<std::string, std::shared_ptr<const SourceFile>> read;
  std::map<std::string, const TextLines *> texts;
  auto textOf = [&](const std::string &path) -> const TextLines * {
    auto [it, fresh] = texts.try_emplace(path, nullptr);
    if (!fresh) return it->second;
    if (options.text) return it->second = options.text(path);
    if (!reader) reader = std::make_unique<SourceReader>(current.readPolicy());
    SourceRead r = reader->read(path);
    if (!r.ok()) return nullptr;
    read[path] = r.file;
    return it->second = &r.file->lines;
  };

  std::set<std::string> paths = userPaths(baseline);
  paths.merge(userPaths(current));
  KernelCode codeBefore(baseline), codeAfter(current);
  for (const std::string &path : paths) {
    std::vector<ComparedLine> lines =
        compareLinesWith(baseline, current, path, textOf(path), codeBefore, codeAfter);
    std::move(lines.begin(), lines.end(), std::back_inserter(out.lines));
  }

  // Events: where each is now (its recorded line found in the current text, as the lines are).
  std::map<std::pair<const Index *, std::string>, std::vector<Relocation>> relocated;
  auto lineNow = [&](const Index &index, const Origin &o) -> uint32_t {
    std::string path = normalizePath(o.path);
    const std::vector<RecordedLine> &recorded = index.recordedLines(path);
    auto [it, fresh] = relocated.try_emplace({&index, path});
    if (fresh) {
      TextLines stand;
      const TextLines *text = textOf(path);
      if (!text) {
        stand = recordedText(current, path);
        text = &stand;
      }
      it->second = relocateLines(*text, recorded);
    }
    if (std::optional<size_t> k = recordedLineIndex(recorded, o); k && *k < it->second.size())
      if (it->second[*k].found()) return it->second[*k].line;
    return o.line;
  };
  auto before = eventsByKey(baseline), after = eventsByKey(current);
  auto add = [&](const Index &index, Change change, const std::vector<uint32_t> &events) {
    const HealthEvent &e = index.compileHealth().events[events.front()];
    ComparedEvent c;
    c.change = change;
    c.kind = e.kind;
    if (const Origin *o = placeOf(index, e)) {
      c.path = normalizePath(o->path);
      c.line = lineNow(index, *o);
      c.code = placeText(index, *o);
    }
    c.message = e.title;
    c.events = events;
    out.events.push_back(std::move(c));
  };
  for (const auto &[key, events] : after)
    if (!before.count(key)) add(current, Change::New, events);
  for (const auto &[key, events] : before)
    if (!after.count(key)) add(baseline, Change::Gone, events);
  std::stable_sort(out.events.begin(), out.events.end(), [](const ComparedEvent &a, const ComparedEvent &b) {
    return std::tie(a.change, a.path, a.line) < std::tie(b.change, b.path, b.line);
  });
  return out;
}

} // namespace inductor::index
