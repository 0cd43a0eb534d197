// index/runtime/Profile.cpp: the Chrome-trace reader (a structural scan over a mapping or a gzip stream, each
// kept value then walked by JsonScan) and the join of device activities to launches. See Profile.h for the
// formats and the join rules.
#include "index/runtime/Profile.h"

#include "index/trace/CompileId.h"
#include "index/trace/JsonScan.h"
#include "index/trace/MappedFile.h"

#include <zlib.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>
#include <unordered_map>

namespace inductor::index {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

/// Whether `s` has a byte of the number's non-integer forms ('.', or an exponent when `dot` is false).
/// (A loop: string_view::find_first_of calls memchr per byte, most of the cost of reading a number.)
bool hasFractionOrExponent(std::string_view s, bool dot = true) {
  for (char c : s)
    if ((dot && c == '.') || c == 'e' || c == 'E') return true;
  return false;
}

/// Microseconds written as decimal text ("4487695540862.442") to integer nanoseconds, exactly for the three
/// decimals Kineto prints (a fourth rounds). nullopt for negative or unreadable values.
std::optional<uint64_t> microsToNanos(std::string_view s, double fallback) {
  if (s.empty() || s[0] == '-') return std::nullopt;
  if (hasFractionOrExponent(s, false)) {
    if (!(fallback >= 0) || fallback > 1.8e16) return std::nullopt;
    return static_cast<uint64_t>(std::llround(fallback * 1000.0));
  }
  uint64_t whole = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (whole > 1'800'000'000'000'000ull) return std::nullopt;
    whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  uint64_t frac = 0;
  int digits = 0;
  bool roundUp = false;
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (digits < 3) {
        frac = frac * 10 + static_cast<uint64_t>(s[i] - '0');
        ++digits;
      } else if (digits == 3) {
        roundUp = s[i] >= '5';
        ++digits;
      }
    }
  }
  if (i != s.size()) return std::nullopt;
  for (int d = std::min(digits, 3); d < 3; ++d)
    frac *= 10;
  return whole * 1000 + frac + (roundUp ? 1 : 0);
}

/// One kept event's fields as its JSON text gives them, then committed (TraceReader::commit).
struct EventFields {
  std::string_view ph, cat, name; ///< Decoded (views into the event text or the scratch strings).
  std::string pid, tid;
  std::optional<uint64_t> ts, dur;
  int64_t externalId = -1, correlation = -1;
  bool cut = false; ///< A field it needs (ph, cat, name, pid, tid) was over the token limit, or unreadable.
};

/// An integer literal (`-?[0-9]+`) that fits int64_t; nullopt for anything else (a float, null, overflow).
std::optional<int64_t> integerLiteral(std::string_view raw) {
  if (raw.empty() || hasFractionOrExponent(raw)) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
  if (ec != std::errc() || end != raw.data() + raw.size()) return std::nullopt;
  return v;
}

/// `ts`/`dur`: microseconds as written to integer nanoseconds (microsToNanos), an integer exactly.
std::optional<uint64_t> nanosOf(std::string_view raw) {
  if (raw.empty() || !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))) return std::nullopt;
  if (!hasFractionOrExponent(raw)) {
    std::optional<int64_t> v = integerLiteral(raw);
    if (!v || *v < 0 || *v >= INT64_MAX / 1000) return std::nullopt;
    return static_cast<uint64_t>(*v) * 1000;
  }
  // The exponent form alone needs the value as a double (strtod is most of the cost of a number).
  std::optional<double> real;
  if (hasFractionOrExponent(raw, false)) real = json_scan::number(raw);
  return microsToNanos(raw, real ? *real : -1.0);
}

/// The Chrome trace's JSON as it streams by, chunk after chunk (ByteSource), read without a parser: a scan
/// that follows only the structure (nesting and strings, found sixteen bytes at a time; the top object's
/// keys) frames each element of `traceEvents` and the `deviceProperties` and `distributedInfo` members, and
/// JsonScan's zero-copy walk reads each of them in place (checking its syntax); events of a category that is
/// not kept are framed only (mayKeep). About 13 times the speed of nlohmann's SAX parser, which read
/// profiles before (bench/README.md, "Profiles").
///
/// A value cut by the end of a chunk (gzip inflates 256 KiB at a time) is carried into the next chunk's
/// window whole, up to maxEvent_ (an event) or kMaxMemberBytes (a kept member); a longer one is skipped
/// byte by byte without being held (an event then counts as skipped). A string or number of a read value
/// over maxTokenBytes is not kept (counted in cutStrings; an event that needed it is skipped and counted).
/// Memory: the carried value and what is kept, whatever the input. Errors end the reading (truncated, with
/// the byte and the reason): a closing bracket that does not match, a kept value JSON does not accept,
/// nesting past maxDepth, maxBytes.
class TraceReader {
public:
  TraceReader(ChromeTrace &out, const ProfileReadOptions &options)
      : out_(out), options_(options), maxEvent_(std::max<size_t>(options.maxTokenBytes * 8, 1u << 16)),
        maxDepth_(std::min<size_t>(options.maxDepth, json_scan::kMaxDepth)) {}

  /// Reads `chunk`; false once the reading is over (the document ended, or it stopped: see out_.problem).
  bool feed(std::string_view chunk) {
    if (done_ || ended_) return false;
    bool last = false;
    if (consumed_ + chunk.size() > options_.maxBytes) {
      chunk = chunk.substr(0, static_cast<size_t>(options_.maxBytes - consumed_));
      last = true;
    }
    consumed_ += chunk.size();
    if (skipping_) chunk = skipBytes(chunk);
    if (!chunk.empty() && !done_) {
      std::string_view window = chunk;
      if (!carry_.empty()) {
        carry_.append(chunk);
        window = carry_;
      }
      windowBase_ = consumed_ - window.size();
      size_t from = scan(window);
      // What is left of the window (a value the chunk cut) starts the next one. Kept in carry_'s own buffer
      // (erased from its front, or assigned into it): a copy per chunk made carrying a long value quadratic,
      // and its freed buffers were most of the peak under ASan (ProfileTests, a 256 MiB string).
      std::string_view rest = window.substr(from);
      if (rest.size() > carryLimit()) {
        // Too long to hold: skipped as it streams by, from its start (`rest` may be carry_ itself).
        beginSkip();
        skipBytes(rest);
        carry_.clear();
      } else if (!carry_.empty() && window.data() == carry_.data()) {
        carry_.erase(0, from);
      } else {
        carry_.assign(rest);
      }
    }
    if (last) stop("stopped after " + std::to_string(options_.maxBytes) + " bytes (the reading limit)");
    return !done_ && !ended_;
  }

  /// The input ended (with `sourceProblem` when the source says why early): a value left open is said.
  void finish(const std::string &sourceProblem) {
    if (done_ || ended_) return;
    stop(sourceProblem.empty() ? "the text ends before the document does" : sourceProblem);
  }

  uint64_t consumed() const { return consumed_; }

private:
  /// Where the scan is: before the document, between the top object's members, in the events array.
  enum class Where : uint8_t { Start, Top, Events };
  /// Where the top object is between its members.
  enum class Top : uint8_t { Key, Colon, Value, Comma };

  static bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

  /// The first quote or bracket in [p, end), or end: sixteen bytes at a time where SSE2 is (every x86-64).
  static const char *nextStructural(const char *p, const char *end) {
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    const __m128i lower =
        _mm_set1_epi8(0x20); // '[' | 0x20 is '{', ']' | 0x20 is '}'; no other byte maps there.
    for (; end - p >= 16; p += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
      __m128i folded = _mm_or_si128(v, lower);
      __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                 _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
      if (int mask = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(mask));
    }
#endif
    for (; p < end; ++p)
      if (*p == '"' || *p == '{' || *p == '}' || *p == '[' || *p == ']') return p;
    return end;
  }

  /// The first quote or backslash in [p, end), or end.
  static const char *nextQuoteOrEscape(const char *p, const char *end) {
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (; end - p >= 16; p += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
      __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
      if (int mask = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(mask));
    }
#endif
    for (; p < end; ++p)
      if (*p == '"' || *p == '\\') return p;
    return end;
  }

  void stop(std::string why) {
    if (done_) return;
    done_ = true;
    out_.truncated = true;
    out_.problem = std::move(why);
  }
  void syntaxError(uint64_t at, std::string_view what) {
    stop("stopped at byte " + std::to_string(at) + ": " + std::string(what));
  }

  size_t carryLimit() const {
    return where_ == Where::Events ? maxEvent_ : kMaxMemberBytes;
  }

  /// Counts (into pendingBlanks_) the whitespace runs over maxWhitespaceRun in [p, q), a gap between the
  /// structural bytes of one value: long gaps are rare, so only they are looked at byte by byte.
  void countBlanks(const char *p, const char *q) {
    if (static_cast<size_t>(q - p) <= options_.maxWhitespaceRun) return;
    size_t run = 0;
    for (; p < q; ++p) {
      run = isBlank(*p) ? run + 1 : 0;
      if (run == options_.maxWhitespaceRun + 1) ++pendingBlanks_;
    }
  }

  /// A string of the value being scanned, from its opening quote to past its closing one: counted (into
  /// pendingCuts_) when longer than maxTokenBytes.
  void countString(const char *open, const char *pastClose) {
    if (static_cast<size_t>(pastClose - open) > options_.maxTokenBytes + 2) ++pendingCuts_;
  }

  /// Past the string whose opening quote is at p[-1]: its closing quote + 1, or nullptr when the window ends
  /// first.
  static const char *stringEnd(const char *p, const char *end) {
    for (;;) {
      p = nextQuoteOrEscape(p, end);
      if (p >= end) return nullptr;
      if (*p == '"') return p + 1;
      p += 2; // An escape: the byte after the backslash is never the string's end.
      if (p >= end) return nullptr;
    }
  }

  enum class ValueEnd : uint8_t { Done, Cut, Error };
  /// The end of the JSON value at p (an object, array or string; a scalar reaches the next structural
  /// byte) in [p, end): `q` past it. Cut when the window ends first; Error (at `q`) for a bracket that
  /// does not match or nesting past the limit.
  ValueEnd valueEnd(const char *p, const char *end, const char *&q) {
    pendingCuts_ = pendingBlanks_ = 0;
    if (*p == '"') {
      q = stringEnd(p + 1, end);
      if (!q) return ValueEnd::Cut;
      countString(p, q);
      return ValueEnd::Done;
    }
    if (*p != '{' && *p != '[') { // A scalar: up to the next comma, bracket or blank.
      q = p;
      while (q < end && *q != ',' && *q != '}' && *q != ']' && !isBlank(*q))
        ++q;
      return q < end ? ValueEnd::Done : ValueEnd::Cut;
    }
    brackets_.clear();
    q = p;
    while (q < end) {
      const char *r = nextStructural(q, end);
      countBlanks(q, r);
      if (r >= end) break;
      char c = *r;
      if (c == '"') {
        const char *open = r;
        r = stringEnd(r + 1, end);
        if (!r) break;
        countString(open, r);
        q = r;
        continue;
      }
      if (c == '{' || c == '[') {
        if (depth_ + brackets_.size() >= maxDepth_) {
          q = r;
          depthError_ = true;
          return ValueEnd::Error;
        }
        brackets_.push_back(c);
      } else {
        if (brackets_.empty() || (brackets_.back() == '{') != (c == '}')) {
          q = r;
          return ValueEnd::Error;
        }
        brackets_.pop_back();
        if (brackets_.empty()) {
          q = r + 1;
          return ValueEnd::Done;
        }
      }
      q = r + 1;
    }
    return ValueEnd::Cut;
  }

  /// The counts of a value known whole join the totals (a value the window cut is scanned again from its
  /// start, so its counts wait until then).
  void commitCounts() {
    out_.cutStrings += pendingCuts_;
    out_.cutWhitespace += pendingBlanks_;
    pendingCuts_ = pendingBlanks_ = 0;
  }

  /// valueEnd at p, then what its outcome asks: a whole value's counts committed, an error reported at `q`
  /// (`windowBegin`: the window's first byte, for its offset in the input).
  ValueEnd takeValue(const char *p, const char *end, const char *&q, const char *windowBegin) {
    ValueEnd e = valueEnd(p, end, q);
    if (e == ValueEnd::Done) commitCounts();
    if (e == ValueEnd::Error) error(windowBase_ + static_cast<uint64_t>(q - windowBegin));
    return e;
  }

  /// Scans `window` from its start in the state where_ says; returns the offset where a value the window cut
  /// begins (the window's size when none is).
  size_t scan(std::string_view window) {
    const char *begin = window.data(), *p = begin, *end = begin + window.size();
    auto at = [&](const char *x) { return windowBase_ + static_cast<uint64_t>(x - begin); };
    while (p < end && !done_ && !ended_) {
      char c = *p;
      if (isBlank(c)) { // Between values: a run may go on in the next chunk.
        const char *q = p;
        while (q < end && isBlank(*q))
          ++q;
        size_t before = blankRun_;
        blankRun_ += static_cast<size_t>(q - p);
        if (before <= options_.maxWhitespaceRun && blankRun_ > options_.maxWhitespaceRun)
          ++out_.cutWhitespace;
        p = q;
        continue;
      }
      blankRun_ = 0;
      if (where_ == Where::Start) {
        if (c == '[') { // The JSON Array Format: the document is the events.
          where_ = Where::Events;
          depth_ = 1;
          out_.sawTraceEvents = true;
        } else if (c == '{') {
          where_ = Where::Top;
          top_ = Top::Key;
          depth_ = 1;
        } else {
          syntaxError(at(p), "the text is no JSON object or array");
          break;
        }
        ++p;
        continue;
      }
      if (where_ == Where::Events) {
        if (c == ',') {
          ++p;
          continue;
        }
        if (c == ']') { // The events array ends.
          ++p;
          --depth_;
          eventsDone_ = true;
          if (depth_ == 0) {
            ended_ = true;
          } else {
            where_ = Where::Top;
            top_ = Top::Comma;
          }
          continue;
        }
        if (c == '}') {
          syntaxError(at(p), "a bracket that does not match");
          break;
        }
        const char *q = nullptr;
        ValueEnd e = takeValue(p, end, q, begin);
        if (e == ValueEnd::Cut) return static_cast<size_t>(p - begin);
        if (e == ValueEnd::Error) break;
        if (c == '{' && !event(std::string_view(p, static_cast<size_t>(q - p)))) {
          syntaxError(at(p), "an event that is no JSON");
          break;
        }
        p = q;
        continue;
      }
      // The top object.
      switch (top_) {
      case Top::Key: {
        if (c == '}') {
          ended_ = true;
          ++p;
          continue;
        }
        if (c != '"') {
          syntaxError(at(p), "a key expected");
          break;
        }
        const char *q = stringEnd(p + 1, end);
        if (!q) return static_cast<size_t>(p - begin);
        countString(p, q);
        commitCounts();
        key_.assign(p + 1, std::min<size_t>(static_cast<size_t>(q - 1 - (p + 1)), kMaxKeyBytes));
        top_ = Top::Colon;
        p = q;
        continue;
      }
      case Top::Colon:
        if (c != ':') {
          syntaxError(at(p), "':' expected");
          break;
        }
        top_ = Top::Value;
        ++p;
        continue;
      case Top::Comma:
        if (c == '}') {
          ended_ = true;
          ++p;
          continue;
        }
        if (c != ',') {
          syntaxError(at(p), "',' expected");
          break;
        }
        top_ = Top::Key;
        ++p;
        continue;
      case Top::Value: {
        if (c == '[' && key_ == "traceEvents" && !eventsDone_) {
          if (depth_ + 1 > maxDepth_) {
            error(at(p), true);
            break;
          }
          where_ = Where::Events;
          depth_ = 2;
          out_.sawTraceEvents = true;
          top_ = Top::Comma;
          ++p;
          continue;
        }
        const char *q = nullptr;
        ValueEnd e = takeValue(p, end, q, begin);
        if (e == ValueEnd::Cut) return static_cast<size_t>(p - begin);
        if (e == ValueEnd::Error) break;
        std::string_view value(p, static_cast<size_t>(q - p));
        bool ok = true;
        if (key_ == "deviceProperties" && c == '[')
          ok = devices(value);
        else if (key_ == "distributedInfo" && c == '{')
          ok = json_scan::walkObject(value, [&](std::string_view k, std::string_view v) {
            if (k == "rank")
              if (std::optional<int64_t> r = integerLiteral(v)) out_.rank = static_cast<int>(*r);
          });
        if (!ok) {
          syntaxError(at(p), "a value that is no JSON");
          break;
        }
        top_ = Top::Comma;
        p = q;
        continue;
      }
      }
    }
    return window.size();
  }

  void error(uint64_t at, bool depth = false) {
    if (depth || depthError_)
      stop("stopped at nesting deeper than " + std::to_string(maxDepth_) + " (the reading limit)");
    else
      syntaxError(at, "a bracket that does not match");
  }

  // Skipping a value too long to carry: its brackets and strings followed byte by byte, nothing held.

  void beginSkip() {
    skipping_ = true;
    skipDepth_ = 0;
    skipString_ = skipEscaped_ = skipStarted_ = false;
    skipStringBytes_ = 0;
    skipEvent_ = where_ == Where::Events;
    skipKey_ = where_ == Where::Top && top_ == Top::Key;
  }

  /// Consumes the skipped value's bytes from `in`; returns what follows it (empty when it goes on).
  std::string_view skipBytes(std::string_view in) {
    size_t i = 0;
    for (; i < in.size(); ++i) {
      char c = in[i];
      if (skipString_) {
        if (skipEscaped_) {
          skipEscaped_ = false;
        } else if (c == '\\') {
          skipEscaped_ = true;
        } else if (c == '"') {
          skipString_ = false;
          if (skipStringBytes_ > options_.maxTokenBytes) ++out_.cutStrings;
          if (skipDepth_ == 0) break;
          continue;
        }
        ++skipStringBytes_;
        continue;
      }
      if (c == '"') {
        skipString_ = true;
        skipStringBytes_ = 0;
        skipStarted_ = true;
      } else if (c == '{' || c == '[') {
        ++skipDepth_;
        skipStarted_ = true;
      } else if ((c == '}' || c == ']') && skipDepth_ > 0) {
        if (--skipDepth_ == 0) break;
      } else if (skipStarted_ && skipDepth_ == 0 && (c == ',' || c == '}' || c == ']' || isBlank(c))) {
        --i; // A scalar ended: this byte is the next value's business.
        break;
      } else if (!isBlank(c)) {
        skipStarted_ = true;
      }
    }
    if (i >= in.size()) return {};
    skipping_ = false;
    if (skipEvent_) {
      ++out_.skippedEvents; // An event longer than any profiler writes.
    } else if (skipKey_) {
      key_.clear(); // A key no member the reader keeps has.
      top_ = Top::Colon;
    } else if (where_ == Where::Top) {
      top_ = Top::Comma;
    }
    return in.substr(i + 1);
  }

  /// Whether an event's text names, as its `cat`, a category the reader keeps (or names none plainly): most
  /// events of a profile recorded with stacks are `python_function`, and walking them only to drop them was
  /// half of the reading. A `"cat"` inside a string value cannot fool it (there its quotes are escaped), nor
  /// one in a nested object (a bracket before it: the walk decides).
  static bool mayKeep(std::string_view text) {
    size_t at = text.find("\"cat\"");
    if (at == std::string_view::npos) return true;
    for (char c : text.substr(1, at))
      if (c == '{' || c == '[') return true;
    std::string_view rest = text.substr(at + 5);
    size_t open = 0;
    bool colon = false;
    for (; open < rest.size() && (isBlank(rest[open]) || rest[open] == ':'); ++open)
      colon = colon || rest[open] == ':';
    if (open == rest.size() || rest[open] != '"' || !colon) return true;
    rest = rest.substr(open + 1);
    size_t close = rest.find('"');
    if (close == std::string_view::npos) return true;
    std::string_view cat = rest.substr(0, close);
    if (cat.find('\\') != std::string_view::npos) return true; // Escaped: the walk decides.
    for (std::string_view dropped : {"python_function", "ac2g", "fwdbwd", "overhead", "gpu_user_annotation",
                                     "cpu_instant_event", "python_function_call", "flow"})
      if (cat == dropped) return false;
    return true;
  }

  /// One element of traceEvents (its text, in place): kept when it is a `ph: X` event of a kept category. A
  /// string field over maxTokenBytes (counted by the scan) or a number field over it (counted here) is not
  /// read: an event that needs it is skipped.
  bool event(std::string_view text) {
    if (!mayKeep(text)) return true;
    EventFields f;
    const size_t limit = options_.maxTokenBytes;
    bool ok = json_scan::walkObject(text, [&](std::string_view k, std::string_view v) {
      auto str = [&](std::string &scratch) -> std::string_view {
        if (v.size() > limit + 2) {
          f.cut = true;
          return {};
        }
        std::optional<std::string_view> s = json_scan::string(v, scratch);
        if (!s)
          f.cut = true; // An escape JSON does not allow, or no string: the event is skipped and counted.
        return s ? *s : std::string_view();
      };
      bool number = !v.empty() && v[0] != '"' && v[0] != '{' && v[0] != '[';
      if (number && v.size() > limit) { // Strings were counted by the scan.
        ++out_.cutStrings;
        if (k == "pid" || k == "tid") f.cut = true;
        return;
      }
      if (k == "ph") {
        f.ph = str(ph_);
      } else if (k == "cat") {
        f.cat = str(cat_);
      } else if (k == "name") {
        f.name = str(name_);
      } else if (k == "pid" || k == "tid") {
        std::string &to = k == "pid" ? f.pid : f.tid;
        if (!v.empty() && v[0] == '"') {
          to = std::string(str(pid_));
        } else if (!number || v == "null") {
          // An object, an array, null: none.
        } else if (std::optional<int64_t> n = integerLiteral(v)) {
          to = std::to_string(*n);
        } else if (std::optional<double> d = json_scan::number(v)) {
          to = std::to_string(static_cast<int64_t>(*d > -9.0e18 && *d < 9.0e18 ? *d : -1));
        }
      } else if (k == "ts" || k == "dur") {
        (k == "ts" ? f.ts : f.dur) = nanosOf(v);
      } else if (k == "args" && !v.empty() && v[0] == '{') {
        json_scan::walkObject(v, [&](std::string_view a, std::string_view av) {
          if (a == "External id" || a == "external id") {
            if (std::optional<int64_t> n = integerLiteral(av)) f.externalId = *n;
          } else if (a == "correlation") {
            if (std::optional<int64_t> n = integerLiteral(av)) f.correlation = *n;
          }
        });
      }
    });
    if (!ok) return false;
    commit(f);
    return true;
  }

  void commit(const EventFields &f) {
    if (f.ph != "X") return;
    catLower_.assign(f.cat);
    for (char &ch : catLower_)
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    const std::string &cat = catLower_;
    std::optional<ProfileCategory> category;
    if (cat == "cpu_op" || cat == "operator")
      category = ProfileCategory::CpuOp;
    else if (cat == "user_annotation")
      category = ProfileCategory::UserAnnotation;
    else if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime")
      category = ProfileCategory::Runtime;
    else if (cat == "kernel")
      category = ProfileCategory::Kernel;
    else if (cat == "gpu_memcpy")
      category = ProfileCategory::Memcpy;
    else if (cat == "gpu_memset")
      category = ProfileCategory::Memset;
    if (!category) return;
    if (!f.ts || f.cut) {
      ++out_.skippedEvents;
      return;
    }
    ProfileEvent e;
    e.ts = *f.ts;
    e.dur = f.dur.value_or(0);
    e.externalId = f.externalId;
    e.correlation = f.correlation;
    e.category = *category;
    e.name = intern(names_, out_.names, f.name);
    thread_.assign(f.pid).append(":").append(f.tid);
    e.thread = intern(threads_, out_.threads, thread_);
    if (internedBytes_ > options_.maxNameBytes)
      stop("stopped after " + std::to_string(options_.maxNameBytes) +
           " bytes of distinct event names (the reading limit)");
    bool device = *category == ProfileCategory::Kernel || *category == ProfileCategory::Memcpy ||
                  *category == ProfileCategory::Memset;
    (device ? out_.device : out_.cpu).push_back(e);
    if (out_.device.size() + out_.cpu.size() >= options_.maxEvents)
      stop("stopped after " + std::to_string(options_.maxEvents) + " events (the reading limit)");
  }

  /// `deviceProperties`: an array of objects (at most 64 kept).
  bool devices(std::string_view text) {
    return json_scan::walkArray(text, [&](std::string_view element) {
      if (out_.devices.size() >= 64 || element.empty() || element[0] != '{') return;
      DeviceProperties d;
      json_scan::walkObject(element, [&](std::string_view k, std::string_view v) {
        if (k == "name") {
          std::string scratch;
          if (std::optional<std::string_view> s = json_scan::string(v, scratch);
              s && v.size() <= options_.maxTokenBytes + 2)
            d.name = std::string(s->substr(0, 256));
          return;
        }
        std::optional<int64_t> n = integerLiteral(v);
        if (!n || *n < 0) return; // Integers only.
        int small = static_cast<int>(std::min<int64_t>(*n, INT32_MAX));
        if (k == "id")
          d.id = small;
        else if (k == "computeMajor")
          d.computeMajor = small;
        else if (k == "computeMinor")
          d.computeMinor = small;
        else if (k == "numSms")
          d.numSms = small;
        else if (k == "totalGlobalMem")
          d.totalGlobalMem = static_cast<uint64_t>(*n);
      });
      out_.devices.push_back(std::move(d));
    });
  }

  /// Lookups by string_view, without a copy (C++20 heterogeneous lookup).
  struct ViewHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Interned = std::unordered_map<std::string, uint32_t, ViewHash, std::equal_to<>>;

  uint32_t intern(Interned &map, std::vector<std::string> &store, std::string_view s) {
    auto it = map.find(s);
    if (it != map.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(store.size());
    map.emplace(std::string(s), id);
    store.emplace_back(s);
    internedBytes_ += 2 * s.size(); // The map's key and the store's copy.
    return id;
  }

  static constexpr size_t kMaxKeyBytes = 64;          ///< Top-level keys are compared, never kept whole.
  static constexpr size_t kMaxMemberBytes = 1u << 20; ///< deviceProperties, distributedInfo.

  ChromeTrace &out_;
  const ProfileReadOptions &options_;
  const size_t maxEvent_; ///< The longest event carried: eight tokens of the limit, at least 64 KiB.
  /// ProfileReadOptions::maxDepth, at most what the walk of an event accepts (its two outer levels spare).
  const size_t maxDepth_;
  uint64_t consumed_ = 0, windowBase_ = 0; ///< Bytes fed; the offset of the window being scanned.
  Where where_ = Where::Start;
  Top top_ = Top::Key;
  size_t depth_ = 0; ///< Brackets open around the scan: the top object, the events array.
  bool done_ = false, ended_ = false, eventsDone_ = false, depthError_ = false;
  std::string key_;      ///< The top object's key being read (at most kMaxKeyBytes).
  std::string carry_;    ///< The value the last chunk cut, and the chunk after it.
  std::string brackets_; ///< The brackets open inside the value being scanned.
  size_t blankRun_ = 0;  ///< The whitespace run between values so far (it may span chunks).
  size_t pendingCuts_ = 0, pendingBlanks_ = 0; ///< Counted in a value until it is known whole.
  // Skipping a value too long to carry.
  bool skipping_ = false, skipString_ = false, skipEscaped_ = false, skipStarted_ = false;
  bool skipEvent_ = false, skipKey_ = false;
  size_t skipDepth_ = 0, skipStringBytes_ = 0;
  std::string ph_, cat_, name_, pid_, thread_, catLower_; ///< Scratch, reused by every event.
  uint64_t internedBytes_ = 0;
  Interned names_, threads_;
};

/// Where the bytes of a profile come from, chunk by chunk: a mapping, or a gzip stream inflated as it goes.
class ByteSource {
public:
  virtual ~ByteSource() = default;
  /// The next bytes; empty at the end (then problem() says why, when it ended early).
  virtual std::string_view next() = 0;
  virtual const std::string &problem() const = 0;
};

/// Bytes held in memory (a mapping): handed out 1 MB at a time so that sequential reading can drop pages.
class MemorySource : public ByteSource {
public:
  explicit MemorySource(std::string_view in) : in_(in) {}
  std::string_view next() override {
    std::string_view chunk = in_.substr(0, 1 << 20);
    in_.remove_prefix(chunk.size());
    return chunk;
  }
  const std::string &problem() const override { return problem_; }

private:
  std::string_view in_;
  std::string problem_;
};

/// A gzip file held in memory, inflated 256 KB at a time; concatenated gzip members are read one after the
/// other. Ends at corrupt data, saying why.
class GzipSource : public ByteSource {
public:
  explicit GzipSource(std::string_view in) : in_(in), buffer_(1 << 18) {
    std::memset(&z_, 0, sizeof z_);
    ok_ = inflateInit2(&z_, 15 + 16) == Z_OK;
    if (!ok_) problem_ = "cannot initialise zlib";
  }
  ~GzipSource() override {
    if (ok_) inflateEnd(&z_);
  }
  GzipSource(const GzipSource &) = delete;
  GzipSource &operator=(const GzipSource &) = delete;
  const std::string &problem() const override { return problem_; }

  std::string_view next() override {
    if (!ok_ || done_) return {};
    z_.next_out = reinterpret_cast<Bytef *>(buffer_.data());
    z_.avail_out = static_cast<uInt>(buffer_.size());
    while (z_.avail_out == buffer_.size() && !done_) {
      if (z_.avail_in == 0) {
        if (offset_ >= in_.size()) {
          if (!streamEnded_) problem_ = "the gzip stream ends early";
          done_ = true;
          break;
        }
        size_t chunk = std::min<size_t>(in_.size() - offset_, 1u << 30);
        z_.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in_.data() + offset_));
        z_.avail_in = static_cast<uInt>(chunk);
        offset_ += chunk;
      }
      streamEnded_ = false;
      int r = inflate(&z_, Z_NO_FLUSH);
      if (r == Z_STREAM_END) {
        streamEnded_ = true;
        // Another gzip member may follow (concatenated files); trailing zero padding ends the stream.
        bool more = z_.avail_in > 0 || offset_ < in_.size();
        if (more && inflateReset(&z_) != Z_OK) done_ = true;
        if (!more) done_ = true;
      } else if (r != Z_OK) {
        problem_ = std::string("corrupt gzip data: ") + (z_.msg ? z_.msg : "inflate failed");
        done_ = true;
      }
    }
    return std::string_view(buffer_.data(), buffer_.size() - z_.avail_out);
  }

private:
  std::string_view in_;
  size_t offset_ = 0;
  std::vector<char> buffer_;
  z_stream z_;
  bool ok_ = false, done_ = false, streamEnded_ = false;
  std::string problem_;
};

bool isGzip(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

} // namespace

namespace {

/// Reads the JSON text of `source` into a ChromeTrace (TraceReader).
ChromeTrace parseFrom(ByteSource &source, std::string path, const ProfileReadOptions &options) {
  ChromeTrace out;
  out.path = std::move(path);
  TraceReader reader(out, options);
  bool more = true;
  for (std::string_view chunk = source.next(); more && !chunk.empty(); chunk = more ? source.next() : chunk)
    more = reader.feed(chunk);
  if (more) reader.finish(source.problem());
  out.bytes = reader.consumed();
  return out;
}

} // namespace

ChromeTrace parseChromeTrace(std::string_view text, std::string path, const ProfileReadOptions &options) {
  MemorySource source(text);
  return parseFrom(source, std::move(path), options);
}

Expected<ChromeTrace> readChromeTrace(const std::string &path, const ProfileReadOptions &options) {
  auto file = MappedFile::open(path);
  if (!file) return file.error();
  file->adviseSequential();
  std::string_view text = file->text();
  if (!isGzip(text)) {
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || (text[first] != '{' && text[first] != '['))
      return Error{path + ": not a Chrome trace (neither JSON nor gzip)"};
    return parseChromeTrace(text, path, options);
  }
  GzipSource source(text);
  return parseFrom(source, path, options);
}

bool looksLikeChromeTrace(std::string_view head) {
  if (isGzip(head)) return true;
  size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '{') return false;
  std::string_view window = head.substr(first, 8192);
  return window.find("\"traceEvents\"") != std::string_view::npos ||
         window.find("\"schemaVersion\"") != std::string_view::npos;
}

std::vector<std::string> profilerOpNames(std::string_view kernel) {
  // Overload suffixes are not part of the profiler's operator names: `aten::mm`, never `aten::mm.out`.
  auto opOf = [](std::string_view ns, std::string_view rest) {
    size_t dot = rest.find('.');
    return std::string(ns) + "::" + std::string(rest.substr(0, dot));
  };
  if (kernel.starts_with("extern_kernels.")) return {"aten::" + std::string(kernel.substr(15))};
  std::string_view k = kernel;
  if (k.starts_with("torch.ops.")) k.remove_prefix(10);
  if (k.starts_with("aten.") || k.starts_with("prims.")) {
    size_t dot = k.find('.');
    return {opOf(k.substr(0, dot), k.substr(dot + 1))};
  }
  if (k.size() != kernel.size()) { // torch.ops.<namespace>.<op>[.<overload>]
    size_t dot = k.find('.');
    if (dot != std::string_view::npos) return {opOf(k.substr(0, dot), k.substr(dot + 1))};
  }
  for (std::string_view device :
       {"aoti_torch_cuda_", "aoti_torch_cpu_", "aoti_torch_xpu_", "aoti_torch_mps_"})
    if (kernel.starts_with(device)) {
      std::string op(kernel.substr(device.size()));
      std::vector<std::string> out{"aten::" + op};
      if (op.ends_with("_out")) out.insert(out.begin(), "aten::" + op.substr(0, op.size() - 4));
      return out;
    }
  return {std::string(kernel)};
}

// ---------------------------------------------------------------------------------------------------------
// Join.

namespace {

constexpr std::string_view kCallPrefix = "## Call CompiledFxGraph ";
constexpr std::string_view kRegionPrefix = "Torch-Compiled Region: ";
constexpr std::string_view kStepPrefix = "ProfilerStep#";

bool isGraphLaunch(std::string_view name) {
  return name == "cudaGraphLaunch" || name == "cuGraphLaunch" || name == "hipGraphLaunch" ||
         name.starts_with("cudaGraphLaunch_") || name.starts_with("cuGraphLaunch_");
}

struct StepRange {
  uint64_t ts = 0, end = 0;
  int64_t number = 0;
  std::string name;
};

/// Device time gathered under one child of a compiled call.
struct UnitTime {
  uint64_t ns = 0;
  uint32_t activities = 0;
  std::vector<uint64_t> perStep;
  uint32_t firstKernelName = kNone; ///< Name of its first device activity (direct launches).
  bool graphReplay = false;
  std::map<uint32_t, uint64_t> replayKernels; ///< Graph replays: device time by kernel name.
};

class Joiner {
public:
  Joiner(const ChromeTrace &t, const std::vector<JoinCompile> &compiles) : t_(t), compiles_(compiles) {}

  ProfileJoin run() {
    out_.path = t_.path;
    out_.compiles.resize(compiles_.size());
    for (size_t c = 0; c < compiles_.size(); ++c)
      out_.compiles[c].launches.resize(compiles_[c].launchOps.size());
    nest();
    collectSteps();
    for (auto &ct : out_.compiles) {
      ct.perStep.assign(out_.steps.size(), 0);
      for (LaunchTime &l : ct.launches)
        l.perStep.assign(out_.steps.size(), 0);
    }
    out_.stepNs.assign(out_.steps.size(), 0);
    attributeActivities();
    joinCalls();
    finish();
    return std::move(out_);
  }

private:
  const ProfileEvent &ev(uint32_t i) const { return t_.cpu[i]; }
  std::string_view nameOf(uint32_t i) const { return t_.names[t_.cpu[i].name]; }

  /// Parent of every CPU event on its thread: the innermost range open when it starts. Runtime calls are
  /// leaves. Also records the children of each compiled call, in time order.
  void nest() {
    const auto &cpu = t_.cpu;
    parent_.assign(cpu.size(), kNone);
    std::vector<std::vector<uint32_t>> byThread(t_.threads.size());
    for (uint32_t i = 0; i < cpu.size(); ++i)
      byThread[cpu[i].thread].push_back(i);
    for (auto &list : byThread) {
      std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
        const ProfileEvent &x = cpu[a], &y = cpu[b];
        if (x.ts != y.ts) return x.ts < y.ts;
        if (x.dur != y.dur) return x.dur > y.dur;
        bool rx = x.category == ProfileCategory::Runtime, ry = y.category == ProfileCategory::Runtime;
        if (rx != ry) return ry; // A range before a runtime call starting with it.
        return a < b;
      });
      std::vector<uint32_t> stack;
      for (uint32_t i : list) {
        // A range that ended by the time this event starts (a zero-length one included) contains nothing
        // more.
        while (!stack.empty() && cpu[stack.back()].end() <= cpu[i].ts)
          stack.pop_back();
        if (!stack.empty()) parent_[i] = stack.back();
        if (cpu[i].category != ProfileCategory::Runtime) stack.push_back(i);
      }
    }
    for (uint32_t i = 0; i < cpu.size(); ++i) {
      if (cpu[i].category == ProfileCategory::Runtime) {
        if (cpu[i].correlation >= 0) byCorrelation_.emplace(cpu[i].correlation, i);
        continue;
      }
      if (cpu[i].externalId >= 0) byExternalId_.emplace(cpu[i].externalId, i);
      if ((nameOf(i)).starts_with(kCallPrefix)) {
        callIndex_.emplace(i, static_cast<uint32_t>(calls_.size()));
        calls_.push_back(i);
      }
    }
    callChildren_.resize(calls_.size());
    for (auto &list : byThread)
      for (uint32_t i : list)
        if (uint32_t p = parent_[i]; p != kNone)
          if (auto it = callIndex_.find(p); it != callIndex_.end()) callChildren_[it->second].push_back(i);
    callUnits_.resize(calls_.size());
    out_.calls = static_cast<uint32_t>(calls_.size());
  }

  void collectSteps() {
    std::vector<StepRange> steps;
    for (uint32_t i = 0; i < t_.cpu.size(); ++i) {
      std::string_view n = nameOf(i);
      if (!n.starts_with(kStepPrefix) || t_.cpu[i].category == ProfileCategory::Runtime) continue;
      StepRange s;
      s.ts = t_.cpu[i].ts;
      s.end = t_.cpu[i].end();
      s.name = std::string(n);
      std::string_view num = n.substr(kStepPrefix.size());
      for (char c : num)
        if (c >= '0' && c <= '9') s.number = s.number * 10 + (c - '0');
      steps.push_back(std::move(s));
    }
    std::sort(steps.begin(), steps.end(), [](const StepRange &a, const StepRange &b) { return a.ts < b.ts; });
    steps_ = std::move(steps);
    for (const StepRange &s : steps_)
      out_.steps.push_back(s.name);
  }

  /// The step whose range holds time `ts`, or kNone. Steps do not overlap.
  uint32_t stepAt(uint64_t ts) const {
    auto it = std::upper_bound(steps_.begin(), steps_.end(), ts,
                               [](uint64_t v, const StepRange &s) { return v < s.ts; });
    if (it == steps_.begin()) return kNone;
    --it;
    return ts < it->end ? static_cast<uint32_t>(it - steps_.begin()) : kNone;
  }

  /// The CPU event that launched a device activity: its runtime call by correlation, else the op named by
  /// its External id.
  uint32_t launcherOf(const ProfileEvent &a) const {
    if (a.correlation >= 0)
      if (auto it = byCorrelation_.find(a.correlation); it != byCorrelation_.end()) return it->second;
    if (a.externalId >= 0)
      if (auto it = byExternalId_.find(a.externalId); it != byExternalId_.end()) return it->second;
    return kNone;
  }

  void attributeActivities() {
    for (const ProfileEvent &a : t_.device) {
      uint32_t launcher = launcherOf(a);
      uint64_t when = launcher != kNone ? ev(launcher).ts : a.ts;
      uint32_t step = kNone;
      if (!steps_.empty()) {
        step = stepAt(when);
        if (step == kNone) {
          out_.outsideStepsNs += a.dur;
          continue;
        }
        out_.stepNs[step] += a.dur;
      }
      out_.totalNs += a.dur;
      ++out_.kernelActivities;
      if (launcher == kNone) {
        ++out_.unlinkedActivities;
        out_.eagerNs += a.dur;
        eagerOps_["(no CPU launch recorded)"] += a.dur;
        continue;
      }
      // The child of the compiled call on the path from the launcher up.
      uint32_t unit = launcher, up = parent_[launcher];
      while (up != kNone && !callIndex_.count(up)) {
        unit = up;
        up = parent_[up];
      }
      if (up == kNone) {
        out_.eagerNs += a.dur;
        eagerOps_[std::string(eagerOpName(launcher))] += a.dur;
        continue;
      }
      UnitTime &u = callUnits_[callIndex_.at(up)][unit];
      u.ns += a.dur;
      ++u.activities;
      if (step != kNone) {
        if (u.perStep.empty()) u.perStep.assign(steps_.size(), 0);
        u.perStep[step] += a.dur;
      }
      if (u.firstKernelName == kNone) u.firstKernelName = a.name;
      if (ev(launcher).category == ProfileCategory::Runtime && isGraphLaunch(nameOf(launcher))) {
        u.graphReplay = true;
        u.replayKernels[a.name] += a.dur;
      }
    }
  }

  /// The eager op to report an activity under: the outermost `aten::` op above its launcher, else the
  /// innermost op.
  std::string_view eagerOpName(uint32_t launcher) const {
    std::string_view innermost, outermostAten;
    for (uint32_t i = launcher; i != kNone; i = parent_[i]) {
      if (ev(i).category == ProfileCategory::Runtime) continue;
      std::string_view n = nameOf(i);
      if (innermost.empty() && !n.starts_with(kStepPrefix)) innermost = n;
      if (n.starts_with("aten::")) outermostAten = n;
    }
    if (!outermostAten.empty()) return outermostAten;
    return innermost.empty() ? nameOf(launcher) : innermost;
  }

  struct CallContext {
    std::string key;
    std::optional<CompileId> region;
    bool backward = false;
  };

  CallContext contextOf(uint32_t call) const {
    CallContext c;
    std::string_view n = nameOf(call).substr(kCallPrefix.size());
    if (n.ends_with(" ##")) n.remove_suffix(3);
    c.key = std::string(n);
    for (uint32_t i = parent_[call]; i != kNone; i = parent_[i]) {
      std::string_view p = nameOf(i);
      if (!c.region && p.starts_with(kRegionPrefix))
        c.region = CompileId::parse(p.substr(kRegionPrefix.size()));
      if (p == "CompiledFunctionBackward" || p.ends_with(": CompiledFunctionBackward")) c.backward = true;
    }
    return c;
  }

  bool graphMatches(const JoinCompile &jc, const CallContext &c) const {
    if (jc.graph == JoinGraph::Unknown) return true;
    if (c.backward) return jc.graph == JoinGraph::Backward;
    if (c.region) return jc.graph != JoinGraph::Backward;
    return true;
  }

  bool regionMatches(const JoinCompile &jc, const CallContext &c) const {
    return c.region && c.region->frameId == jc.frameId && c.region->frameCompileId == jc.frameCompileId;
  }

  /// Candidates by key, narrowed by the enclosing ranges and the rank; {} when the key is unknown.
  std::vector<uint32_t> byKey(const CallContext &c) const {
    std::vector<uint32_t> out;
    if (c.key.empty() || c.key == "None") return out;
    for (uint32_t i = 0; i < compiles_.size(); ++i)
      if (compiles_[i].cacheKey == c.key) out.push_back(i);
    auto narrow = [&](auto pred) {
      std::vector<uint32_t> kept;
      for (uint32_t i : out)
        if (pred(compiles_[i])) kept.push_back(i);
      if (!kept.empty()) out = std::move(kept);
    };
    if (out.size() > 1 && c.region) narrow([&](const JoinCompile &jc) { return regionMatches(jc, c); });
    if (out.size() > 1) narrow([&](const JoinCompile &jc) { return graphMatches(jc, c); });
    if (out.size() > 1 && t_.rank) narrow([&](const JoinCompile &jc) { return jc.rank == t_.rank; });
    return out;
  }

  /// Without a known key: the one compile of the enclosing compile id and graph kind, if exactly one.
  std::optional<uint32_t> byCompileId(const CallContext &c) const {
    std::optional<uint32_t> found;
    for (uint32_t i = 0; i < compiles_.size(); ++i) {
      const JoinCompile &jc = compiles_[i];
      if (!graphMatches(jc, c)) continue;
      if (c.region ? !regionMatches(jc, c) : !c.backward) continue;
      if (t_.rank && jc.rank && jc.rank != t_.rank) continue;
      if (found) return std::nullopt;
      found = i;
    }
    return found;
  }

  /// Without a key or a compile id (output code found only in files, or a cache bypass): the one compile
  /// whose every launch is found in the call, in order, with no device time under any other child of the
  /// call. Two such compiles (identical launch sequences) leave the call unjoined. Memoised per key, each
  /// call verified.
  std::optional<uint32_t> bySequence(uint32_t k, const CallContext &c) {
    auto fits = [&](uint32_t i) {
      const JoinCompile &jc = compiles_[i];
      if (jc.launchOps.empty() || !graphMatches(jc, c)) return false;
      if (t_.rank && jc.rank && jc.rank != t_.rank) return false;
      std::vector<uint32_t> m = align(k, jc);
      if (std::any_of(m.begin(), m.end(), [](uint32_t v) { return v == kNone; })) return false;
      std::unordered_map<uint32_t, bool> matched;
      for (uint32_t v : m)
        matched[callChildren_[k][v]] = true;
      return std::all_of(callUnits_[k].begin(), callUnits_[k].end(),
                         [&](const auto &u) { return u.second.ns == 0 || matched.count(u.first); });
    };
    if (auto it = sequenceMemo_.find(c.key); it != sequenceMemo_.end())
      return it->second && fits(*it->second) ? it->second : std::nullopt;
    std::optional<uint32_t> found;
    bool ambiguous = false;
    for (uint32_t i = 0; i < compiles_.size() && !ambiguous; ++i)
      if (fits(i)) {
        ambiguous = found.has_value();
        found = i;
      }
    if (ambiguous) found.reset();
    sequenceMemo_[c.key] = found;
    return found;
  }

  /// Aligns the call's children with a compile's launches (greedy, in order): child index per launch, kNone
  /// where a launch was not found.
  std::vector<uint32_t> align(uint32_t callOrdinal, const JoinCompile &jc) const {
    const auto &children = callChildren_[callOrdinal];
    const auto &units = callUnits_[callOrdinal];
    std::vector<uint32_t> match(jc.launchOps.size(), kNone);
    size_t next = 0;
    for (size_t l = 0; l < jc.launchOps.size(); ++l) {
      for (size_t j = next; j < children.size(); ++j) {
        uint32_t child = children[j];
        std::string_view name = nameOf(child);
        if (ev(child).category == ProfileCategory::Runtime) {
          // A launch API call made by the call itself (C++ wrapper): named by the kernel it launched.
          auto it = units.find(child);
          if (it == units.end() || it->second.graphReplay || it->second.firstKernelName == kNone) continue;
          name = t_.names[it->second.firstKernelName];
        }
        const auto &ops = jc.launchOps[l];
        if (std::find(ops.begin(), ops.end(), name) != ops.end()) {
          match[l] = static_cast<uint32_t>(j);
          next = j + 1;
          break;
        }
      }
    }
    return match;
  }

  void joinCalls() {
    for (uint32_t k = 0; k < calls_.size(); ++k) {
      uint32_t call = calls_[k];
      CallContext c = contextOf(call);
      std::optional<uint32_t> compile;
      bool viaCompileId = false, viaSequence = false;
      std::vector<uint32_t> candidates = byKey(c);
      if (!candidates.empty()) {
        compile = candidates.front();
      } else if (auto id = byCompileId(c)) {
        // Accepted only if every launch of that compile is found in the call, in order.
        auto m = align(k, compiles_[*id]);
        bool complete = std::none_of(m.begin(), m.end(), [](uint32_t v) { return v == kNone; });
        bool replay = std::any_of(callUnits_[k].begin(), callUnits_[k].end(),
                                  [](const auto &u) { return u.second.graphReplay; });
        if (complete || replay) {
          compile = id;
          viaCompileId = true;
        }
      }
      if (!compile && candidates.empty()) {
        compile = bySequence(k, c);
        viaSequence = compile.has_value();
      }
      uint64_t total = 0;
      for (const auto &[unit, u] : callUnits_[k])
        total += u.ns;
      if (!compile) {
        out_.unjoinedNs += total;
        out_.unjoined.push_back({c.key, total});
        continue;
      }
      CompileTime &ct = out_.compiles[*compile];
      const JoinCompile &jc = compiles_[*compile];
      ++ct.calls;
      ct.byCompileId = ct.byCompileId || viaCompileId;
      ct.bySequence = ct.bySequence || viaSequence;
      ct.ns += total;
      auto addSteps = [&](std::vector<uint64_t> &into, const UnitTime &u) {
        for (size_t s = 0; s < u.perStep.size() && s < into.size(); ++s)
          into[s] += u.perStep[s];
      };
      std::unordered_map<uint32_t, uint32_t> launchOfChild;
      std::vector<uint32_t> m = align(k, jc);
      const auto &children = callChildren_[k];
      for (uint32_t l = 0; l < m.size(); ++l)
        if (m[l] != kNone) launchOfChild.emplace(children[m[l]], l);
      for (uint32_t l = 0; l < m.size(); ++l)
        if (m[l] != kNone) ++ct.launches[l].calls;
      bool replayed = false;
      for (const auto &[unit, u] : callUnits_[k]) {
        addSteps(ct.perStep, u);
        if (u.graphReplay) {
          replayed = true;
          ct.graphReplayNs += u.ns;
          // Kernel names of the replay, for display only (never joined to launches).
          for (const auto &[name, ns] : u.replayKernels)
            ct.replayKernels[t_.names[name]] += ns;
          continue;
        }
        auto it = launchOfChild.find(unit);
        if (it == launchOfChild.end()) {
          ct.otherNs += u.ns;
          continue;
        }
        LaunchTime &lt = ct.launches[it->second];
        lt.ns += u.ns;
        lt.activities += u.activities;
        addSteps(lt.perStep, u);
      }
      if (replayed) ++ct.graphReplays;
    }
  }

  void finish() {
    for (CompileTime &ct : out_.compiles) {
      if (ct.calls <= ct.graphReplays) continue; // Never ran outside a CUDA graph: nothing was missed.
      for (const LaunchTime &l : ct.launches)
        if (l.calls == 0) ++ct.launchesMissed;
    }
    std::vector<std::pair<std::string, uint64_t>> ops(eagerOps_.begin(), eagerOps_.end());
    std::sort(ops.begin(), ops.end(), [](const auto &a, const auto &b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (ops.size() > 20) ops.resize(20);
    out_.eagerOps = std::move(ops);
  }

  const ChromeTrace &t_;
  const std::vector<JoinCompile> &compiles_;
  ProfileJoin out_;
  std::vector<uint32_t> parent_;
  std::unordered_map<int64_t, uint32_t> byCorrelation_, byExternalId_;
  std::vector<uint32_t> calls_; ///< CPU event index of every compiled call, in file order.
  std::unordered_map<uint32_t, uint32_t> callIndex_;
  std::vector<std::vector<uint32_t>> callChildren_;
  std::vector<std::unordered_map<uint32_t, UnitTime>> callUnits_;
  std::vector<StepRange> steps_;
  std::map<std::string, uint64_t> eagerOps_;
  std::unordered_map<std::string, std::optional<uint32_t>> sequenceMemo_;
};

} // namespace

ProfileJoin joinProfile(const ChromeTrace &trace, const std::vector<JoinCompile> &compiles) {
  return Joiner(trace, compiles).run();
}

} // namespace inductor::index
