// server/format/WireEnums.cpp: see the header. Each switch names every value, so that a value added to an
// index enum fails to compile (-Wswitch) until the wire has it.
#include "server/format/WireEnums.h"

namespace inductor::server {

protocol::EventKind wireEnum(index::HealthEventKind kind) {
  using K = index::HealthEventKind;
  switch (kind) {
  case K::GraphBreak:
    return protocol::EventKind::GraphBreak;
  case K::Recompile:
    return protocol::EventKind::Recompile;
  case K::Failure:
    return protocol::EventKind::Failure;
  case K::Specialization:
    break;
  }
  return protocol::EventKind::Specialization;
}

protocol::CompileStatus wireEnum(index::CompileStatus status) {
  using S = index::CompileStatus;
  switch (status) {
  case S::Failed:
    return protocol::CompileStatus::Failed;
  case S::NotCompiled:
    return protocol::CompileStatus::NotCompiled;
  case S::GraphBreak:
    return protocol::CompileStatus::GraphBreak;
  case S::Recompiled:
    return protocol::CompileStatus::Recompiled;
  case S::Ok:
    break;
  }
  return protocol::CompileStatus::Ok;
}

protocol::Change wireEnum(index::Change change) {
  using C = index::Change;
  switch (change) {
  case C::New:
    return protocol::Change::New;
  case C::Gone:
    return protocol::Change::Gone;
  case C::Changed:
    return protocol::Change::Changed;
  case C::Same:
    break;
  }
  return protocol::Change::Same;
}

protocol::RankDivergenceKind wireEnum(index::RankDivergenceKind kind) {
  using K = index::RankDivergenceKind;
  using W = protocol::RankDivergenceKind;
  switch (kind) {
  case K::Recompile:
    return W::Recompile;
  case K::GraphBreak:
    return W::GraphBreak;
  case K::Failure:
    return W::Failure;
  case K::DifferentCode:
    return W::DifferentCode;
  case K::CollectiveSchedule:
    return W::CollectiveSchedule;
  case K::MissingCompile:
    return W::MissingCompile;
  case K::Cache:
    break;
  }
  return W::Cache;
}

protocol::ArtifactKind wireEnum(index::ArtifactKind kind) {
  using K = index::ArtifactKind;
  using W = protocol::ArtifactKind;
  switch (kind) {
  case K::OutputCode:
    return W::OutputCode;
  case K::WrapperCode:
    return W::WrapperCode;
  case K::KernelSource:
    return W::Kernel;
  case K::Graph:
    break;
  }
  return W::Graph;
}

std::optional<protocol::CacheOutcome> wireEnum(index::CacheOutcome outcome) {
  using C = index::CacheOutcome;
  switch (outcome) {
  case C::Hit:
    return protocol::CacheOutcome::Hit;
  case C::Miss:
    return protocol::CacheOutcome::Miss;
  case C::Bypass:
    return protocol::CacheOutcome::Bypass;
  case C::Unknown:
    break;
  }
  return std::nullopt;
}

std::optional<protocol::Bound> wireEnum(index::Bound bound) {
  using B = index::Bound;
  switch (bound) {
  case B::Memory:
    return protocol::Bound::Memory;
  case B::Compute:
    return protocol::Bound::Compute;
  case B::Latency:
    return protocol::Bound::Latency;
  case B::Unknown:
    break;
  }
  return std::nullopt;
}

protocol::GraphKind graphKindOf(const index::Compile &compile) {
  using K = index::GraphKind;
  using W = protocol::GraphKind;
  if (compile.aoti) return W::Aot;
  switch (compile.graphKind) {
  case K::Forward:
    return W::Forward;
  case K::Backward:
    return W::Backward;
  case K::Inference:
    return W::Inference;
  case K::Unknown:
    break;
  }
  return W::Unknown;
}

protocol::TimeBasis timeBasisOf(const index::Index &index) {
  const index::RuntimeTimes &t = index.runtime().times;
  if (!t.present()) return protocol::TimeBasis::None;
  return t.stepsMarked() ? protocol::TimeBasis::PerStep : protocol::TimeBasis::Total;
}

} // namespace inductor::server
