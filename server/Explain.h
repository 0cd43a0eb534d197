// server/Explain.h: `inductor-ls explain`, the command-line view of an index: for each kernel launch its user
// origin, and for each user source line its kernels. Plain text for people, `--json` for scripts.
#pragma once

#include <string>
#include <vector>

namespace inductor::server {

/// Runs the explain command with its arguments (after the word `explain`). Returns the exit code.
int runExplain(const std::vector<std::string> &args);

} // namespace inductor::server
