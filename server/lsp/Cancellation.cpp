#include "server/lsp/Cancellation.h"

#include <algorithm>

namespace inductor::server {

InFlightRequests::Token InFlightRequests::add(const protocol::json &id) {
  Token t;
  t.key = id.dump();
  t.cancelled = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard<std::mutex> lock(mutex_);
  t.cookie = nextCookie_++;
  byId_[t.key].push_back(t);
  return t;
}

void InFlightRequests::remove(const Token &token) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byId_.find(token.key);
  if (it == byId_.end()) return;
  std::erase_if(it->second, [&](const Token &t) { return t.cookie == token.cookie; });
  if (it->second.empty()) byId_.erase(it);
}

size_t InFlightRequests::cancel(const protocol::json &id) {
  if (!id.is_number_integer() && !id.is_string()) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = byId_.find(id.dump());
  if (it == byId_.end()) return 0;
  for (const Token &t : it->second)
    t.cancelled->store(true);
  return it->second.size();
}

void InFlightRequests::cancelAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto &entry : byId_)
    for (const Token &t : entry.second)
      t.cancelled->store(true);
}

size_t InFlightRequests::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto &entry : byId_)
    n += entry.second.size();
  return n;
}

} // namespace inductor::server
