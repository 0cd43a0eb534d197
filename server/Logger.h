// server/Logger.h: leveled logging to stderr or a file. Never to stdout, which carries only LSP frames.
// Thread-safe: each line is written under one mutex.
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

class Logger {
public:
  static Logger &instance();
  /// Logs go to `path` (appended) instead of stderr; false if it cannot be opened.
  bool openFile(const std::string &path);
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
