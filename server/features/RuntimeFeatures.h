// server/features/RuntimeFeatures.h: the runtime findings and actions as protocol values, for the server's
// diagnostics publisher and code action handler. Pure functions of an index snapshot and the documents.
//  - runtimeDiagnostics (server/features/RuntimeDiagnostics.cpp): the first NaN/Inf (Error on the launch and
//  on the user
//    lines that made it), NaN reaching a launch through its inputs, a launch the run never finished.
//  - runtimeCodeActions (server/features/RuntimeCodeActions.cpp): on a launch or a user line, the environment
//  that
//    prints only those kernels' arguments (printer level 2 + AOT_INDUCTOR_FILTERED_KERNELS_TO_PRINT), and the
//    one that finds a crashing kernel (level 3, or level 2 for the Python wrapper, with
//    CUDA_LAUNCH_BLOCKING=1). Their command is the client-side `inductor.showPrinterEnv` with one argument
//    {title, env: {NAME: value}, shell: "NAME=value ...", explanation}: editors show it for the user to copy
//    (they never run anything).
#pragma once

#include "index/model/Index.h"
#include "protocol/Json.h"
#include "protocol/Protocol.h"
#include "server/text/Convert.h"

#include <string>
#include <vector>

namespace inductor::server {

using protocol::json;

/// The runtime diagnostics of the document `uri` (generated code or a user file), with related locations.
std::vector<protocol::Diagnostic> runtimeDiagnostics(const index::Index &index, TextCache &texts,
                                                     const std::string &uri);

/// The printer code actions for the launches in `range` of `uri` (generated code), or for the launches of the
/// user lines in `range` (a user file, when the index has a printer run log); empty when there are none.
std::vector<protocol::CodeAction> runtimeCodeActions(const index::Index &index, TextCache &texts,
                                                     const std::string &uri, const protocol::Range &range);

} // namespace inductor::server
