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
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(out_, "%c[%s.%03d] %.*s\n", kLetters[static_cast<int>(level)], stamp, static_cast<int>(ms),
               static_cast<int>(message.size()), message.data());
  std::fflush(out_);
}

} // namespace inductor::server
