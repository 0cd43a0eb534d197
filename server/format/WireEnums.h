// server/format/WireEnums.h: the index's enums as the wire's (protocol/InductorProtocol.h). The index names
// its values for prose (index::compileStatusName, healthEventWord: explain's and the hovers' text); the wire
// has its own table, so that a reworded sentence never changes the protocol.
#pragma once

#include "index/compare/Compare.h"
#include "index/health/CompileHealth.h"
#include "index/model/Ranks.h"
#include "protocol/InductorProtocol.h"

namespace inductor::server {

protocol::EventKind wireEnum(index::HealthEventKind kind);
protocol::CompileStatus wireEnum(index::CompileStatus status);
protocol::Change wireEnum(index::Change change);
protocol::RankDivergenceKind wireEnum(index::RankDivergenceKind kind);

} // namespace inductor::server
