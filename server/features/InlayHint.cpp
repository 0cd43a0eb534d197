// server/features/InlayHint.cpp: textDocument/inlayHint, runtime data at the end of generated-code lines.
//  - After each kernel launch in the requested range: its GPU time from the profiles (`41.2 µs/step · 9.0%`,
//    `total` instead of `/step` when the profile marks no steps) and the printer's statistics of its outputs
//    (`buf1 4×128 f32 μ 0.05 [−2.1, 1.9]`); tooltips give the per-step times and the before/after table.
//  - After the entry point (`def call` / `run_impl`): the compile's time over its calls, and for CUDA graph
//    replays that per-launch time does not exist.
// User files get no hints (their lines carry code lenses). Positions follow edits of the generated code the
// same way definition and references do (launchLocation).
#include "server/features/Features.h"
#include "server/format/KernelFormat.h"
#include "server/format/RuntimeFormat.h"
#include "server/text/Convert.h"

namespace inductor::server {

namespace {

protocol::InlayHint endOfLine(TextCache &texts, const std::string &uri, uint32_t line, std::string label,
                              std::string tooltip) {
  protocol::InlayHint h;
  h.position = texts.position(uri, line, texts.lineText(uri, line).size());
  h.label = std::move(label);
  h.paddingLeft = true;
  if (!tooltip.empty())
    h.tooltip = protocol::MarkupContent{protocol::MarkupKind::Markdown, std::move(tooltip)};
  return h;
}

bool inRange(const protocol::Range &r, uint32_t line) {
  return line >= r.start.line && line <= r.end.line;
}

} // namespace

std::vector<protocol::InlayHint> inlayHint(const FeatureContext &ctx,
                                           const protocol::InlayHintParams &params) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const std::string &uri = ctx.uri;
  std::vector<protocol::InlayHint> out;
  const Target &target = ctx.target;
  if (target.kind != Target::Kind::Artifact) return out;
  const index::Artifact &a = index.artifact(target.artifact);
  const index::RuntimeData &rt = index.runtime();

  if (const index::CompileTiming *c = index::compileTiming(index, a.compile); c && !a.code.entries.empty()) {
    uint32_t line = a.code.entries.front().line;
    if (inRange(params.range, line)) {
      std::string label = index.compiles()[a.compile.value].label() + ": " + timeText(rt.times, c->ns) +
                          " over " + std::to_string(c->calls) + (c->calls == 1 ? " call" : " calls");
      if (c->graphReplays) label += " · CUDA graph replays: no per-launch time";
      std::string tip = "GPU time of everything this compiled code launched, " + timeBasis(rt.times) + ".";
      if (c->otherNs)
        tip += "\n\nOf that, " + timeText(rt.times, c->otherNs) +
               " ran under ops that are no launch "
               "of this code (copies, allocations).";
      if (c->graphReplays)
        tip += "\n\n" + std::to_string(c->graphReplays) + " calls replayed a CUDA graph (" +
               timeText(rt.times, c->graphReplayNs) +
               "): the profile cannot tie its kernels "
               "to single launches.";
      out.push_back(endOfLine(texts, uri, line, std::move(label), std::move(tip)));
    }
  }
  for (uint32_t i = 0; i < a.launches.size(); ++i) {
    index::LaunchRef ref{target.artifact, i};
    const index::LaunchTiming *t = index::launchTiming(index, ref);
    const index::LaunchValues *v = index::launchValues(index, ref);
    if (!t && !v) continue;
    protocol::Location loc = launchLocation(texts, index, ref);
    uint32_t line = loc.range.start.line;
    if (!inRange(params.range, line)) continue;
    if (t) {
      std::string label = timeText(rt.times, t->ns) + " · " + percentText(rt.times.percent(t->ns));
      out.push_back(endOfLine(texts, uri, line, std::move(label), launchRuntimeMarkdown(index, ref)));
    }
    if (v) {
      std::string label = launchStatsText(*v);
      if (!label.empty()) out.push_back(endOfLine(texts, uri, line, std::move(label), statsTable(*v)));
    }
  }
  appendPtxCountHints(index, texts, uri, target, params.range, out); // Triton kernel lines (Lowered.cpp).
  return out;
}

} // namespace inductor::server
