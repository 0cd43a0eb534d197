// server/workspace/Notices.cpp: see Notices.h.
#include "server/workspace/Notices.h"

#include "server/text/Convert.h"

namespace inductor::server {

namespace {

std::string joined(const std::vector<std::string> &items, size_t limit = 3) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < limit; ++i)
    out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += ", …";
  return out;
}

std::string parentOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? path : path.substr(0, slash);
}

} // namespace

std::string noProvenanceMessage(const index::IndexStats &s) {
  size_t without = s.launchesWithoutProvenance, none = s.launchesWithoutProvenanceOrOrigin;
  if (without == 0) return {};
  std::string message = "inductor-ls: " + std::to_string(without) + " of " +
                        plural(s.launches, "kernel launch", "kernel launches") +
                        (without == 1 ? " was" : " were") + " recorded without provenance: ";
  if (none == without)
    message += "none of them has a user origin. ";
  else if (none > 0)
    message += std::to_string(none) + " of them " + (none == 1 ? "has" : "have") +
               " no user origin, and the others' origins come only from the FX graphs' `# File:` comments. ";
  else
    message += "their origins come only from the FX graphs' `# File:` comments. ";
  message += "Run the script again with INDUCTOR_PROVENANCE=1 (beside TORCH_TRACE) to record each kernel's "
             "stack.";
  return message;
}

std::vector<Notice> noticesFor(const index::Index &index, const index::IndexOptions &options) {
  std::vector<Notice> out;
  index::IndexStats s = index.stats();
  if (s.traceFiles == 0 && s.compiles == 0) {
    Notice n;
    n.kind = protocol::NoticeKind::NoTrace;
    n.type = protocol::MessageType::Info;
    std::string where = !options.inputs.empty()  ? "in traceDirs (" + joined(options.inputs) + ")"
                        : !options.roots.empty() ? "under " + joined(options.roots)
                                                 : "(no workspace folder and no traceDirs)";
    std::string dir = options.roots.empty() ? std::string("trace") : options.roots.front() + "/trace";
    n.message = "inductor-ls: no torch.compile trace found " + where +
                ". Make one by running your script with TORCH_TRACE=" + dir +
                " INDUCTOR_PROVENANCE=1 (it is picked up as soon as it appears), or set traceDirs to where "
                "your traces are.";
    n.key = protocol::wireName(n.kind) + "\n" + where;
    out.push_back(std::move(n));
  }
  if (s.launchesWithMissingSource > 0) {
    Notice n;
    n.kind = protocol::NoticeKind::MissingSources;
    n.type = protocol::MessageType::Warning;
    const std::string &first = s.firstMissingSource;
    n.message = "inductor-ls: " + std::to_string(s.launchesWithMissingSource) + " of " +
                plural(s.launches, "kernel launch", "kernel launches") +
                " come from source files that are not on this machine (first: " + first +
                "); answers show the code the trace recorded. ";
    if (first.find("/site-packages/") != std::string::npos ||
        first.find("/dist-packages/") != std::string::npos)
      n.message += "Set pythonPath to the Python environment that ran the script, or map the recorded "
                   "directory with pathMappings.";
    else
      n.message += "Map the recorded directory to your copy with pathMappings ({\"from\": \"" +
                   parentOf(first) + "\", \"to\": \"/path/to/your/copy\"}).";
    n.key = protocol::wireName(n.kind) + "\n" + first;
    out.push_back(std::move(n));
  }
  if (std::string message = noProvenanceMessage(s); !message.empty()) {
    Notice n;
    n.kind = protocol::NoticeKind::NoProvenance;
    n.type = protocol::MessageType::Info; // Nothing is broken; answers are coarser.
    n.message = std::move(message);
    n.key = protocol::wireName(n.kind); // Once a session: a log that grows does not say it again.
    out.push_back(std::move(n));
  }
  if (s.corruptedRecords > 0) {
    Notice n;
    n.kind = protocol::NoticeKind::CorruptedRecords;
    n.type = protocol::MessageType::Warning;
    n.message = "inductor-ls: " + plural(s.corruptedRecords, "corrupted trace record") + " skipped";
    for (const index::IndexDiagnostic &d : index.diagnostics()) {
      n.message += " (first: " + d.file + ":" + std::to_string(d.line + 1) + ": " + d.message + ")";
      break;
    }
    n.message += "; the rest of the traces is served.";
    n.key = protocol::wireName(n.kind);
    out.push_back(std::move(n));
  }
  return out;
}

} // namespace inductor::server
