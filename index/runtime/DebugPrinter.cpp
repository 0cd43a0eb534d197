// index/runtime/DebugPrinter.cpp: the printer's run-log formats and their mapping to launches (see
// DebugPrinter.h).
#include "index/runtime/DebugPrinter.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace inductor::index {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// A number as Python or C++ print it, `nan`, `-nan`, `inf` and `-inf` included.
std::optional<double> parseNumber(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  bool negative = s.front() == '-';
  std::string_view body = negative || s.front() == '+' ? s.substr(1) : s;
  double v = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc() || end != body.data() + body.size()) return std::nullopt;
  return negative ? -v : v;
}

std::optional<uint64_t> parseCount(std::string_view s) {
  s = trim(s);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

/// `torch.Size([4, 128])` or `[4, 128]`.
bool parseShape(std::string_view s, std::vector<int64_t> &out) {
  size_t open = s.find('['), close = s.rfind(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
  out.clear();
  std::string_view inner = s.substr(open + 1, close - open - 1);
  while (!inner.empty()) {
    size_t comma = inner.find(',');
    std::string_view part = trim(inner.substr(0, comma));
    if (!part.empty()) {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
      if (ec != std::errc() || end != part.data() + part.size()) return false;
      out.push_back(v);
    }
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
  }
  return true;
}

struct Header {
  PrinterPhase phase = PrinterPhase::Before;
  PrinterFormat format = PrinterFormat::Python;
  std::string_view kernel, arg;
  std::optional<std::string_view> scalar; ///< C++ integer arguments carry their value in the header.
  bool valid = false;
};

/// `before_launch - KERNEL - ARG` / `after_launch - ...` / `aoti_model_inputs - ARG`.
bool parseLabel(std::string_view label, Header &h) {
  constexpr std::string_view sep = " - ";
  if (label.starts_with("aoti_model_inputs - ")) {
    h.phase = PrinterPhase::ModelInput;
    h.arg = trim(label.substr(20));
    return !h.arg.empty();
  }
  if (label.starts_with("before_launch - "))
    h.phase = PrinterPhase::Before;
  else if (label.starts_with("after_launch - "))
    h.phase = PrinterPhase::After;
  else
    return false;
  std::string_view rest = label.substr(label.find(sep) + sep.size());
  size_t s = rest.find(sep);
  if (s == std::string_view::npos) return false;
  h.kernel = trim(rest.substr(0, s));
  h.arg = trim(rest.substr(s + sep.size()));
  return !h.kernel.empty() && !h.arg.empty();
}

/// The header a line starts, if any (see the formats in DebugPrinter.h).
Header parseHeader(std::string_view line) {
  Header h;
  if (line.starts_with("inductor: ")) {
    h.format = PrinterFormat::Python;
    h.valid = parseLabel(trim(line.substr(10)), h);
    return h;
  }
  if (line.starts_with("[  ")) {
    size_t close = line.find("  ]");
    if (close == std::string_view::npos) return h;
    std::string_view label = line.substr(3, close - 3);
    h.format = PrinterFormat::Cpp;
    bool tensorBlock = line.substr(close + 3).substr(0, 1) == ":";
    if (!tensorBlock) {
      // `KERNEL - 512L: 512`: an integer argument and its value.
      size_t colon = label.rfind(": ");
      if (colon == std::string_view::npos) return h;
      h.scalar = trim(label.substr(colon + 2));
      label = label.substr(0, colon);
    }
    h.valid = parseLabel(label, h);
    return h;
  }
  if (line.starts_with("[ before_launch: ") || line.starts_with("[ after_launch: ")) {
    h.format = PrinterFormat::KernelNamesOnly;
    h.phase = line[2] == 'b' ? PrinterPhase::Before : PrinterPhase::After;
    size_t start = line.find(": ") + 2, close = line.rfind(" ]");
    if (close == std::string_view::npos || close < start) return h;
    h.kernel = trim(line.substr(start, close - start));
    h.valid = !h.kernel.empty();
    return h;
  }
  return h;
}

bool looksLikeHeaderStart(std::string_view line) {
  return line.starts_with("inductor: before_launch") || line.starts_with("inductor: after_launch") ||
         line.starts_with("[  ") || line.starts_with("[ before_launch: ") ||
         line.starts_with("[ after_launch: ");
}

enum class StatLine { None, Stat, Last };

/// A `Key: value` statistics line of either format: Last for the line that ends a block (`Std`, `Value`,
/// `Requires grad`), None for anything else (tensor prints, other output).
StatLine applyStat(std::string_view line, PrinterFormat format, TensorStats &s) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return StatLine::None;
  std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
  if (key == "Number of elements") {
    s.numel = parseCount(value);
  } else if (key == "Size") {
    s.hasShape = parseShape(value, s.shape);
  } else if (key == "Dtype") {
    // The JIT printer prints the mean under "Dtype" (debug_utils.py); only a real type name is kept.
    if (!parseNumber(value)) s.dtype = std::string(value.starts_with("torch.") ? value.substr(6) : value);
  } else if (key == "Mean" || key == "Mean value") {
    s.mean = parseNumber(value);
  } else if (key == "Min" || key == "Min value") {
    s.min = parseNumber(value);
  } else if (key == "Max" || key == "Max value") {
    s.max = parseNumber(value);
  } else if (key == "Std" || key == "Std value") {
    s.std = parseNumber(value);
    if (format == PrinterFormat::Python) return StatLine::Last;
  } else if (key == "Device") {
    s.device = std::string(value);
  } else if (key == "Value" && format == PrinterFormat::Python) {
    s.tensor = false;
    s.value = std::string(value);
    return StatLine::Last;
  } else if (key == "Requires grad") {
    return StatLine::Last;
  } else if (key == "Stride" || key == "Layout" || key == "Is contiguous") {
    // Read past: part of the block, not shown.
  } else {
    return StatLine::None;
  }
  return StatLine::Stat;
}

} // namespace

bool TensorStats::nonFinite() const {
  for (const auto &v : {mean, min, max, std})
    if (v && !std::isfinite(*v)) return true;
  return false;
}

bool TensorStats::hasNan() const {
  for (const auto &v : {mean, min, max, std})
    if (v && std::isnan(*v)) return true;
  return false;
}

bool looksLikePrinterLog(std::string_view head) {
  return head.find("inductor: before_launch - ") != std::string_view::npos ||
         head.find("inductor: after_launch - ") != std::string_view::npos ||
         head.find("[  before_launch - ") != std::string_view::npos ||
         head.find("[  aoti_model_inputs - ") != std::string_view::npos ||
         head.find("[ before_launch: ") != std::string_view::npos;
}

RunLog parseRunLog(std::string_view text, const RunLogOptions &options) {
  RunLog out;
  constexpr size_t kClosed = SIZE_MAX;
  size_t open = kClosed; // The record whose statistics lines are being read.
  uint32_t lineNo = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view physical =
        text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    uint32_t here = lineNo++;
    // The C++ printer ends integer arguments with a literal backslash-n, so several headers (or a header and
    // the program's next output) can share a physical line: split after each `]\n`.
    std::string_view rest = physical;
    while (true) {
      std::string_view segment = rest;
      size_t split = rest.find("]\\n");
      if (split != std::string_view::npos) {
        segment = rest.substr(0, split + 1);
        rest = rest.substr(split + 3);
      }
      std::string_view line = trim(segment);
      if (looksLikeHeaderStart(line)) {
        Header h = parseHeader(line);
        if (!h.valid) {
          if (line.starts_with("inductor: ") || line.find(" - ") != std::string_view::npos) ++out.malformed;
          open = kClosed;
        } else if (out.records.size() >= options.maxRecords) {
          out.truncated = true;
          return out;
        } else {
          PrinterRecord r;
          r.phase = h.phase;
          r.format = h.format;
          r.kernel = std::string(h.kernel);
          r.arg = std::string(h.arg);
          r.line = here;
          if (h.scalar) {
            r.stats.tensor = false;
            r.stats.value = std::string(*h.scalar);
          }
          out.records.push_back(std::move(r));
          bool block = h.format != PrinterFormat::KernelNamesOnly && !h.scalar;
          open = block ? out.records.size() - 1 : kClosed;
        }
      } else if (open != kClosed && !line.empty()) {
        // Statistics of the open block; anything else (a printed tensor, the program's own output) is
        // skipped without closing it, since tensors print before the statistics.
        PrinterRecord &r = out.records[open];
        if (applyStat(line, r.format, r.stats) == StatLine::Last) open = kClosed;
      } else if (open != kClosed && line.empty() && out.records[open].format == PrinterFormat::Cpp &&
                 out.records[open].stats.numel) {
        open = kClosed; // The C++ block ends with a blank line.
      }
      if (split == std::string_view::npos) break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Mapping.

namespace {

struct Event {
  std::string kernel;
  std::vector<uint32_t> before, after;
  std::vector<uint32_t> inputsBefore; ///< Model-input records seen just before this event (a call starts).
};

/// Launch events in log order: a kernel's before-records then its after-records.
std::vector<Event> groupEvents(const RunLog &log) {
  std::vector<Event> events;
  std::vector<uint32_t> pendingInputs;
  bool open = false; // The last event may still take records.
  for (uint32_t i = 0; i < log.records.size(); ++i) {
    const PrinterRecord &r = log.records[i];
    if (r.phase == PrinterPhase::ModelInput) {
      pendingInputs.push_back(i);
      open = false;
      continue;
    }
    bool startNew = !open || events.back().kernel != r.kernel ||
                    (r.phase == PrinterPhase::Before && !events.back().after.empty());
    if (startNew) {
      events.push_back({r.kernel, {}, {}, std::move(pendingInputs)});
      pendingInputs.clear();
      open = true;
    }
    (r.phase == PrinterPhase::Before ? events.back().before : events.back().after).push_back(i);
  }
  return events;
}

class Mapper {
public:
  Mapper(const std::vector<Event> &events, const std::vector<PrinterCompile> &compiles) : events_(events) {
    positions_.resize(compiles.size());
    for (uint32_t c = 0; c < compiles.size(); ++c)
      for (uint32_t l = 0; l < compiles[c].launchKernels.size(); ++l) {
        positions_[c][compiles[c].launchKernels[l]].push_back(l);
        known_.insert(compiles[c].launchKernels[l]);
      }
  }

  PrinterMapping run() {
    PrinterMapping out;
    State state;
    std::vector<uint32_t> ordinals(positions_.size(), 0);
    uint32_t previousCompile = kNoLaunch;
    std::vector<uint32_t> carriedInputs; // Model inputs printed before an event no compile explains.
    for (uint32_t e = 0; e < events_.size(); ++e) {
      const Event &ev = events_[e];
      PrinterLaunch pl;
      pl.kernel = ev.kernel;
      pl.before = ev.before;
      pl.after = ev.after;
      std::vector<uint32_t> inputs = ev.inputsBefore;
      inputs.insert(inputs.begin(), carriedInputs.begin(), carriedInputs.end());
      carriedInputs.clear();
      uint32_t launch = inputs.empty() ? assign(state, ev.kernel) : kNoLaunch;
      if (launch == kNoLaunch) {
        // A new call, unless no output code has this kernel at all: then the event is unmatched and the
        // current call goes on.
        uint32_t compile = chooseCompile(e, previousCompile);
        if (compile != kNoLaunch) {
          state = State{};
          state.compile = compile;
          previousCompile = compile;
          out.calls.push_back({compile, ordinals[compile]++, std::move(inputs)});
          state.call = static_cast<uint32_t>(out.calls.size() - 1);
          launch = assign(state, ev.kernel);
        } else {
          carriedInputs = std::move(inputs);
        }
      }
      if (launch == kNoLaunch) {
        ++out.unmatched;
      } else {
        pl.call = state.call;
        pl.compile = state.compile;
        pl.launch = launch;
      }
      out.launches.push_back(std::move(pl));
    }
    return out;
  }

private:
  struct State {
    uint32_t compile = kNoLaunch, call = kNoLaunch;
    std::unordered_map<std::string, uint32_t> seen;
    int64_t last = -1;
  };

  /// The launch the next event of `kernel` is in the current call, or kNoLaunch.
  uint32_t assign(State &s, const std::string &kernel) const {
    if (s.compile == kNoLaunch) return kNoLaunch;
    auto it = positions_[s.compile].find(kernel);
    if (it == positions_[s.compile].end()) return kNoLaunch;
    uint32_t k = s.seen[kernel];
    if (k >= it->second.size() || static_cast<int64_t>(it->second[k]) <= s.last) return kNoLaunch;
    ++s.seen[kernel];
    s.last = it->second[k];
    return it->second[k];
  }

  /// How many events from `from` one call of `compile` explains in a row.
  size_t explains(uint32_t compile, uint32_t from) const {
    State s;
    s.compile = compile;
    size_t n = 0;
    for (uint32_t e = from; e < events_.size() && n < 256; ++e) {
      if (e > from && !events_[e].inputsBefore.empty()) break;
      if (!known_.count(events_[e].kernel)) continue; // Unmatched whatever the call: no evidence.
      if (assign(s, events_[e].kernel) == kNoLaunch) break;
      ++n;
    }
    return n;
  }

  uint32_t chooseCompile(uint32_t event, uint32_t previous) const {
    uint32_t best = kNoLaunch;
    size_t bestScore = 0;
    uint32_t bestFirst = kNoLaunch;
    for (uint32_t c = 0; c < positions_.size(); ++c) {
      auto it = positions_[c].find(events_[event].kernel);
      if (it == positions_[c].end()) continue;
      size_t score = explains(c, event);
      uint32_t first = it->second.front();
      // More events explained wins; then the compile of the previous call (the same model stepping); then
      // the one where this kernel comes earliest (a call starts at its beginning).
      bool better = score > bestScore || (score == bestScore && best != kNoLaunch && best != previous &&
                                          (c == previous || first < bestFirst));
      if (best == kNoLaunch || better) {
        best = c;
        bestScore = score;
        bestFirst = first;
      }
    }
    return best;
  }

  const std::vector<Event> &events_;
  std::vector<std::unordered_map<std::string, std::vector<uint32_t>>> positions_;
  std::set<std::string> known_; ///< Kernels some compile launches.
};

bool isBufferName(std::string_view arg) {
  if (!arg.starts_with("buf") || arg.size() == 3) return false;
  return std::all_of(arg.begin() + 3, arg.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

PrinterMapping mapRunLog(const RunLog &log, const std::vector<PrinterCompile> &compiles) {
  std::vector<Event> events = groupEvents(log);
  PrinterMapping out = Mapper(events, compiles).run();
  // Model inputs that came before an unmatched first event still belong to no call; nothing else to do.
  return out;
}

std::optional<NonFiniteOrigin> firstNonFinite(const RunLog &log, const PrinterMapping &mapping) {
  // Calls whose inputs were already checked, and the buffers each call has printed so far.
  std::set<uint32_t> checkedCalls;
  std::map<uint32_t, std::set<std::string>> seenBuffers;
  uint32_t previousCall = kNoLaunch;
  std::set<std::string> unmatchedSeen; // Buffers of launches outside any call, since the last call boundary.
  for (uint32_t e = 0; e < mapping.launches.size(); ++e) {
    const PrinterLaunch &pl = mapping.launches[e];
    if (pl.call != kNoLaunch && checkedCalls.insert(pl.call).second) {
      NonFiniteOrigin o;
      o.kind = NonFiniteOrigin::Kind::GraphInput;
      o.call = pl.call;
      bool nan = false;
      for (uint32_t r : mapping.calls[pl.call].inputs)
        if (log.records[r].stats.nonFinite()) {
          o.args.push_back(log.records[r].arg);
          nan = nan || log.records[r].stats.hasNan();
        }
      if (!o.args.empty()) {
        o.nan = nan;
        return o;
      }
    }
    if (pl.call != previousCall) unmatchedSeen.clear();
    previousCall = pl.call;
    std::set<std::string> &seen = pl.call != kNoLaunch ? seenBuffers[pl.call] : unmatchedSeen;
    NonFiniteOrigin o;
    o.launch = e;
    o.call = pl.call;
    bool nan = false;
    for (uint32_t r : pl.before) {
      const PrinterRecord &rec = log.records[r];
      bool fresh = isBufferName(rec.arg) && !seen.count(rec.arg);
      if (!fresh && rec.stats.nonFinite()) {
        o.args.push_back(rec.arg);
        nan = nan || rec.stats.hasNan();
      }
    }
    if (!o.args.empty()) {
      o.kind = NonFiniteOrigin::Kind::InInputs;
      o.nan = nan;
      return o;
    }
    for (uint32_t r : pl.after) {
      const PrinterRecord &rec = log.records[r];
      if (rec.stats.nonFinite()) {
        o.args.push_back(rec.arg);
        nan = nan || rec.stats.hasNan();
      }
    }
    if (!o.args.empty()) {
      o.kind = NonFiniteOrigin::Kind::Produced;
      o.nan = nan;
      return o;
    }
    for (uint32_t r : pl.before)
      seen.insert(log.records[r].arg);
    for (uint32_t r : pl.after)
      seen.insert(log.records[r].arg);
  }
  return std::nullopt;
}

uint32_t unfinishedLaunch(const RunLog &, const PrinterMapping &mapping) {
  if (mapping.launches.empty()) return kNoLaunch;
  const PrinterLaunch &last = mapping.launches.back();
  return !last.before.empty() && last.after.empty() ? static_cast<uint32_t>(mapping.launches.size() - 1)
                                                    : kNoLaunch;
}

} // namespace inductor::index
