#include "bench/LspProcess.h"

#include "protocol/JsonRpc.h"
#include "protocol/Transport.h"

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace inductor::bench {

LspProcess::LspProcess(const std::string &binary, const std::vector<std::string> &args,
                       const std::string &stderrPath) {
  std::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return;
  }
  std::vector<std::string> all = {binary};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &a : all)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  started_ = Clock::now();
  int rc = posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    pid_ = -1;
    close(in[1]);
    close(out[0]);
    return;
  }
  toServer_ = fdopen(in[1], "w");
  fromServer_ = fdopen(out[0], "r");
  transport_ = std::make_unique<protocol::JSONTransport>(fromServer_, toServer_,
                                                         protocol::JSONTransport::Style::Standard);
  reader_ = std::thread([this] { readerLoop(); });
}

LspProcess::~LspProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  // The child is gone, so the reader sees the end of its output; only then close the streams it uses.
  if (reader_.joinable()) reader_.join();
  if (toServer_) std::fclose(toServer_);
  if (fromServer_) std::fclose(fromServer_);
}

void LspProcess::readerLoop() {
  for (;;) {
    protocol::ReadResult r = transport_->readMessage();
    Clock::time_point now = Clock::now();
    if (r.kind == protocol::ReadResult::Kind::EndOfFile) break;
    if (r.kind == protocol::ReadResult::Kind::Malformed) continue;
    json m = json::parse(r.body, nullptr, false);
    if (m.is_discarded() || !m.is_object()) continue;
    bool hasId = m.contains("id"), hasMethod = m.contains("method");
    if (hasId && hasMethod) {
      transport_->send(protocol::makeResponse(m["id"], nullptr)); // workDoneProgress/create, refresh...
      continue;
    }
    if (!hasId || !m["id"].is_number_integer()) continue; // Notifications: not measured.
    int64_t id = m["id"].get<int64_t>();
    std::lock_guard<std::mutex> lock(mutex_);
    responses_[id] = {std::move(m), now};
    cv_.notify_all();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  eof_ = true;
  cv_.notify_all();
}

json LspProcess::request(const std::string &method, json params, std::chrono::milliseconds timeout,
                         Clock::duration *latency, Clock::time_point *arrived) {
  if (!transport_) return nullptr;
  int64_t id = nextId_++;
  Clock::time_point sent = Clock::now();
  transport_->send(protocol::makeRequest(id, method, std::move(params)));
  std::unique_lock<std::mutex> lock(mutex_);
  if (!cv_.wait_for(lock, timeout, [&] { return eof_ || responses_.count(id); })) return nullptr;
  auto it = responses_.find(id);
  if (it == responses_.end()) return nullptr;
  json out = std::move(it->second.first);
  if (latency) *latency = it->second.second - sent;
  if (arrived) *arrived = it->second.second;
  responses_.erase(it);
  return out;
}

void LspProcess::notify(const std::string &method, json params) {
  if (transport_) transport_->send(protocol::makeNotification(method, std::move(params)));
}

int LspProcess::stop(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  request("shutdown", nullptr, timeout);
  notify("exit", nullptr);
  int status = 0;
  for (auto deadline = Clock::now() + timeout; Clock::now() < deadline;) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return -1;
}

ProcessFigures LspProcess::figures() const {
  ProcessFigures f;
  if (pid_ <= 0) return f;
  std::string base = "/proc/" + std::to_string(pid_);
  std::ifstream status(base + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) f.vmHwmKb = std::strtoull(line.c_str() + 6, nullptr, 10);
    if (line.rfind("VmRSS:", 0) == 0) f.vmRssKb = std::strtoull(line.c_str() + 6, nullptr, 10);
    if (line.rfind("RssAnon:", 0) == 0) f.rssAnonKb = std::strtoull(line.c_str() + 8, nullptr, 10);
    if (line.rfind("RssFile:", 0) == 0) f.rssFileKb = std::strtoull(line.c_str() + 8, nullptr, 10);
  }
  std::ifstream io(base + "/io");
  for (std::string line; std::getline(io, line);) {
    if (line.rfind("rchar:", 0) == 0) f.rchar = std::strtoull(line.c_str() + 6, nullptr, 10);
    if (line.rfind("read_bytes:", 0) == 0) f.readBytes = std::strtoull(line.c_str() + 11, nullptr, 10);
  }
  std::ifstream statFile(base + "/stat");
  std::string stat((std::istreambuf_iterator<char>(statFile)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold blanks) start after the last ')'.
  size_t close = stat.rfind(')');
  if (close != std::string::npos) {
    std::istringstream rest(stat.substr(close + 2));
    std::vector<std::string> fields;
    for (std::string field; rest >> field;)
      fields.push_back(field);
    // rest starts at field 3 (state); minflt is field 10, majflt field 12 (proc(5)).
    if (fields.size() > 12) {
      f.minorFaults = std::strtoull(fields[7].c_str(), nullptr, 10);
      f.majorFaults = std::strtoull(fields[9].c_str(), nullptr, 10);
      // utime and stime are fields 14 and 15, in clock ticks.
      double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
      f.cpuSeconds = static_cast<double>(std::strtoull(fields[11].c_str(), nullptr, 10) +
                                         std::strtoull(fields[12].c_str(), nullptr, 10)) /
                     ticks;
    }
  }
  return f;
}

} // namespace inductor::bench
