// tests/fuzz/FuzzInput.h: helpers shared by the libFuzzer targets: splitting one input into parts, and a
// check that aborts (so libFuzzer records the input) when a property of a parser does not hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace inductor::fuzz {

/// Aborts with a message when `ok` is false: a broken property is a finding, like a crash.
inline void require(bool ok, const char *what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

/// Reads small numbers off the front of an input, the rest being text.
class Input {
public:
  Input(const uint8_t *data, size_t size) : rest_(reinterpret_cast<const char *>(data), size) {}
  uint32_t number(uint32_t max) {
    if (rest_.empty()) return 0;
    uint32_t v = static_cast<unsigned char>(rest_.front());
    rest_.remove_prefix(1);
    if (!rest_.empty() && max > 255) {
      v = v << 8 | static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
    }
    return max == 0 ? 0 : v % (max + 1);
  }
  std::string_view rest() const { return rest_; }

private:
  std::string_view rest_;
};

} // namespace inductor::fuzz
