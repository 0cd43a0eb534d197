#include "server/Logger.h"

#include <chrono>
#include <ctime>

namespace inductor::server {

std::optional<LogLevel> parseLogLevel(std::string_view name) {
  if (name == "error") return LogLevel::Error;
  if (name == "warn" || name == "warning") return LogLevel::Warn;
  if (name == "info") return LogLevel::Info;
  if (name == "debug") return LogLevel::Debug;
  if (name == "verbose" || name == "trace") return LogLevel::Verbose;
  return std::nullopt;
}

namespace {

/// Length of the valid UTF-8 sequence at `s[i]` (1 to 4), or 0 when it is not one (overlong forms,
/// surrogates, code points past U+10FFFF and cut sequences are not).
size_t utf8Length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  size_t n = c < 0x80                   ? 1
             : (c >= 0xC2 && c <= 0xDF) ? 2
             : (c >= 0xE0 && c <= 0xEF) ? 3
             : (c >= 0xF0 && c <= 0xF4) ? 4
                                        : 0;
  if (n <= 1 || i + n > s.size()) return n == 1 ? 1 : 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(k) & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && b(1) < 0xA0) return 0; // Overlong.
  if (c == 0xED && b(1) > 0x9F) return 0; // Surrogate.
  if (c == 0xF0 && b(1) < 0x90) return 0; // Overlong.
  if (c == 0xF4 && b(1) > 0x8F) return 0; // Past U+10FFFF.
  return n;
}

bool plain(std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7F) return false;
  }
  return true;
}

} // namespace

std::string escapeForLog(std::string_view text) {
  if (plain(text)) return std::string(text);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 16);
  auto hex = [&](const char *prefix, unsigned c) {
    out += prefix;
    out += kHex[(c >> 4) & 0xF];
    out += kHex[c & 0xF];
  };
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
      ++i;
    } else if (size_t n = c < 0x80 ? 0 : utf8Length(text, i); n == 0) {
      hex("\\x", c); // Other C0 controls, ESC, DEL, and bytes that are not UTF-8.
      ++i;
    } else if (c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) { // C1 control (CSI is U+009B).
      hex("\\u00", static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

Logger &Logger::instance() {
  static Logger logger;
  return logger;
}

bool Logger::openFile(const std::string &path) {
  std::FILE *f = std::fopen(path.c_str(), "a");
  if (!f) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  out_ = f;
  return true;
}

void Logger::closeFile() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (out_ != stderr) std::fclose(out_);
  out_ = stderr;
}

void Logger::log(LogLevel level, std::string_view message) {
  if (!enabled(level)) return;
  static constexpr char kLetters[] = {'E', 'W', 'I', 'D', 'V'};
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
  std::string line = escapeForLog(message); // Before the lock: one line, whatever the message holds.
  message = line;
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(out_, "%c[%s.%03d] %.*s\n", kLetters[static_cast<int>(level)], stamp, static_cast<int>(ms),
               static_cast<int>(message.size()), message.data());
  std::fflush(out_);
}

} // namespace inductor::server
