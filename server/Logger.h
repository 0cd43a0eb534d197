// server/Logger.h: leveled logging to stderr or a file. Never to stdout, which carries only LSP frames.
// Thread-safe: each line is written under one mutex.
//
// Every message is written through escapeForLog: a file name (from a trace folder, a workspace) may hold a
// newline or terminal escape, which must not forge a log line or drive the terminal that shows the log.
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace inductor::server {

enum class LogLevel { Error = 0, Warn = 1, Info = 2, Debug = 3, Verbose = 4 };

/// Parses "error", "warn", "info", "debug", "verbose" (also "warning", "trace"); nullopt otherwise.
std::optional<LogLevel> parseLogLevel(std::string_view name);

/// `text` with what could forge a line or drive a terminal written as escapes: `\n`, `\r`, `\t`, other C0
/// controls, ESC and DEL as `\xNN`, C1 controls (U+0080..U+009F) as `\u00NN`, and each byte that is not
/// valid UTF-8 as `\xNN`. Everything else, backslashes included, is kept as is (so the escaped text is for
/// reading, not for parsing back). Used for log lines and the texts of window/logMessage and showMessage.
std::string escapeForLog(std::string_view text);

class Logger {
public:
  static Logger &instance();
  /// Logs go to `path` (appended) instead of stderr; false if it cannot be opened.
  bool openFile(const std::string &path);
  /// Logs go to stderr again (the file opened last is closed).
  void closeFile();
  void setLevel(LogLevel level) { level_ = level; }
  LogLevel level() const { return level_; }
  bool enabled(LogLevel level) const { return level <= level_; }
  void log(LogLevel level, std::string_view message);

private:
  Logger() = default;
  std::mutex mutex_;
  std::FILE *out_ = stderr;
  LogLevel level_ = LogLevel::Info;
};

inline void logError(std::string_view m) {
  Logger::instance().log(LogLevel::Error, m);
}
inline void logWarn(std::string_view m) {
  Logger::instance().log(LogLevel::Warn, m);
}
inline void logInfo(std::string_view m) {
  Logger::instance().log(LogLevel::Info, m);
}
inline void logDebug(std::string_view m) {
  if (Logger::instance().enabled(LogLevel::Debug)) Logger::instance().log(LogLevel::Debug, m);
}
inline void logVerbose(std::string_view m) {
  if (Logger::instance().enabled(LogLevel::Verbose)) Logger::instance().log(LogLevel::Verbose, m);
}

} // namespace inductor::server
