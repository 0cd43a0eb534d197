// A protocol::Transport for in-process server tests: the test feeds it messages and waits for what the
// server sends, so that no test sleeps.
#pragma once

#include "protocol/Transport.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace inductor::test {

/// A Transport fed by the test. readMessage() blocks until a message is pushed or the input is closed, then
/// returns it (EndOfFile once closed and drained); send() records the message and wakes anyone waiting for
/// it. Thread-safe, as every Transport.
class FakeTransport final : public protocol::Transport {
public:
  using json = protocol::json;
  using Match = std::function<bool(const json &)>;

  /// How long waitFor waits: a bound for a machine that is slow or loaded, never reached when all goes well.
  static constexpr std::chrono::seconds kTimeout{120};

  protocol::ReadResult readMessage() override {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return !incoming_.empty() || closed_; });
    protocol::ReadResult r;
    if (incoming_.empty()) {
      r.kind = protocol::ReadResult::Kind::EndOfFile;
      return r;
    }
    r.kind = protocol::ReadResult::Kind::Message;
    r.body = std::move(incoming_.front());
    incoming_.pop_front();
    return r;
  }
  void send(const json &message) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (hold_ == Hold::Armed && message.contains("id") && !message.contains("method")) {
      // The response holdNextResponse() asked for: its sender waits here, as on a client that does not read.
      hold_ = Hold::Holding;
      cv_.notify_all();
      cv_.wait(lock, [&] { return hold_ == Hold::Released; });
    }
    sent_.push_back(message);
    cv_.notify_all();
  }

  /// The next response sent (a message with an id and no method) blocks its sender in send() until
  /// release(): a request that is running, for tests of what is in flight.
  void holdNextResponse() {
    std::lock_guard<std::mutex> lock(mutex_);
    hold_ = Hold::Armed;
  }
  /// Waits until a sender is held in send(); false after kTimeout.
  bool waitHolding() {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, kTimeout, [&] { return hold_ == Hold::Holding; });
  }
  /// Lets the held sender go (and any later response through).
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    hold_ = Hold::Released;
    cv_.notify_all();
  }

  /// Queues one message body (JSON text) for readMessage().
  void push(std::string body) {
    std::lock_guard<std::mutex> lock(mutex_);
    incoming_.push_back(std::move(body));
    cv_.notify_all();
  }
  /// Ends the input: readMessage() returns EndOfFile once the queued messages are read.
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    cv_.notify_all();
  }

  /// The first message sent at index `from` or later that `match` accepts, and its index (for a later wait
  /// to start after it); {null, 0} after kTimeout without one.
  std::pair<json, size_t> waitForAt(const Match &match, size_t from = 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::pair<json, size_t> found;
    cv_.wait_for(lock, kTimeout, [&] {
      for (size_t i = from; i < sent_.size(); ++i)
        if (match(sent_[i])) {
          found = {sent_[i], i};
          return true;
        }
      return false;
    });
    return found;
  }
  /// The message of waitForAt: null after kTimeout without one.
  json waitFor(const Match &match, size_t from = 0) { return waitForAt(match, from).first; }

  /// Everything sent so far, in order.
  std::vector<json> sent() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return sent_;
  }

private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> incoming_;
  bool closed_ = false;
  std::vector<json> sent_;
  enum class Hold { None, Armed, Holding, Released } hold_ = Hold::None;
};

} // namespace inductor::test
