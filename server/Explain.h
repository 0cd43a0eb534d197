// server/Explain.h: `inductor-ls explain`, the command-line view of an index: for each kernel launch its user
// origin, and for each user source line its kernels. Plain text for people, `--json` for scripts.
#pragma once

#include "protocol/Json.h"

#include <string>
#include <vector>

namespace inductor::index {
class Index;
}

namespace inductor::server {

/// The runtime part of explain (server/ExplainRuntime.cpp): GPU time per user line, launch and compile, and
/// the printer's statistics and findings; as text on stdout, or as the `runtime` member of `--json`.
void printRuntime(const index::Index &index);
protocol::json runtimeJson(const index::Index &index);

/// Runs the explain command with its arguments (after the word `explain`). Returns the exit code.
int runExplain(const std::vector<std::string> &args);

} // namespace inductor::server
