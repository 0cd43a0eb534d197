// server/lsp/Cancellation.h: the requests in flight, for $/cancelRequest (clangd's cancellation map, keyed by
// the request id plus a cookie). A request is in flight from the moment withIndex accepts it until it is
// answered or dropped unrun; only those are marked by a cancel. JSON-RPC lets a client use an id again once
// its request was answered, and a misbehaving one may even send two requests with one id: each request has
// its own entry (its cookie), so a request that ends removes its own entry and never another's, and a cancel
// marks exactly the requests in flight with that id when it arrives, never one that ended before or comes
// later.
#pragma once

#include "protocol/Json.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace inductor::server {

/// Thread-safe: the reader thread adds and cancels, workers remove.
class InFlightRequests {
public:
  /// One request's entry. `cancelled` is shared with the request, which polls it (before it starts today).
  struct Token {
    std::string key;     ///< The id as JSON text: 7 and "7" are different ids.
    uint64_t cookie = 0; ///< Tells requests with the same id apart.
    std::shared_ptr<std::atomic<bool>> cancelled;
  };
  /// Registers a request with this id (integer or string).
  Token add(const protocol::json &id);
  /// Removes this request's entry (and only it). Idempotent.
  void remove(const Token &token);
  /// Marks every request in flight with this id cancelled; how many were. Ids that are neither integers
  /// nor strings name no request (0).
  size_t cancel(const protocol::json &id);
  /// Marks every request in flight cancelled (at exit: those that have not started are answered
  /// RequestCancelled instead of run).
  void cancelAll();
  /// Requests in flight (for tests).
  size_t size() const;

private:
  mutable std::mutex mutex_;
  uint64_t nextCookie_ = 1;
  std::map<std::string, std::vector<Token>> byId_;
};

} // namespace inductor::server
