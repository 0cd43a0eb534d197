#include "e2e/LSPClient.h"

#include "protocol/Transport.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace inductor::e2e {

namespace {

std::string readWhole(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string lastLines(const std::string &text, size_t lines) {
  size_t pos = text.size();
  size_t seen = 0;
  while (pos > 0) {
    size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    if (nl + 1 < text.size() && ++seen > lines) return text.substr(nl + 1);
    pos = nl;
  }
  return text;
}

std::string languageIdFor(const std::string &path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".py") return "python";
  if (ext == ".cpp" || ext == ".h" || ext == ".hpp" || ext == ".cc") return "cpp";
  return "plaintext";
}

/// file:// URI of an absolute path, percent-encoding everything but RFC 3986 unreserved characters and
/// '/' (what VS Code sends). Written here rather than taken from protocol/URI.h so that the tests check the
/// server's encoding against an independent one.
std::string fileURIOf(const std::string &path) {
  static const char *hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

} // namespace

LSPClient::LSPClient(ServerConfig config) {
  std::signal(SIGPIPE, SIG_IGN); // A server that died must fail the test, not kill the test binary.
  char dirTemplate[] = "/tmp/inductor-e2e-log-XXXXXX";
  if (!mkdtemp(dirTemplate)) {
    FAIL_CHECK("mkdtemp failed: " << std::strerror(errno));
    return;
  }
  logPath_ = std::string(dirTemplate) + "/server.log";
  stderrPath_ = std::string(dirTemplate) + "/server.stderr";

  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    FAIL_CHECK("pipe2 failed: " << std::strerror(errno));
    return;
  }
  std::vector<std::string> args = {INDUCTOR_LS_BINARY, "--log-level", "debug", "--log-file", logPath_};
  if (!config.watch) args.insert(args.begin() + 1, "--no-watch");
  if (config.jobs) {
    args.push_back("--jobs");
    args.push_back(std::to_string(*config.jobs));
  }
  args.push_back("--cache-dir=" + config.cacheDir.value_or(""));
  args.insert(args.end(), config.extraArgs.begin(), config.extraArgs.end());
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, stderrPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int rc = posix_spawn(&pid_, INDUCTOR_LS_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    pid_ = -1;
    close(in[1]);
    close(out[0]);
    FAIL_CHECK("cannot start " << INDUCTOR_LS_BINARY << ": " << std::strerror(rc));
    return;
  }
  toServer_ = fdopen(in[1], "w");
  fromServer_ = fdopen(out[0], "r");
  reader_ = std::thread([this] { readerLoop(); });
}

LSPClient::~LSPClient() {
  if (pid_ > 0) kill();
  if (reader_.joinable()) reader_.join();
  if (toServer_) std::fclose(toServer_);
  if (fromServer_) std::fclose(fromServer_);
  if (!failed_ && !logPath_.empty() && !std::getenv("INDUCTOR_E2E_KEEP_LOGS")) {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(logPath_).parent_path(), ec);
  }
}

void LSPClient::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

void LSPClient::fail(const std::string &what) {
  failed_ = true;
  FAIL_CHECK(what << "\n--- server log tail (" << logPath_ << ") ---\n" << logTail());
  kill();
}

void LSPClient::readerLoop() {
  // The transport never writes here: its output stream is only needed by its constructor.
  protocol::JSONTransport transport(fromServer_, toServer_, protocol::JSONTransport::Style::Standard);
  while (true) {
    protocol::ReadResult r = transport.readMessage();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const std::string &p : r.problems)
        problems_.push_back(p);
    }
    if (r.kind == protocol::ReadResult::Kind::EndOfFile) break;
    if (r.kind == protocol::ReadResult::Kind::Malformed) continue;
    json message = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded() || !message.is_object()) {
      std::lock_guard<std::mutex> lock(mutex_);
      problems_.push_back("frame is not a JSON object: " + r.body.substr(0, 200));
      continue;
    }
    bool hasMethod = message.contains("method");
    bool hasId = message.contains("id");
    if (hasMethod && hasId) {
      // Server->client request: answer null, as an editor that supports it would.
      writeFrame(json{{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", nullptr}}.dump());
      std::lock_guard<std::mutex> lock(mutex_);
      serverRequests_.push_back(std::move(message));
    } else if (hasMethod) {
      std::lock_guard<std::mutex> lock(mutex_);
      notifications_.push_back(std::move(message));
    } else {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!hasId || message["id"].is_null())
        nullIdResponses_.push_back(std::move(message));
      else {
        // Key first: json's by-value operator= would move `message` before the subscript is evaluated.
        std::string key = message["id"].dump();
        responses_[key] = std::move(message);
      }
    }
    cv_.notify_all();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  eof_ = true;
  cv_.notify_all();
}

void LSPClient::writeFrame(const std::string &body, std::optional<size_t> contentLength) {
  std::lock_guard<std::mutex> lock(writeMutex_);
  if (!toServer_) return;
  std::string frame = "Content-Length: " + std::to_string(contentLength.value_or(body.size())) + "\r\n\r\n";
  frame += body;
  std::fwrite(frame.data(), 1, frame.size(), toServer_);
  std::fflush(toServer_);
}

void LSPClient::sendRawFrame(const std::string &body, std::optional<size_t> contentLength) {
  writeFrame(body, contentLength);
}

json LSPClient::waitFor(const json &id, std::chrono::milliseconds timeout, const std::string &what) {
  std::string key = id.dump();
  std::unique_lock<std::mutex> lock(mutex_);
  bool ok = cv_.wait_for(lock, timeout, [&] { return responses_.count(key) || eof_; });
  if (ok && responses_.count(key)) {
    json r = std::move(responses_[key]);
    responses_.erase(key);
    return r;
  }
  bool eof = eof_;
  lock.unlock();
  fail(eof ? "server closed its output while waiting for " + what
           : "timeout (" + std::to_string(timeout.count()) + " ms) waiting for " + what);
  return nullptr;
}

json LSPClient::waitForResponse(const json &id, std::chrono::milliseconds timeout) {
  return waitFor(id, timeout, "the response to id " + id.dump());
}

json LSPClient::waitForNullIdResponse(std::chrono::milliseconds timeout, bool required) {
  std::unique_lock<std::mutex> lock(mutex_);
  bool ok = cv_.wait_for(lock, timeout, [&] { return !nullIdResponses_.empty() || eof_; });
  if (ok && !nullIdResponses_.empty()) {
    json r = std::move(nullIdResponses_.front());
    nullIdResponses_.pop_front();
    return r;
  }
  lock.unlock();
  if (required) fail("no response with a null id arrived");
  return nullptr;
}

json LSPClient::sendRequest(const std::string &method, json params) {
  json id = nextId_++;
  json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  writeFrame(message.dump());
  return id;
}

json LSPClient::requestRaw(const std::string &method, json params, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) {
    fail("request " + method + " after the server stopped");
    return nullptr;
  }
  json id = sendRequest(method, std::move(params));
  return waitFor(id, timeout, method + " (id " + id.dump() + ")");
}

json LSPClient::request(const std::string &method, json params, std::chrono::milliseconds timeout) {
  json params_ = params;
  json response = requestRaw(method, std::move(params), timeout);
  if (response.is_null()) return nullptr;
  if (response.contains("error")) {
    failed_ = true;
    FAIL_CHECK(method << " " << params_.dump() << " answered an error: " << response["error"].dump()
                      << "\n--- server log tail ---\n"
                      << logTail());
    return nullptr;
  }
  if (!response.contains("result")) {
    failed_ = true;
    FAIL_CHECK(method << " answered neither result nor error: " << response.dump());
    return nullptr;
  }
  return response["result"];
}

void LSPClient::notify(const std::string &method, json params) {
  json message = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  writeFrame(message.dump());
}

json LSPClient::defaultCapabilities() {
  return json{{"window", {{"workDoneProgress", true}}},
              {"workspace", {{"codeLens", {{"refreshSupport", true}}}, {"symbol", json::object()}}},
              {"textDocument",
               {{"hover", {{"contentFormat", {"markdown", "plaintext"}}}},
                {"documentSymbol", {{"hierarchicalDocumentSymbolSupport", true}}},
                {"definition", {{"linkSupport", false}}},
                {"codeLens", json::object()}}}};
}

json LSPClient::initialize(const std::string &rootDir, json initializationOptions, json capabilities,
                           std::chrono::milliseconds timeout) {
  std::string uri = fileURIOf(rootDir);
  json params = {{"processId", static_cast<int64_t>(getpid())},
                 {"clientInfo", {{"name", "inductor-ls-e2e"}, {"version", "1"}}},
                 {"rootUri", uri},
                 {"workspaceFolders", json::array({{{"uri", uri}, {"name", "workspace"}}})},
                 {"capabilities", std::move(capabilities)}};
  if (!initializationOptions.is_null()) params["initializationOptions"] = std::move(initializationOptions);
  json result = request("initialize", std::move(params), timeout);
  notify("initialized", json::object());
  return result;
}

std::string LSPClient::didOpen(const std::string &path) {
  std::string uri = fileURIOf(path);
  if (!std::filesystem::exists(path)) {
    failed_ = true;
    FAIL_CHECK("didOpen: no such file " << path);
  }
  didOpen(uri, languageIdFor(path), readWhole(path));
  return uri;
}

void LSPClient::didOpen(const std::string &uri, const std::string &languageId, const std::string &text) {
  notify("textDocument/didOpen",
         {{"textDocument", {{"uri", uri}, {"languageId", languageId}, {"version", 1}, {"text", text}}}});
}

void LSPClient::shutdown(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) {
    fail("shutdown: the server is not running");
    return;
  }
  json response = requestRaw("shutdown", nullptr, timeout);
  if (pid_ <= 0) return; // requestRaw failed and killed it.
  CHECK_MESSAGE(response.contains("result"), "shutdown answered " << response.dump());
  if (response.contains("result")) CHECK(response["result"].is_null());
  notify("exit", nullptr);
  int code = waitForExit(timeout);
  if (code != 0) failed_ = true;
  CHECK_MESSAGE(code == 0, "server exit code " << code << " (want 0)\n" << logTail());
  auto problems = protocolProblems();
  if (!problems.empty()) failed_ = true;
  CHECK_MESSAGE(problems.empty(), "non-LSP output on stdout: " << json(problems).dump());
}

int LSPClient::waitForExit(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  {
    std::lock_guard<std::mutex> lock(writeMutex_);
    if (toServer_) std::fclose(toServer_);
    toServer_ = nullptr;
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(pid_, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  if (done != pid_) {
    fail("the server did not exit within " + std::to_string(timeout.count()) + " ms");
    return -1;
  }
  pid_ = -1;
  if (reader_.joinable()) reader_.join();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<json> LSPClient::notifications(const std::string &method) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (method.empty()) return notifications_;
  std::vector<json> out;
  for (const json &n : notifications_)
    if (n.value("method", "") == method) out.push_back(n.contains("params") ? n["params"] : json());
  return out;
}

json LSPClient::waitForNotification(const std::string &method, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto has = [&] {
    for (const json &n : notifications_)
      if (n.value("method", "") == method) return true;
    return eof_;
  };
  cv_.wait_for(lock, timeout, has);
  for (const json &n : notifications_)
    if (n.value("method", "") == method) return n.contains("params") ? n["params"] : json::object();
  return nullptr;
}

json LSPClient::waitForIndexed(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto find = [&]() -> const json * {
    for (const json &n : notifications_)
      if (n.value("method", "") == "inductor/status" && n.contains("params") &&
          n["params"].value("indexing", true) == false)
        return &n["params"];
    return nullptr;
  };
  cv_.wait_for(lock, timeout, [&] { return find() || eof_; });
  const json *p = find();
  return p ? *p : json();
}

json LSPClient::waitForIndexedAfter(size_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto find = [&]() -> const json * {
    size_t n = 0;
    for (const json &m : notifications_) {
      if (m.value("method", "") != "inductor/status" || !m.contains("params")) continue;
      if (n++ >= seen && m["params"].value("indexing", true) == false) return &m["params"];
    }
    return nullptr;
  };
  cv_.wait_for(lock, timeout, [&] { return find() || eof_; });
  const json *p = find();
  return p ? *p : json();
}

json LSPClient::waitForServerRequest(const std::string &method, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto find = [&]() -> const json * {
    for (const json &r : serverRequests_)
      if (r.value("method", "") == method) return &r;
    return nullptr;
  };
  cv_.wait_for(lock, timeout, [&] { return find() || eof_; });
  const json *r = find();
  return r ? *r : json();
}

std::vector<json> LSPClient::serverRequests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return serverRequests_;
}

std::vector<std::string> LSPClient::protocolProblems() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return problems_;
}

std::string LSPClient::logTail(size_t lines) const {
  std::string out = lastLines(readWhole(logPath_), lines);
  std::string err = readWhole(stderrPath_);
  if (!err.empty()) out += "--- stderr ---\n" + lastLines(err, 20);
  return out;
}

} // namespace inductor::e2e
