// bench/LspProcess.h: the real `inductor-ls` binary as a child process, driven over pipes as an editor
// drives it (LSP base protocol: Content-Length frames, through protocol::JSONTransport).
//
// A reader thread decodes every frame the server writes and stamps its arrival time (steady_clock) before
// queueing it, so a request's latency is "frame written" -> "response frame decoded", and does not include
// the hand-over to the measuring thread. Server-to-client requests are answered with null at once.
// Process figures come from /proc/<pid>/{status,io,stat} while the child runs.
//
// Thread-safety: one thread calls the public members; the reader thread only fills the queue.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace inductor::protocol {
class JSONTransport;
}

namespace inductor::bench {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

/// Figures of a running process, from /proc.
struct ProcessFigures {
  uint64_t vmHwmKb = 0, vmRssKb = 0;     ///< /proc/<pid>/status VmHWM, VmRSS.
  uint64_t rssAnonKb = 0, rssFileKb = 0; ///< The parts of VmRSS: heap and stacks; mapped files (the trace).
  uint64_t rchar = 0, readBytes = 0; ///< /proc/<pid>/io: bytes read through read()-like calls, from storage.
  uint64_t minorFaults = 0, majorFaults = 0; ///< /proc/<pid>/stat (mapped pages touched).
  double cpuSeconds = 0;                     ///< /proc/<pid>/stat utime + stime, all threads.
};

class LspProcess {
public:
  /// Starts `binary args...` with stdin/stdout on pipes and stderr to `stderrPath`. Records the start time.
  LspProcess(const std::string &binary, const std::vector<std::string> &args, const std::string &stderrPath);
  ~LspProcess();
  LspProcess(const LspProcess &) = delete;
  LspProcess &operator=(const LspProcess &) = delete;

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  Clock::time_point started() const { return started_; }

  /// Sends a request and waits for its response (the whole message; null on timeout or if the server died).
  /// `latency`, if given, receives the time from writing the frame to decoding the response.
  json request(const std::string &method, json params, std::chrono::milliseconds timeout,
               Clock::duration *latency = nullptr, Clock::time_point *arrived = nullptr);
  void notify(const std::string &method, json params);
  /// shutdown + exit, then waits for the process (killed after `timeout`). Returns the exit status.
  int stop(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  ProcessFigures figures() const;

private:
  void readerLoop();

  pid_t pid_ = -1;
  Clock::time_point started_;
  std::FILE *toServer_ = nullptr, *fromServer_ = nullptr;
  std::unique_ptr<protocol::JSONTransport> transport_;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<int64_t, std::pair<json, Clock::time_point>> responses_;
  bool eof_ = false;
  int64_t nextId_ = 1;
};

} // namespace inductor::bench
