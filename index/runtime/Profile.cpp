// index/runtime/Profile.cpp: the Chrome-trace reader (SAX over a mapping or a gzip stream) and the join of
// device activities to launches. See Profile.h for the formats and the join rules.
#include "index/runtime/Profile.h"

#include "index/trace/CompileId.h"
#include "index/trace/MappedFile.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <istream>
#include <streambuf>
#include <unordered_map>

namespace inductor::index {

namespace {

using json = nlohmann::json;
constexpr uint32_t kNone = UINT32_MAX;

/// What BoundedJsonBuf puts in place of a string over the token limit (JSON text), and what the parser
/// makes of it: a string no profiler writes.
constexpr std::string_view kCutStringJson = "\"\\u0000inductor-ls: cut\"";
const std::string kCutString = std::string(1, '\0') + "inductor-ls: cut";

bool startsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}
bool endsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}
std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

/// Microseconds written as decimal text ("4487695540862.442") to integer nanoseconds, exactly for the three
/// decimals Kineto prints (a fourth rounds). nullopt for negative or unreadable values.
std::optional<uint64_t> microsToNanos(std::string_view s, double fallback) {
  if (s.empty() || s[0] == '-') return std::nullopt;
  if (s.find_first_of("eE") != std::string_view::npos) {
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

/// The SAX consumer: keeps the fields of the current event in reused buffers and commits the event at its
/// end when it is one of the kept categories.
class TraceSax {
public:
  TraceSax(ChromeTrace &out, const ProfileReadOptions &options) : out_(out), options_(options) {}

  bool null() { return value(nullptr, nullptr); }
  bool boolean(bool) { return value(nullptr, nullptr); }
  bool number_integer(json::number_integer_t v) {
    Number n{v, static_cast<double>(v), {}};
    return value(nullptr, &n);
  }
  bool number_unsigned(json::number_unsigned_t v) {
    Number n{static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX)), static_cast<double>(v), {}};
    return value(nullptr, &n);
  }
  bool number_float(json::number_float_t v, const std::string &text) {
    bool fits = v > -9.0e18 && v < 9.0e18; // NaN compares false: not an integer either.
    Number n{fits ? static_cast<int64_t>(v) : -1, v, text};
    return value(nullptr, &n);
  }
  bool string(std::string &s) { return value(&s, nullptr); }
  bool binary(json::binary_t &) { return true; }

  bool start_object(size_t) {
    ++depth_;
    if (eventsDepth_ && depth_ == eventsDepth_ + 1) {
      beginEvent();
    } else if (inEvent_ && depth_ == eventsDepth_ + 2 && eventKey_ == "args") {
      inArgs_ = true;
    } else if (!eventsDepth_ && depth_ == 2 && topKey_ == "distributedInfo") {
      inDistributed_ = true;
    } else if (!eventsDepth_ && depth_ == 3 && inDeviceList_) {
      inDevice_ = out_.devices.size() < 64;
      if (inDevice_) out_.devices.emplace_back();
    }
    return true;
  }
  bool end_object() {
    if (inEvent_ && depth_ == eventsDepth_ + 1) endEvent();
    if (inArgs_ && depth_ == eventsDepth_ + 2) inArgs_ = false;
    if (inDistributed_ && depth_ == 2) inDistributed_ = false;
    if (inDevice_ && depth_ == 3) inDevice_ = false;
    --depth_;
    return !stop_;
  }
  bool start_array(size_t) {
    ++depth_;
    if (!eventsDepth_ && !eventsDone_ && (depth_ == 1 || (depth_ == 2 && topKey_ == "traceEvents"))) {
      eventsDepth_ = depth_;
      out_.sawTraceEvents = true;
    } else if (!eventsDepth_ && depth_ == 2 && topKey_ == "deviceProperties") {
      inDeviceList_ = true;
    }
    return true;
  }
  bool end_array() {
    if (inDeviceList_ && depth_ == 2) inDeviceList_ = false;
    if (eventsDepth_ && depth_ == eventsDepth_) {
      eventsDepth_ = 0;
      eventsDone_ = true;
    }
    --depth_;
    return true;
  }
  bool key(std::string &k) {
    if (depth_ == 1)
      topKey_ = k;
    else if (inEvent_ && depth_ == eventsDepth_ + 1)
      eventKey_ = k;
    else if (inArgs_ && depth_ == eventsDepth_ + 2)
      argKey_ = k;
    else if (inDistributed_ && depth_ == 2)
      distributedKey_ = k;
    else if (inDevice_ && depth_ == 3)
      deviceKey_ = k;
    return true;
  }
  bool parse_error(size_t position, const std::string &, const json::exception &e) {
    if (!stop_) {
      out_.truncated = true;
      out_.problem = "stopped at byte " + std::to_string(position) + ": " + e.what();
    }
    return false;
  }
  bool stopped() const { return stop_; }

private:
  struct Number {
    int64_t integer = 0;
    double real = 0;
    std::string_view text; ///< The literal of a float (empty for integers).
  };

  /// A scalar value: a string `s`, a number `n`, or neither (null, booleans).
  bool value(const std::string *s, const Number *n) {
    if (inEvent_ && depth_ == eventsDepth_ + 1) {
      const std::string &k = eventKey_;
      if (s && *s == kCutString) {
        // Over the token limit (BoundedJsonBuf): an event missing a field it needs is skipped and counted.
        if (k == "ph" || k == "cat" || k == "name" || k == "pid" || k == "tid") eventCut_ = true;
        return true;
      }
      if (k == "ph") {
        ph_ = s ? *s : "";
      } else if (k == "cat") {
        cat_ = s ? lower(*s) : "";
      } else if (k == "name") {
        name_ = s ? *s : "";
      } else if (k == "pid" || k == "tid") {
        (k == "pid" ? pid_ : tid_) = s ? *s : n ? std::to_string(n->integer) : "";
      } else if (k == "ts" || k == "dur") {
        std::optional<uint64_t> ns;
        if (n && !n->text.empty())
          ns = microsToNanos(n->text, n->real);
        else if (n && n->integer >= 0 && n->integer < INT64_MAX / 1000)
          ns = static_cast<uint64_t>(n->integer) * 1000;
        (k == "ts" ? ts_ : dur_) = ns;
      }
    } else if (inArgs_ && depth_ == eventsDepth_ + 2 && n && n->text.empty()) {
      if (argKey_ == "External id" || argKey_ == "external id")
        externalId_ = n->integer;
      else if (argKey_ == "correlation")
        correlation_ = n->integer;
    } else if (inDistributed_ && depth_ == 2 && n && distributedKey_ == "rank") {
      out_.rank = static_cast<int>(n->integer);
    } else if (inDevice_ && depth_ == 3) {
      deviceValue(s, n);
    }
    return true;
  }

  /// A member of a `deviceProperties` entry (the last one of out_.devices).
  void deviceValue(const std::string *s, const Number *n) {
    DeviceProperties &d = out_.devices.back();
    const std::string &k = deviceKey_;
    if (s && k == "name" && *s != kCutString) {
      d.name = s->substr(0, 256);
      return;
    }
    if (!n || !n->text.empty() || n->integer < 0) return; // Integers only.
    auto small = [&]() { return static_cast<int>(std::min<int64_t>(n->integer, INT32_MAX)); };
    if (k == "id")
      d.id = small();
    else if (k == "computeMajor")
      d.computeMajor = small();
    else if (k == "computeMinor")
      d.computeMinor = small();
    else if (k == "numSms")
      d.numSms = small();
    else if (k == "totalGlobalMem")
      d.totalGlobalMem = static_cast<uint64_t>(n->integer);
  }

  void beginEvent() {
    inEvent_ = true;
    eventKey_.clear();
    ph_.clear();
    cat_.clear();
    name_.clear();
    pid_.clear();
    tid_.clear();
    ts_.reset();
    dur_.reset();
    externalId_ = correlation_ = -1;
    eventCut_ = false;
  }

  void endEvent() {
    inEvent_ = false;
    if (ph_ != "X") return;
    std::optional<ProfileCategory> category;
    if (cat_ == "cpu_op" || cat_ == "operator")
      category = ProfileCategory::CpuOp;
    else if (cat_ == "user_annotation")
      category = ProfileCategory::UserAnnotation;
    else if (cat_ == "cuda_runtime" || cat_ == "cuda_driver" || cat_ == "runtime")
      category = ProfileCategory::Runtime;
    else if (cat_ == "kernel")
      category = ProfileCategory::Kernel;
    else if (cat_ == "gpu_memcpy")
      category = ProfileCategory::Memcpy;
    else if (cat_ == "gpu_memset")
      category = ProfileCategory::Memset;
    if (!category) return;
    if (!ts_ || eventCut_) {
      ++out_.skippedEvents;
      return;
    }
    ProfileEvent e;
    e.ts = *ts_;
    e.dur = dur_.value_or(0);
    e.externalId = externalId_;
    e.correlation = correlation_;
    e.category = *category;
    e.name = intern(names_, out_.names, name_);
    e.thread = intern(threads_, out_.threads, pid_ + ":" + tid_);
    if (internedBytes_ > options_.maxNameBytes) {
      stop_ = true;
      out_.truncated = true;
      out_.problem = "stopped after " + std::to_string(options_.maxNameBytes) +
                     " bytes of distinct event names (the reading limit)";
    }
    bool device = *category == ProfileCategory::Kernel || *category == ProfileCategory::Memcpy ||
                  *category == ProfileCategory::Memset;
    (device ? out_.device : out_.cpu).push_back(e);
    if (out_.device.size() + out_.cpu.size() >= options_.maxEvents) {
      stop_ = true;
      out_.truncated = true;
      out_.problem = "stopped after " + std::to_string(options_.maxEvents) + " events (the reading limit)";
    }
  }

  uint32_t intern(std::unordered_map<std::string, uint32_t> &map, std::vector<std::string> &store,
                  const std::string &s) {
    auto [it, inserted] = map.try_emplace(s, static_cast<uint32_t>(store.size()));
    if (inserted) {
      store.push_back(s);
      internedBytes_ += 2 * s.size(); // The map's key and the store's copy.
    }
    return it->second;
  }

  ChromeTrace &out_;
  const ProfileReadOptions &options_;
  int depth_ = 0;
  int eventsDepth_ = 0;
  bool eventsDone_ = false, inEvent_ = false, inArgs_ = false, inDistributed_ = false, stop_ = false;
  bool eventCut_ = false, inDeviceList_ = false, inDevice_ = false;
  uint64_t internedBytes_ = 0;
  std::string topKey_, eventKey_, argKey_, distributedKey_, deviceKey_;
  std::string ph_, cat_, name_, pid_, tid_;
  std::optional<uint64_t> ts_, dur_;
  int64_t externalId_ = -1, correlation_ = -1;
  std::unordered_map<std::string, uint32_t> names_, threads_;
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

/// The JSON text nlohmann's parser reads, bounded before it reaches the lexer: the lexer accumulates each
/// token (and the whitespace before it) in full before the handler sees it, so a SAX handler alone cannot
/// bound memory. This stream tracks strings, numbers and whitespace runs as the bytes pass:
///  - a string or number longer than maxTokenBytes is never held whole: it is replaced by kCutString (a
///    number by `null`) and the rest of it skipped;
///  - whitespace past maxWhitespaceRun in one run is dropped (whitespace between tokens means nothing);
///  - nesting deeper than maxDepth ends the stream (the parser's state grows with depth), as does maxBytes.
/// Memory: the 256 KB output buffer plus one token of at most maxTokenBytes.
class BoundedJsonBuf : public std::streambuf {
public:
  BoundedJsonBuf(ByteSource &source, const ProfileReadOptions &options) : source_(source), options_(options) {
    out_.reserve((1 << 18) + 64);
  }
  /// Why the stream ended early (a bound or the source), else empty.
  const std::string &problem() const { return problem_.empty() ? source_.problem() : problem_; }
  uint64_t consumed() const { return consumed_; }
  size_t cutTokens() const { return cutTokens_; }
  size_t cutWhitespace() const { return cutWhitespace_; }

protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    out_.clear();
    while (out_.size() < (1u << 18) && !done_) {
      if (in_.empty()) {
        in_ = source_.next();
        if (in_.empty()) {
          done_ = true;
          flushNumber(); // A number that ends the text.
          break;
        }
      }
      if (consumed_ + in_.size() > options_.maxBytes) {
        in_ = in_.substr(0, static_cast<size_t>(options_.maxBytes - consumed_));
        if (in_.empty()) {
          stop("stopped after " + std::to_string(options_.maxBytes) + " bytes (the reading limit)");
          break;
        }
      }
      size_t used = scan(in_);
      consumed_ += used;
      in_.remove_prefix(used);
    }
    if (out_.empty()) return traits_type::eof();
    setg(out_.data(), out_.data(), out_.data() + out_.size());
    return traits_type::to_int_type(*gptr());
  }

private:
  enum class State : uint8_t { Outside, String, Number, SkipString, SkipNumber };

  static bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool isNumberChar(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  }

  void stop(std::string why) {
    if (problem_.empty()) problem_ = std::move(why);
    done_ = true;
  }

  void flushNumber() {
    if (state_ == State::Number) out_.append(token_);
    token_.clear();
    if (state_ == State::Number || state_ == State::SkipNumber) state_ = State::Outside;
  }

  /// Consumes bytes of `in` into out_ until out_ is full or `in` is used; returns the bytes consumed.
  size_t scan(std::string_view in) {
    size_t i = 0;
    const size_t n = in.size();
    while (i < n && out_.size() < (1u << 18) && !done_) {
      switch (state_) {
      case State::Outside: {
        char c = in[i];
        if (isBlank(c)) {
          // The run's bytes up to the limit pass; the rest is dropped, once counted per run.
          size_t j = i;
          while (j < n && isBlank(in[j]))
            ++j;
          size_t run = j - i;
          size_t room = blankRun_ < options_.maxWhitespaceRun ? options_.maxWhitespaceRun - blankRun_ : 0;
          out_.append(in.data() + i, std::min(run, room));
          if (run > room && blankRun_ <= options_.maxWhitespaceRun) ++cutWhitespace_;
          blankRun_ += run;
          if (blankRun_ > options_.maxWhitespaceRun) blankRun_ = options_.maxWhitespaceRun + 1;
          i = j;
          continue;
        }
        blankRun_ = 0;
        ++i;
        if (c == '"') {
          state_ = State::String;
          escaped_ = false;
          token_.assign(1, c);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
          state_ = State::Number;
          token_.assign(1, c);
        } else {
          if (c == '{' || c == '[') {
            if (++depth_ > options_.maxDepth) {
              stop("stopped at nesting deeper than " + std::to_string(options_.maxDepth) +
                   " (the reading limit)");
              break;
            }
          } else if ((c == '}' || c == ']') && depth_ > 0) {
            --depth_;
          }
          out_.push_back(c);
        }
        break;
      }
      case State::String:
      case State::SkipString: {
        // Up to the closing quote, honouring escapes.
        size_t j = i;
        bool closed = false;
        for (; j < n; ++j) {
          char c = in[j];
          if (escaped_) {
            escaped_ = false;
          } else if (c == '\\') {
            escaped_ = true;
          } else if (c == '"') {
            closed = true;
            ++j;
            break;
          }
        }
        if (state_ == State::String) {
          if (token_.size() + (j - i) > options_.maxTokenBytes) {
            ++cutTokens_;
            token_.clear();
            out_.append(kCutStringJson);
            state_ = closed ? State::Outside : State::SkipString;
          } else {
            token_.append(in.data() + i, j - i);
            if (closed) {
              out_.append(token_);
              token_.clear();
              state_ = State::Outside;
            }
          }
        } else if (closed) {
          state_ = State::Outside;
        }
        i = j;
        break;
      }
      case State::Number:
      case State::SkipNumber: {
        size_t j = i;
        while (j < n && isNumberChar(in[j]))
          ++j;
        if (state_ == State::Number) {
          if (token_.size() + (j - i) > options_.maxTokenBytes) {
            ++cutTokens_;
            token_.clear();
            out_.append("null");
            state_ = State::SkipNumber;
          } else {
            token_.append(in.data() + i, j - i);
          }
        }
        i = j;
        if (j < n) flushNumber(); // The number ended; the next byte is read Outside.
        break;
      }
      }
    }
    return i;
  }

  ByteSource &source_;
  const ProfileReadOptions &options_;
  std::string_view in_;
  std::string out_, token_;
  State state_ = State::Outside;
  bool escaped_ = false, done_ = false;
  size_t blankRun_ = 0, depth_ = 0, cutTokens_ = 0, cutWhitespace_ = 0;
  uint64_t consumed_ = 0;
  std::string problem_;
};

bool isGzip(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

} // namespace

namespace {

/// Reads the JSON text of `source` through the bounds of BoundedJsonBuf into a ChromeTrace.
ChromeTrace parseFrom(ByteSource &source, std::string path, const ProfileReadOptions &options) {
  ChromeTrace out;
  out.path = std::move(path);
  BoundedJsonBuf buf(source, options);
  std::istream stream(&buf);
  TraceSax sax(out, options);
  // Not strict: a complete document followed by junk (a second dump appended) still reads.
  json::sax_parse(stream, &sax, json::input_format_t::json, /*strict=*/false);
  out.bytes = buf.consumed();
  out.cutStrings = buf.cutTokens();
  out.cutWhitespace = buf.cutWhitespace();
  if (!buf.problem().empty() && !sax.stopped()) {
    out.truncated = true;
    // The bound or decompression problem is the cause of the syntax error it leads to.
    out.problem = buf.problem();
  }
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
  if (startsWith(kernel, "extern_kernels.")) return {"aten::" + std::string(kernel.substr(15))};
  std::string_view k = kernel;
  if (startsWith(k, "torch.ops.")) k.remove_prefix(10);
  if (startsWith(k, "aten.") || startsWith(k, "prims.")) {
    size_t dot = k.find('.');
    return {opOf(k.substr(0, dot), k.substr(dot + 1))};
  }
  if (k.size() != kernel.size()) { // torch.ops.<namespace>.<op>[.<overload>]
    size_t dot = k.find('.');
    if (dot != std::string_view::npos) return {opOf(k.substr(0, dot), k.substr(dot + 1))};
  }
  for (std::string_view device :
       {"aoti_torch_cuda_", "aoti_torch_cpu_", "aoti_torch_xpu_", "aoti_torch_mps_"})
    if (startsWith(kernel, device)) {
      std::string op(kernel.substr(device.size()));
      std::vector<std::string> out{"aten::" + op};
      if (endsWith(op, "_out")) out.insert(out.begin(), "aten::" + op.substr(0, op.size() - 4));
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
         startsWith(name, "cudaGraphLaunch_") || startsWith(name, "cuGraphLaunch_");
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
      if (startsWith(nameOf(i), kCallPrefix)) {
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
      if (!startsWith(n, kStepPrefix) || t_.cpu[i].category == ProfileCategory::Runtime) continue;
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
      if (innermost.empty() && !startsWith(n, kStepPrefix)) innermost = n;
      if (startsWith(n, "aten::")) outermostAten = n;
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
    if (endsWith(n, " ##")) n.remove_suffix(3);
    c.key = std::string(n);
    for (uint32_t i = parent_[call]; i != kNone; i = parent_[i]) {
      std::string_view p = nameOf(i);
      if (!c.region && startsWith(p, kRegionPrefix))
        c.region = CompileId::parse(p.substr(kRegionPrefix.size()));
      if (p == "CompiledFunctionBackward" || endsWith(p, ": CompiledFunctionBackward")) c.backward = true;
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
