// How a comparison with a baseline run reads in every view (CompareFormat.h).
#include "server/format/CompareFormat.h"

#include "index/runtime/Runtime.h"
#include "protocol/URI.h"
#include "server/format/RuntimeFormat.h"
#include "server/text/Markdown.h"
#include "server/text/TextCache.h"
#include "server/text/TextViews.h"

#include <algorithm>
#include <cstdlib>

namespace inductor::server {

namespace {

/// "+35 µs", "−12 µs", "±0": a difference of GPU times.
std::string signedDuration(int64_t ns) {
  if (ns == 0) return "±0";
  return std::string(ns > 0 ? "+" : "\u2212") + formatDuration(static_cast<uint64_t>(std::llabs(ns)));
}

std::string codeList(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 12; ++i)
    out += (i ? ", " : "") + codeSpan(names[i]);
  if (names.size() > 12) out += ", … " + std::to_string(names.size() - 12) + " more";
  return out;
}

std::vector<std::string> minus(const std::vector<std::string> &a, const std::vector<std::string> &b) {
  std::vector<std::string> out; // Both sorted.
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

/// The GPU time of a line in one run as the lens says it ("133 µs/step", "400 µs total").
std::string timeOf(const index::Index &index, uint64_t perStepNs) {
  const index::RuntimeTimes &t = index.runtime().times;
  return formatDuration(perStepNs) + (t.stepsMarked() ? "/step" : " total");
}

} // namespace

std::string runName(const index::Index &index, std::string_view fallback) {
  return index.run().id.empty() ? std::string(fallback) : index.run().id;
}

std::shared_ptr<const std::vector<index::ComparedLine>>
comparedLinesNow(TextCache &texts, const index::Index &current, const index::Index &baseline,
                 const std::string &uri, const std::string &path) {
  auto make = [&] { return index::compareLines(baseline, current, path, texts.lines(uri)); };
  if (const TextViews *views = texts.views(uri))
    return views->derived<std::vector<index::ComparedLine>>(
        current, "comparedLines\n" + std::to_string(baseline.serial()) + "\n" + path, make);
  return std::make_shared<const std::vector<index::ComparedLine>>(make());
}

const index::ComparedLine *comparedLineAt(const std::vector<index::ComparedLine> &lines, uint32_t line) {
  for (const index::ComparedLine &l : lines)
    if (l.line == line && !l.launchesAfter.empty()) return &l;
  for (const index::ComparedLine &l : lines)
    if (l.line == line) return &l;
  return nullptr;
}

std::string lensTitleVsBaseline(const index::Index *baseline, const index::ComparedLine *line,
                                const index::LaunchSummary &summary, const std::string &rest,
                                const std::string &time) {
  std::string counts = summary.counts();
  if (!line || !baseline) return counts + rest + time;
  // The kernel count's change, counted as the lens counts (distinct kernels per graph, LaunchSummary).
  std::string delta;
  if (line->change == index::Change::New) {
    delta = " (new)";
  } else if (!line->launchesBefore.empty()) {
    // The comparison's own counts (ComparedLine), which inductor/compare and its views show too.
    int64_t d = static_cast<int64_t>(line->kernelCountAfter) - static_cast<int64_t>(line->kernelCountBefore);
    if (d > 0)
      delta = " (+" + std::to_string(d) + ")";
    else if (d < 0)
      delta = " (\u2212" + std::to_string(-d) + ")";
    else if (line->change == index::Change::Changed)
      delta = " (changed)";
  }
  std::string kernels = index::countText(summary.kernels, "kernel");
  if (counts.starts_with(kernels))
    counts.insert(kernels.size(), delta);
  else
    counts += delta;
  std::string vs;
  if (!time.empty() && line->gpuNsBefore && line->gpuNsAfter &&
      baseline->runtime().times.stepsMarked() == (time.find("/step") != std::string::npos))
    vs = " (" +
         signedDuration(static_cast<int64_t>(*line->gpuNsAfter) - static_cast<int64_t>(*line->gpuNsBefore)) +
         " vs baseline)";
  return counts + rest + time + vs;
}

std::string comparedLineMarkdown(const index::Index &current, const index::Index &baseline,
                                 const index::ComparedLine *line) {
  if (!line) return "";
  std::string run = runName(baseline, "the baseline");
  std::string out = "**Since run " + run + "**: ";
  switch (line->change) {
  case index::Change::New:
    out += "new: the baseline compiled no kernel from this line";
    break;
  case index::Change::Gone:
    out += "gone: only the baseline compiled kernels from this line";
    break;
  case index::Change::Changed:
    out += "changed";
    break;
  case index::Change::Same:
    out += "the same kernels";
    break;
  }
  out += "\n";
  std::vector<std::string> added = minus(line->kernelsAfter, line->kernelsBefore);
  std::vector<std::string> removed = minus(line->kernelsBefore, line->kernelsAfter);
  if (line->change != index::Change::New && !added.empty()) out += "\n- added: " + codeList(added);
  if (line->change != index::Change::Gone && !removed.empty()) out += "\n- removed: " + codeList(removed);
  if (line->change == index::Change::Gone) out += "\n- before: " + codeList(line->kernelsBefore);
  if (!line->kernelsChanged.empty()) out += "\n- generated code changed: " + codeList(line->kernelsChanged);
  if (line->gpuNsBefore || line->gpuNsAfter) {
    out += "\n- GPU time: ";
    out += line->gpuNsBefore ? timeOf(baseline, *line->gpuNsBefore) : std::string("none");
    out += " → ";
    out += line->gpuNsAfter ? timeOf(current, *line->gpuNsAfter) : std::string("none");
    if (line->gpuNsBefore && line->gpuNsAfter)
      out +=
          " (" +
          signedDuration(static_cast<int64_t>(*line->gpuNsAfter) - static_cast<int64_t>(*line->gpuNsBefore)) +
          ")";
  }
  return out + "\n";
}

std::string compareHover(TextCache &texts, const index::Index &current, const index::Index *baseline,
                         const std::string &uri, const std::string &path, uint32_t line) {
  if (!baseline) return "";
  auto lines = comparedLinesNow(texts, current, *baseline, uri, path);
  return comparedLineMarkdown(current, *baseline, comparedLineAt(*lines, line));
}

void markNewSinceBaseline(protocol::Diagnostic &d, const std::vector<uint32_t> &events,
                          const std::vector<uint32_t> &fresh, const std::string &baselineName) {
  bool isNew = std::any_of(events.begin(), events.end(),
                           [&](uint32_t e) { return std::binary_search(fresh.begin(), fresh.end(), e); });
  if (!isNew) return;
  std::string tag = " · new since run " + baselineName;
  size_t eol = d.message.find('\n');
  d.message.insert(eol == std::string::npos ? d.message.size() : eol, tag);
  if (!d.data) d.data.emplace();
  d.data->newSinceRun = baselineName;
}

} // namespace inductor::server
