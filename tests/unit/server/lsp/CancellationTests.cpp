// Tests for server/lsp/Cancellation.h: a cancel marks exactly the requests in flight with its id.
#include "server/lsp/Cancellation.h"

#include <doctest/doctest.h>

using namespace inductor::server;
using inductor::protocol::json;

TEST_CASE("InFlightRequests: a request that ends removes its own entry, not another's with the same id") {
  InFlightRequests r;
  // A client used id 7 again while the first request was still held (waiting for the index, queued).
  InFlightRequests::Token first = r.add(7);
  InFlightRequests::Token second = r.add(7);
  CHECK(r.size() == 2);
  // The first ends. Keyed by the id alone (before), this erased the second's entry too, and a cancel sent for
  // the second (still in flight) marked nothing.
  r.remove(first);
  CHECK(r.size() == 1);
  CHECK(r.cancel(7) == 1);
  CHECK(second.cancelled->load());
  CHECK_FALSE(first.cancelled->load()); // It had ended: not touched.
  r.remove(second);
  r.remove(second); // Idempotent.
  CHECK(r.size() == 0);
}

TEST_CASE("InFlightRequests: a late cancel marks nothing, and nothing that comes later") {
  InFlightRequests r;
  InFlightRequests::Token answered = r.add("a");
  r.remove(answered);
  CHECK(r.cancel("a") == 0); // Late: the request was answered.
  InFlightRequests::Token reused = r.add("a");
  CHECK_FALSE(reused.cancelled->load()); // The late cancel left no mark for the next request with the id.
  // Ids are told apart by their JSON: 7 and "7" are different requests.
  InFlightRequests::Token number = r.add(7);
  CHECK(r.cancel("7") == 0);
  CHECK_FALSE(number.cancelled->load());
  // Only integers and strings name a request.
  CHECK(r.cancel(json::array({7})) == 0);
  CHECK(r.cancel(nullptr) == 0);
  CHECK(r.cancel(7) == 1);
  CHECK(number.cancelled->load());
  CHECK_FALSE(reused.cancelled->load());
}
