#include "index/files/Runs.h"

#include "index/files/Discovery.h"
#include "index/files/PathResolver.h"
#include "index/files/ReadPolicy.h"
#include "index/trace/JsonScan.h"
#include "index/trace/MappedFile.h"
#include "index/trace/TraceLog.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace inductor::index {

namespace {

/// Bytes read at each end of a log, profile or run log.
constexpr size_t kEdgeBytes = 64 * 1024;

int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct Civil {
  int64_t year;
  unsigned month, day, hour, minute, second;
};

Civil civilFromUs(int64_t us) {
  int64_t secs = us >= 0 ? us / 1'000'000 : (us - 999'999) / 1'000'000;
  int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  int64_t rem = secs - days * 86400;
  int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2),
          m,
          d,
          static_cast<unsigned>(rem / 3600),
          static_cast<unsigned>(rem % 3600 / 60),
          static_cast<unsigned>(rem % 60)};
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// A glog prefix `V1127 02:31:47.595000 2366 ` at the start of `line`: month, day, µs of the day, pid.
struct Prefix {
  unsigned month = 0, day = 0;
  int64_t dayUs = 0;
  int pid = 0;
};

std::optional<Prefix> parsePrefix(std::string_view line) {
  // "V1127 02:31:47.595000 2366 " at least 22 bytes.
  if (line.size() < 22 || !std::strchr("VIWEC", line[0])) return std::nullopt;
  auto digits = [&](size_t at, size_t n, int64_t &out) {
    out = 0;
    for (size_t i = 0; i < n; ++i) {
      if (at + i >= line.size() || !isDigit(line[at + i])) return false;
      out = out * 10 + (line[at + i] - '0');
    }
    return true;
  };
  int64_t mo, d, h, mi, s;
  if (!digits(1, 2, mo) || !digits(3, 2, d) || line[5] != ' ' || !digits(6, 2, h) || line[8] != ':' ||
      !digits(9, 2, mi) || line[11] != ':' || !digits(12, 2, s))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  size_t p = 14;
  int64_t frac = 0;
  size_t fracDigits = 0;
  if (p < line.size() && line[p] == '.') {
    ++p;
    while (p < line.size() && isDigit(line[p]) && fracDigits < 9) {
      frac = frac * 10 + (line[p] - '0');
      ++p;
      ++fracDigits;
    }
  }
  while (fracDigits < 6) {
    frac *= 10;
    ++fracDigits;
  }
  while (fracDigits > 6) {
    frac /= 10;
    --fracDigits;
  }
  while (p < line.size() && line[p] == ' ')
    ++p;
  int64_t pid = 0;
  size_t start = p;
  while (p < line.size() && isDigit(line[p]) && p - start < 10)
    pid = pid * 10 + (line[p++] - '0');
  if (p == start || p >= line.size() || line[p] != ' ') return std::nullopt;
  Prefix out;
  out.month = static_cast<unsigned>(mo);
  out.day = static_cast<unsigned>(d);
  out.dayUs = ((h * 60 + mi) * 60 + s) * 1'000'000 + frac;
  out.pid = static_cast<int>(pid);
  return out;
}

int64_t localUs(const Prefix &p, int64_t year) {
  return daysFromCivil(year, p.month, p.day) * 86'400'000'000 + p.dayUs;
}

/// Reads up to `n` bytes at `offset` of an opened file.
std::string readAt(int fd, uint64_t offset, size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return out;
}

/// The first and last kEdgeBytes of a file the policy allows (the whole file when smaller), and its mtime.
struct Edges {
  std::string head, tail;
  int64_t mtimeUs = 0;
  bool ok = false;
};

Edges readEdges(const std::string &path, const ReadPolicy &policy) {
  Edges e;
  if (!policy.allows(path)) return e;
  auto file = openInputFile(path);
  if (!file) return e;
  struct stat st {};
  if (::fstat(file->fd, &st) == 0)
    e.mtimeUs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000 + st.st_mtim.tv_nsec / 1000;
  e.head = readAt(file->fd, 0, kEdgeBytes);
  if (file->size > kEdgeBytes) e.tail = readAt(file->fd, file->size - kEdgeBytes, kEdgeBytes);
  ::close(file->fd);
  e.ok = true;
  return e;
}

/// The first kEdgeBytes of a gzip file, inflated (empty on error).
std::string inflateHead(const std::string &compressed) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return {};
  std::string out(kEdgeBytes, '\0');
  z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(compressed.data()));
  z.avail_in = static_cast<uInt>(compressed.size());
  z.next_out = reinterpret_cast<Bytef *>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, Z_SYNC_FLUSH);
  size_t produced = out.size() - z.avail_out;
  inflateEnd(&z);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) return {};
  out.resize(produced);
  return out;
}

/// Lines of `text` (a partial first or last line included).
template <typename F> void forEachLine(std::string_view text, F &&f) {
  size_t p = 0;
  while (p < text.size()) {
    size_t nl = text.find('\n', p);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    if (!f(text.substr(p, end - p))) return;
    if (nl == std::string_view::npos) return;
    p = nl + 1;
  }
}

/// The `"rank": N` of an envelope line, read as TraceLog reads it (json_scan::integer: any int, negative
/// ones too), so that the runs group the logs by the ranks the index gives their compiles.
std::optional<int> envelopeRank(std::string_view line) {
  size_t at = line.find("\"rank\": ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + 8);
  return json_scan::integer(rest.substr(0, rest.find_first_of(",} ")));
}

/// The number after `key` (e.g. `"ts": `) at or after `from` in `text`, within `within` bytes.
std::optional<double> numberAfter(std::string_view text, std::string_view key, size_t from, size_t within) {
  size_t at = text.find(key, from);
  if (at == std::string_view::npos || at - from > within) return std::nullopt;
  size_t p = at + key.size();
  while (p < text.size() && text[p] == ' ')
    ++p;
  size_t start = p;
  while (p < text.size() && (isDigit(text[p]) || text[p] == '.' || text[p] == '-' || text[p] == 'e' ||
                             text[p] == 'E' || text[p] == '+'))
    ++p;
  if (p == start) return std::nullopt;
  try {
    return std::stod(std::string(text.substr(start, p - start)));
  } catch (...) {
    return std::nullopt;
  }
}

int yearOf(int64_t us) {
  return static_cast<int>(civilFromUs(us).year);
}

} // namespace

std::string formatUtcSeconds(int64_t us) {
  Civil c = civilFromUs(us);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02u:%02u:%02u", static_cast<long long>(c.year), c.month,
                c.day, c.hour, c.minute, c.second);
  return buf;
}

LogTimes readLogTimes(const std::string &path, const ReadPolicy &policy) {
  LogTimes t;
  t.path = path;
  t.rank = TraceLog::rankFromFileName(path);
  Edges e = readEdges(path, policy);
  if (!e.ok) return t;
  // The first record's prefix, and the first chromium_event's "ts" with its own record's prefix.
  std::optional<Prefix> first, tsPrefix, last;
  std::optional<double> ts;
  size_t offset = 0;
  forEachLine(e.head, [&](std::string_view line) {
    size_t lineAt = offset;
    offset += line.size() + 1;
    std::optional<Prefix> p = parsePrefix(line);
    if (!p) return true;
    if (!first) first = p;
    last = p;
    if (!t.rank) t.rank = envelopeRank(line);
    if (!ts && line.find("\"chromium_event\"") != std::string_view::npos) {
      // The payload follows the envelope, one `\t` line per member: "ts" within a few hundred bytes.
      // Epoch microseconds: a value past year 5000 is corrupt (and would not fit an int64_t below).
      if (auto v = numberAfter(e.head, "\"ts\": ", lineAt + line.size(), 2048); v && *v > 0 && *v < 1e17) {
        ts = v;
        tsPrefix = p;
      }
    }
    return true;
  });
  if (!first) return t;
  if (!e.tail.empty()) {
    // Skip the partial first line of the tail; the last line that is a record prefix is the last record.
    size_t nl = e.tail.find('\n');
    std::string_view rest =
        nl == std::string::npos ? std::string_view() : std::string_view(e.tail).substr(nl + 1);
    forEachLine(rest, [&](std::string_view line) {
      if (auto p = parsePrefix(line)) last = p;
      return true;
    });
  }
  t.pid = first->pid;
  int64_t year = yearOf(e.mtimeUs);
  int64_t offsetUs = 0;
  if (ts) {
    int64_t tsUs = static_cast<int64_t>(*ts);
    // The year whose local time is nearest the timestamp (a log written on New Year's Eve).
    int64_t y0 = yearOf(tsUs);
    int64_t best = y0;
    for (int64_t y : {y0 - 1, y0 + 1})
      if (std::llabs(tsUs - localUs(*tsPrefix, y)) < std::llabs(tsUs - localUs(*tsPrefix, best))) best = y;
    year = best;
    constexpr int64_t kQuarterHour = 900'000'000;
    int64_t raw = tsUs - localUs(*tsPrefix, year);
    offsetUs = (raw >= 0 ? (raw + kQuarterHour / 2) : (raw - kQuarterHour / 2)) / kQuarterHour * kQuarterHour;
  } else if (e.mtimeUs > 0 && first->month > civilFromUs(e.mtimeUs).month) {
    year -= 1; // Written in December, copied in January.
  }
  t.localOffsetUs = offsetUs;
  t.startUs = localUs(*first, year) + offsetUs;
  if (ts && tsPrefix && tsPrefix->dayUs == first->dayUs && tsPrefix->month == first->month &&
      tsPrefix->day == first->day)
    t.startUs = static_cast<int64_t>(*ts); // The first record's own timestamp, finer than its prefix.
  t.endUs = localUs(*last, year) + offsetUs;
  if (t.endUs < t.startUs) t.endUs += 365LL * 86'400'000'000; // The year turned during the run.
  return t;
}

std::vector<Run> groupLogs(std::vector<LogTimes> logs) {
  std::sort(logs.begin(), logs.end(), [](const LogTimes &a, const LogTimes &b) {
    return std::tie(a.startUs, a.path) < std::tie(b.startUs, b.path);
  });
  struct Group {
    std::vector<LogTimes> logs;
    int64_t start = 0, end = 0;
    bool ranked = true;
  };
  std::vector<Group> groups;
  // Logs whose times cannot be read are not a trace's (their first records do not parse): they hold nothing
  // to answer from, only problems to report, so they go with the newest run (shown first) rather than make
  // runs of their own that would hide those problems; without any timed run, together in one.
  std::vector<LogTimes> untimed;
  for (LogTimes &log : logs) {
    if (log.startUs == 0) {
      untimed.push_back(std::move(log));
      continue;
    }
    Group *join = nullptr;
    if (log.rank && log.startUs != 0) {
      // The newest run formed so far that accepts it.
      for (auto g = groups.rbegin(); g != groups.rend() && !join; ++g) {
        if (!g->ranked || g->start == 0) continue;
        bool rankTaken = std::any_of(g->logs.begin(), g->logs.end(),
                                     [&](const LogTimes &o) { return o.rank == log.rank; });
        if (rankTaken) continue;
        if (log.startUs >= g->start - kRankWindowUs && log.startUs <= g->end + kRankWindowUs) join = &*g;
      }
    }
    if (!join) {
      groups.emplace_back();
      join = &groups.back();
      join->start = log.startUs;
      join->end = log.endUs;
      join->ranked = log.rank.has_value();
    }
    join->start = std::min(join->start, log.startUs);
    join->end = std::max(join->end, log.endUs);
    join->logs.push_back(std::move(log));
  }
  if (!untimed.empty()) {
    if (groups.empty()) {
      groups.emplace_back();
      groups.back().ranked = false;
    }
    for (LogTimes &log : untimed)
      groups.back().logs.push_back(std::move(log));
  }
  std::vector<Run> runs;
  std::map<std::string, int> seen;
  size_t unknown = 0;
  for (Group &g : groups) {
    Run r;
    r.startUs = g.start;
    r.endUs = g.end;
    std::sort(g.logs.begin(), g.logs.end(), [](const LogTimes &a, const LogTimes &b) {
      return std::tie(a.rank, a.path) < std::tie(b.rank, b.path);
    });
    std::set<int> pids;
    for (const LogTimes &l : g.logs) {
      r.logs.push_back(l.path);
      if (l.rank) r.ranks.push_back(*l.rank);
      if (l.pid) pids.insert(l.pid);
      if (l.localOffsetUs) r.localOffsetUs = l.localOffsetUs;
    }
    if (!g.ranked) r.ranks.clear();
    std::sort(r.ranks.begin(), r.ranks.end());
    r.pids.assign(pids.begin(), pids.end());
    r.id = r.startUs != 0 ? formatUtcSeconds(r.startUs) : "unknown " + std::to_string(++unknown);
    int n = ++seen[r.id];
    if (n > 1) r.id += "." + std::to_string(n);
    runs.push_back(std::move(r));
  }
  return runs;
}

std::string debugRunDirOf(std::string_view path) {
  // ".../run_2026_11_27_02_31_04_304173-pid_2145[/...]"
  size_t p = 0;
  while ((p = path.find("/run_", p)) != std::string_view::npos) {
    size_t end = path.find('/', p + 1);
    std::string_view name = path.substr(p + 1, (end == std::string_view::npos ? path.size() : end) - p - 1);
    if (name.size() > 30 && name.find("-pid_") != std::string_view::npos && isDigit(name[4]))
      return std::string(path.substr(0, end == std::string_view::npos ? path.size() : end));
    p = p + 1;
  }
  return {};
}

namespace {

/// The local time (µs, as if UTC) and pid of a `run_YYYY_MM_DD_HH_MM_SS_us-pid_P` directory; nullopt when the
/// name is not one, or its fields are out of range (a year outside 1970-9999, an hour of 24, a pid past
/// INT_MAX): a folder name is outside input, and a year of nine digits would overflow the microseconds.
std::optional<std::pair<int64_t, int>> parseDebugRunDir(std::string_view dir) {
  size_t slash = dir.rfind('/');
  std::string_view name = slash == std::string_view::npos ? dir : dir.substr(slash + 1);
  if (!name.starts_with("run_")) return std::nullopt;
  int64_t v[7] = {};
  size_t p = 4;
  for (int k = 0; k < 7; ++k) {
    size_t start = p;
    while (p < name.size() && isDigit(name[p]) && p - start < 9)
      v[k] = v[k] * 10 + (name[p++] - '0');
    if (p == start) return std::nullopt;
    if (k < 6) {
      if (p >= name.size() || name[p] != '_') return std::nullopt;
      ++p;
    }
  }
  size_t pidAt = name.find("-pid_", p);
  if (pidAt == std::string_view::npos) return std::nullopt;
  int64_t pid = 0;
  for (size_t q = pidAt + 5; q < name.size() && isDigit(name[q]); ++q) {
    pid = pid * 10 + (name[q] - '0');
    if (pid > INT32_MAX) return std::nullopt;
  }
  if (v[0] < 1970 || v[0] > 9999 || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 ||
      v[4] > 59 || v[5] > 60 || v[6] > 999'999)
    return std::nullopt;
  int64_t us =
      daysFromCivil(v[0], static_cast<unsigned>(v[1]), static_cast<unsigned>(v[2])) * 86'400'000'000 +
      ((v[3] * 60 + v[4]) * 60 + v[5]) * 1'000'000 + v[6];
  return std::pair{us, static_cast<int>(pid)};
}

/// Distance of a time from a run's span (0 inside).
int64_t distanceFromSpan(const Run &r, int64_t t) {
  if (t < r.startUs) return r.startUs - t;
  if (t > r.endUs) return t - r.endUs;
  return 0;
}

/// The run a pid and a time (UTC, or local when `local`) point to: among the runs with that pid the one
/// nearest in time; without one, the one run whose span ±`slack` holds the time. -1: none.
int runOf(const std::vector<Run> &runs, const std::set<int> &pids, std::optional<int64_t> time, bool local,
          int64_t slack) {
  auto utc = [&](const Run &r) { return local ? *time + r.localOffsetUs : *time; };
  int best = -1;
  int64_t bestDistance = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    bool pidMatch =
        std::any_of(runs[i].pids.begin(), runs[i].pids.end(), [&](int p) { return pids.count(p); });
    if (!pidMatch) continue;
    int64_t d = time && runs[i].startUs ? distanceFromSpan(runs[i], utc(runs[i])) : 0;
    if (best < 0 || d < bestDistance) {
      best = static_cast<int>(i);
      bestDistance = d;
    }
  }
  if (best >= 0 || !time) return best;
  // The run whose span is nearest, within `slack`; two equally near (two spans holding it) are ambiguous.
  int found = -1;
  int64_t nearest = 0;
  bool tie = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].startUs) continue;
    int64_t d = distanceFromSpan(runs[i], utc(runs[i]));
    if (d > slack) continue;
    if (found < 0 || d < nearest) {
      found = static_cast<int>(i);
      nearest = d;
      tie = false;
    } else if (d == nearest) {
      tie = true;
    }
  }
  return tie ? -1 : found;
}

/// Pids of the CPU events in the head of a profiler Chrome trace, and its first event's time (UTC µs) when
/// `baseTimeNanoseconds` is there.
std::pair<std::set<int>, std::optional<int64_t>> profileSignature(const std::string &path,
                                                                  const ReadPolicy &policy) {
  std::set<int> pids;
  std::optional<int64_t> time;
  Edges e = readEdges(path, policy);
  if (!e.ok) return {pids, time};
  std::string text =
      path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0 ? inflateHead(e.head) : e.head;
  std::string_view v(text);
  std::map<int, int> counts;
  for (const char *cat :
       {"\"cat\": \"cpu_op\"", "\"cat\": \"python_function\"", "\"cat\": \"user_annotation\"",
        "\"cat\": \"cuda_runtime\"", "\"cat\": \"cuda_driver\""}) {
    size_t p = 0;
    while ((p = v.find(cat, p)) != std::string_view::npos) {
      // Kineto writes "pid" a few members after "cat" in the same event.
      if (auto pid = numberAfter(v, "\"pid\": ", p, 400); pid && *pid > 0 && *pid < 1e9)
        ++counts[static_cast<int>(*pid)];
      p += std::strlen(cat);
    }
  }
  int top = 0, topCount = 0;
  for (auto [pid, n] : counts)
    if (n > topCount) {
      top = pid;
      topCount = n;
    }
  if (topCount > 0) pids.insert(top);
  auto base = numberAfter(v, "\"baseTimeNanoseconds\": ", 0, v.size());
  size_t events = v.find("\"traceEvents\"");
  if (base && events != std::string_view::npos)
    if (auto ts = numberAfter(v, "\"ts\": ", events, 4096))
      if (double us = *base / 1000.0 + *ts; us > 0 && us < 1e17) time = static_cast<int64_t>(us); // Not NaN.
  return {pids, time};
}

/// Pids a run log names: its glog lines' and `-pid_P` paths', in its head and tail.
std::set<int> runLogPids(const Edges &e) {
  std::set<int> pids;
  for (const std::string *part : {&e.head, &e.tail}) {
    forEachLine(*part, [&](std::string_view line) {
      if (auto p = parsePrefix(line)) pids.insert(p->pid);
      size_t at = line.find("-pid_");
      if (at != std::string_view::npos) {
        int pid = 0;
        size_t q = at + 5;
        for (; q < line.size() && isDigit(line[q]) && q - at < 15; ++q)
          pid = pid * 10 + (line[q] - '0');
        if (q > at + 5) pids.insert(pid);
      }
      return pids.size() < 64;
    });
  }
  return pids;
}

} // namespace

std::optional<int> debugRunDirPid(std::string_view dir) {
  auto parsed = parseDebugRunDir(dir);
  if (!parsed) return std::nullopt;
  return parsed->second;
}

std::vector<Unattributed> attributeInputs(std::vector<Run> &runs, const DiscoveredInputs &found,
                                          const std::vector<std::string> &profiles,
                                          const std::vector<std::string> &runLogs, const ReadPolicy &policy) {
  std::vector<Unattributed> none;
  std::set<std::string> dirs;
  for (const CompileFiles &c : found.compiles)
    if (std::string d = debugRunDirOf(c.outputCode); !d.empty()) dirs.insert(d);
  if (runs.empty()) return none;
  if (runs.size() == 1) {
    runs[0].debugDirs.assign(dirs.begin(), dirs.end());
    runs[0].profiles = profiles;
    runs[0].runLogs = runLogs;
    return none;
  }
  for (const std::string &d : dirs) {
    auto parsed = parseDebugRunDir(d);
    int r = parsed ? runOf(runs, {parsed->second}, parsed->first, /*local=*/true, kRankWindowUs) : -1;
    if (r >= 0)
      runs[static_cast<size_t>(r)].debugDirs.push_back(d);
    else if (!parsed)
      none.push_back({d, "debug directory of no run found (its name holds no valid time and pid: "
                         "run_YYYY_MM_DD_HH_MM_SS_us-pid_P)"});
    else
      none.push_back({d, "debug directory of no run found (its pid and time match none of the runs' logs)"});
  }
  for (const std::string &p : profiles) {
    auto [pids, time] = profileSignature(p, policy);
    int r = runOf(runs, pids, std::nullopt, false, 0);
    if (r < 0 && time) {
      // The newest run that started before the profiled steps.
      for (size_t i = 0; i < runs.size(); ++i)
        if (runs[i].startUs && runs[i].startUs <= *time) r = static_cast<int>(i);
    }
    if (r >= 0)
      runs[static_cast<size_t>(r)].profiles.push_back(p);
    else
      none.push_back({p, "profile of no run found (neither its pid nor its time matches a run's logs)"});
  }
  for (const std::string &l : runLogs) {
    Edges e = readEdges(l, policy);
    std::set<int> pids = e.ok ? runLogPids(e) : std::set<int>{};
    int r = pids.empty() ? -1 : runOf(runs, pids, std::nullopt, false, 0);
    if (r < 0 && e.ok && e.mtimeUs) r = runOf(runs, {}, e.mtimeUs, false, 600'000'000);
    if (r >= 0)
      runs[static_cast<size_t>(r)].runLogs.push_back(l);
    else
      none.push_back({l, "run log of no run found (it names no pid of a run, and its time is in no run's)"});
  }
  return none;
}

std::vector<Run> groupRuns(const DiscoveredInputs &found, const RuntimeInputs &runtime,
                           const ReadPolicy &policy, std::vector<Unattributed> *unattributed) {
  std::vector<LogTimes> times;
  for (const std::string &log : found.traceLogs)
    times.push_back(readLogTimes(log, policy));
  std::vector<Run> runs = groupLogs(std::move(times));
  auto none = attributeInputs(runs, found, runtime.profiles, runtime.runLogs, policy);
  if (unattributed) *unattributed = std::move(none);
  return runs;
}

std::optional<size_t> selectRun(const std::vector<Run> &runs, std::string_view selector) {
  if (runs.empty()) return std::nullopt;
  if (selector.empty() || selector == "latest") return runs.size() - 1;
  if (selector == "previous") return runs.size() >= 2 ? std::optional<size_t>(runs.size() - 2) : std::nullopt;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].id == selector) return i;
  // A path: of one of its files or directories, or inside one.
  std::string path = selector.find('/') != std::string_view::npos ? canonicalPath(selector) : std::string();
  if (path.empty()) return std::nullopt;
  auto within = [&](const std::vector<std::string> &list) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string &p) { return p == path || isWithin(path, p) || p == selector; });
  };
  for (size_t i = runs.size(); i-- > 0;)
    if (within(runs[i].logs) || within(runs[i].debugDirs) || within(runs[i].profiles) ||
        within(runs[i].runLogs))
      return i;
  // A folder holding a run's logs (one run's folder among those of a trace folder): the newest such run.
  std::string asGiven = normalizePath(selector);
  for (size_t i = runs.size(); i-- > 0;)
    if (std::any_of(runs[i].logs.begin(), runs[i].logs.end(),
                    [&](const std::string &log) { return isWithin(log, asGiven) || isWithin(log, path); }))
      return i;
  return std::nullopt;
}

std::string noRunMatches(std::string_view name, const std::vector<Run> &runs) {
  std::string out = "\"" + std::string(name) + "\" names no run: ";
  if (name == "previous")
    out += "there is no run before the latest";
  else
    out += "it is not a run id, \"latest\" or \"previous\", nor a log, debug directory or folder of a run's "
           "logs";
  out += "; " + std::to_string(runs.size()) + (runs.size() == 1 ? " run" : " runs") + " found";
  for (size_t i = 0; i < runs.size() && i < 8; ++i)
    out += (i ? ", " : ": ") + runs[i].id;
  if (runs.size() > 8) out += ", …";
  return out;
}

} // namespace inductor::index
