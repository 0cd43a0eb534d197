// server/features/RuntimeCodeActions.cpp: the printer code actions (see RuntimeFeatures.h), and a minimal
// textDocument/codeAction handler serving them. FIXME(issue 9): server/features/CodeAction.cpp (compile
// health) takes runtimeCodeActions() in, and this handler goes.
#include "server/features/RuntimeFeatures.h"

#include "index/runtime/Runtime.h"

#include <algorithm>

namespace inductor::server {

namespace {

constexpr const char *kPrinterLevel = "AOT_INDUCTOR_DEBUG_INTERMEDIATE_VALUE_PRINTER";
constexpr const char *kFilter = "AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT";

protocol::CodeAction envAction(std::string title, const std::vector<std::pair<std::string, std::string>> &env,
                               std::string explanation) {
  protocol::PrinterEnv printer;
  for (const auto &[name, value] : env) {
    printer.env[name] = value;
    // Single quotes keep a comma-separated kernel list one word in any POSIX shell.
    bool plain = std::all_of(value.begin(), value.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
    });
    printer.shell += (printer.shell.empty() ? "" : " ") + name + "=" + (plain ? value : "'" + value + "'");
  }
  printer.title = title;
  printer.explanation = std::move(explanation);
  protocol::CodeAction a;
  a.title = title;
  protocol::Command cmd =
      protocol::clientCommand(std::move(title), protocol::ShowPrinterEnvArguments{printer});
  a.command = std::move(cmd);
  return a;
}

} // namespace

std::vector<protocol::CodeAction> runtimeCodeActions(const index::Index &index, TextCache &texts,
                                                     const std::string &uri, const protocol::Range &range) {
  std::vector<protocol::CodeAction> out;
  Target target = resolveTarget(index, uri, texts);
  std::vector<index::LaunchRef> launches;
  if (target.kind == Target::Kind::Artifact) {
    texts.prefer(target.artifact, uri);
    const index::Artifact &a = index.artifact(target.artifact);
    for (uint32_t i = 0; i < a.launches.size(); ++i) {
      uint32_t line = launchLocation(texts, index, {target.artifact, i}).range.start.line;
      if (line >= range.start.line && line <= range.end.line) launches.push_back({target.artifact, i});
    }
  } else if (target.kind == Target::Kind::UserFile && index.stats().runLogs > 0) {
    // On a model line only once a run log is there (the printer's output is then being used): otherwise
    // every line that made kernels would offer to run the printer, beside the line's own quick fixes.
    for (uint32_t line = range.start.line; line <= range.end.line && line < range.start.line + 200; ++line)
      for (index::LaunchRef r : index.launchesForLine(target.path, line + 1))
        if (std::find(launches.begin(), launches.end(), r) == launches.end()) launches.push_back(r);
  }
  if (launches.empty()) return out;

  std::vector<std::string> kernels;
  bool cppWrapper = false;
  for (index::LaunchRef r : launches) {
    const index::Launch &l = index.launch(r);
    if (std::find(kernels.begin(), kernels.end(), l.site.kernel) == kernels.end())
      kernels.push_back(l.site.kernel);
    const index::Artifact &a = index.artifact(r.artifact);
    const index::Compile *c = index.compileOf(r.artifact);
    cppWrapper = cppWrapper || a.language == index::Language::Cpp || (c && c->aoti) ||
                 l.site.kernel.rfind("aoti_torch_", 0) == 0;
  }
  std::string list;
  for (const std::string &k : kernels)
    list += (list.empty() ? "" : ",") + k;
  std::string which = kernels.size() == 1 ? kernels.front() : std::to_string(kernels.size()) + " kernels";
  out.push_back(envAction(
      "Print the tensors of " + which + " only (intermediate value debug printer)",
      {{kPrinterLevel, "2"}, {kFilter, list}},
      "Run the program with these variables: Inductor's debug printer prints the statistics of every "
      "argument "
      "of " +
          which +
          " before and after each launch, to stdout. Save that output beside the trace (or name it in the "
          "`runLogs` setting) and inductor-ls shows the statistics on the launches and the first NaN/Inf. "
          "The "
          "variables change Inductor's config, so the code is compiled again."));
  if (cppWrapper)
    out.push_back(
        envAction("Find the crashing kernel (printer level 3, CUDA_LAUNCH_BLOCKING=1)",
                  {{kPrinterLevel, "3"}, {"CUDA_LAUNCH_BLOCKING", "1"}},
                  "Run the program with these variables: every launch prints `[ before_launch: KERNEL ]` and "
                  "`[ after_launch: KERNEL ]`, and launches are synchronous, so the last kernel without its "
                  "after_launch "
                  "is the one that crashed (inductor-ls marks it when the output is saved as a run log)."));
  else
    out.push_back(envAction("Find the crashing kernel (printer level 2, CUDA_LAUNCH_BLOCKING=1)",
                            {{kPrinterLevel, "2"}, {"CUDA_LAUNCH_BLOCKING", "1"}},
                            "Run the program with these variables: launches are synchronous and the printer "
                            "prints every argument "
                            "before and after each launch, so the last `before_launch` block without its "
                            "`after_launch` names the "
                            "kernel that crashed (level 3, names only, prints nothing with the Python "
                            "wrapper; inductor-ls marks the "
                            "kernel when the output is saved as a run log)."));
  return out;
}

} // namespace inductor::server
