// server/format/WireEnums.h: the index's enums as the wire's (protocol/InductorProtocol.h). The index names
// its values for prose (index::compileStatusName, healthEventWord: explain's and the hovers' text); the wire
// has its own table, so that a reworded sentence never changes the protocol.
#pragma once

#include "index/compare/Compare.h"
#include "index/health/CompileHealth.h"
#include "index/model/Index.h"
#include "index/model/Ranks.h"
#include "index/runtime/Roofline.h"
#include "index/runtime/Runtime.h"
#include "protocol/InductorProtocol.h"

#include <optional>

namespace inductor::server {

protocol::EventKind wireEnum(index::HealthEventKind kind);
protocol::CompileStatus wireEnum(index::CompileStatus status);
protocol::Change wireEnum(index::Change change);
protocol::RankDivergenceKind wireEnum(index::RankDivergenceKind kind);
protocol::ArtifactKind wireEnum(index::ArtifactKind kind);
/// nullopt for Unknown (the wire's null).
std::optional<protocol::CacheOutcome> wireEnum(index::CacheOutcome outcome);
/// nullopt for Unknown (the wire's null).
std::optional<protocol::Bound> wireEnum(index::Bound bound);
/// A compile's graph kind; `aot` for an AOTInductor compile.
protocol::GraphKind graphKindOf(const index::Compile &compile);
/// What the index's GPU times are per: none without a joined profile.
protocol::TimeBasis timeBasisOf(const index::Index &index);

} // namespace inductor::server
