// libFuzzer target: LSP base-protocol framing (protocol/Transport.h, JSONTransport) in both styles, over any
// byte stream. Properties: every read ends (EndOfFile is reached and sticky), bodies respect the cap,
// problems stay bounded.
#include "FuzzInput.h"
#include "protocol/Transport.h"

#include <cstdio>

using namespace inductor;
using namespace inductor::protocol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  for (auto style : {JSONTransport::Style::Standard, JSONTransport::Style::Delimited}) {
    std::FILE *in = fmemopen(const_cast<uint8_t *>(data), size, "r");
    if (!in) return 0;
    std::FILE *out = std::fopen("/dev/null", "w");
    JSONTransport transport(in, out, style);
    size_t reads = 0;
    for (;;) {
      ReadResult r = transport.readMessage();
      fuzz::require(++reads <= size + 2, "every read consumes input");
      fuzz::require(r.body.size() <= JSONTransport::kMaxMessageBytes, "bodies respect the cap");
      fuzz::require(r.problems.size() <= 16, "problems are bounded");
      if (r.kind == ReadResult::Kind::Message) transport.send(json{{"echo", r.body.size()}});
      if (r.kind == ReadResult::Kind::EndOfFile) break;
    }
    fuzz::require(transport.readMessage().kind == ReadResult::Kind::EndOfFile, "EndOfFile is sticky");
    std::fclose(in);
    std::fclose(out);
  }
  return 0;
}
