// server/workspace/Notices.h: what went wrong while indexing, said once and briefly, with what to do about
// it. The server shows each notice once per session (window/showMessage, and window/logMessage for the output
// channel) and lists the current ones in `inductor/status` (`notices`), so every client can show them in its
// own way. A notice is about the user's setup, not about the server: no trace found, origins whose source
// files are not on this machine, launches recorded without provenance (INDUCTOR_PROVENANCE=1), corrupted
// trace records.
#pragma once

#include "index/model/Index.h"
#include "protocol/InductorProtocol.h"
#include "protocol/Protocol.h"

#include <string>
#include <vector>

namespace inductor::server {

struct Notice {
  protocol::NoticeKind kind = protocol::NoticeKind::NoTrace;
  protocol::MessageType type = protocol::MessageType::Info;
  /// One or two sentences: what happened, then what to do.
  std::string message;
  /// Identifies the notice across rebuilds: it is shown again only when this changes (another first missing
  /// file, say), not on every reindex.
  std::string key;
};

/// What to say about launches recorded without provenance (IndexStats::launchesWithoutProvenance: the
/// script ran without INDUCTOR_PROVENANCE=1): how many have no origin, where the others' come from, and how
/// to record it. Empty when every launch was recorded with provenance. The `noProvenance` notice's text, and
/// `inductor-ls explain`'s.
std::string noProvenanceMessage(const index::IndexStats &stats);

/// The notices an index calls for, given the options it was built with (roots, traceDirs).
std::vector<Notice> noticesFor(const index::Index &index, const index::IndexOptions &options);

} // namespace inductor::server
