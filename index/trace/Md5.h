// index/trace/Md5.h: MD5 (RFC 1321), used only to check TORCH_TRACE payloads against the `has_payload` digest
// that torch/_logging/_internal.py (trace_structured) writes:
// hashlib.md5(payload.encode("utf-8")).hexdigest(). MD5 is not used for anything security related here; it is
// an integrity check against truncated or edited logs. Implemented in-house (about 150 lines) to avoid a
// crypto dependency.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace inductor::index {

/// A 128-bit MD5 digest, in the byte order of the hex digest.
struct Md5Digest {
  std::array<uint8_t, 16> bytes{};

  /// 32 lowercase hex characters, as Python's hexdigest().
  std::string hex() const;
  /// Parses 32 hex characters (either case); nullopt for anything else.
  static std::optional<Md5Digest> fromHex(std::string_view hex);

  friend bool operator==(const Md5Digest &, const Md5Digest &) = default;
};

/// Streaming MD5: call update() any number of times with consecutive pieces, then digest() once. Not
/// thread-safe; one instance per computation.
class Md5 {
public:
  Md5();
  void update(std::string_view data);
  void update(const void *data, size_t size);
  /// Finishes the computation. The object must not be updated afterwards.
  Md5Digest digest();
  std::string hexdigest() { return digest().hex(); }

  /// One-shot helper: the digest of `data`.
  static Md5Digest of(std::string_view data);

private:
  void transform(const uint8_t *block);

  uint32_t state_[4];
  uint64_t length_ = 0; // Bytes consumed so far.
  uint8_t buffer_[64];
  size_t buffered_ = 0;
};

} // namespace inductor::index
