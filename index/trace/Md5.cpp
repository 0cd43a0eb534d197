// index/trace/Md5.cpp: RFC 1321 MD5, written from the RFC's description (section 3). Little-endian word order
// is handled explicitly so the code does not depend on the host byte order.
#include "index/trace/Md5.h"
#include "index/support/TextLines.h"

#include <algorithm>
#include <cstring>

namespace inductor::index {
namespace {

// T[i] = floor(abs(sin(i + 1)) * 2^32).
constexpr uint32_t kSine[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

inline uint32_t rotl(uint32_t x, uint32_t c) {
  return (x << c) | (x >> (32 - c));
}

inline uint32_t loadLe32(const uint8_t *p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

inline void storeLe32(uint8_t *p, uint32_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
  p[2] = uint8_t(v >> 16);
  p[3] = uint8_t(v >> 24);
}

} // namespace

std::string Md5Digest::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (size_t i = 0; i < 16; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

std::optional<Md5Digest> Md5Digest::fromHex(std::string_view hex) {
  if (hex.size() != 32) return std::nullopt;
  Md5Digest d;
  for (size_t i = 0; i < 16; ++i) {
    int hi = hexValue(hex[2 * i]), lo = hexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    d.bytes[i] = uint8_t(hi << 4 | lo);
  }
  return d;
}

Md5::Md5() : state_{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476} {}

// One step of each round (RFC 1321 3.4), written out so that the compiler sees constant indices and shifts;
// the loop form with a branch per step is about 1.5x slower.
#define INDUCTOR_MD5_STEP(f, a, b, c, d, k, s, t)                                                            \
  a += f(b, c, d) + m[k] + t;                                                                                \
  a = b + rotl(a, s)
#define INDUCTOR_MD5_F(x, y, z) (z ^ (x & (y ^ z)))
#define INDUCTOR_MD5_G(x, y, z) (y ^ (z & (x ^ y)))
#define INDUCTOR_MD5_H(x, y, z) (x ^ y ^ z)
#define INDUCTOR_MD5_I(x, y, z) (y ^ (x | ~z))

void Md5::transform(const uint8_t *block) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i)
    m[i] = loadLe32(block + 4 * i);
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  for (int i = 0; i < 16; i += 4) {
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_F, a, b, c, d, i, 7, kSine[i]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_F, d, a, b, c, i + 1, 12, kSine[i + 1]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_F, c, d, a, b, i + 2, 17, kSine[i + 2]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_F, b, c, d, a, i + 3, 22, kSine[i + 3]);
  }
  for (int i = 16; i < 32; i += 4) {
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_G, a, b, c, d, (5 * i + 1) % 16, 5, kSine[i]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_G, d, a, b, c, (5 * i + 6) % 16, 9, kSine[i + 1]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_G, c, d, a, b, (5 * i + 11) % 16, 14, kSine[i + 2]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_G, b, c, d, a, (5 * i + 16) % 16, 20, kSine[i + 3]);
  }
  for (int i = 32; i < 48; i += 4) {
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_H, a, b, c, d, (3 * i + 5) % 16, 4, kSine[i]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_H, d, a, b, c, (3 * i + 8) % 16, 11, kSine[i + 1]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_H, c, d, a, b, (3 * i + 11) % 16, 16, kSine[i + 2]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_H, b, c, d, a, (3 * i + 14) % 16, 23, kSine[i + 3]);
  }
  for (int i = 48; i < 64; i += 4) {
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_I, a, b, c, d, (7 * i) % 16, 6, kSine[i]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_I, d, a, b, c, (7 * i + 7) % 16, 10, kSine[i + 1]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_I, c, d, a, b, (7 * i + 14) % 16, 15, kSine[i + 2]);
    INDUCTOR_MD5_STEP(INDUCTOR_MD5_I, b, c, d, a, (7 * i + 21) % 16, 21, kSine[i + 3]);
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
}

#undef INDUCTOR_MD5_STEP
#undef INDUCTOR_MD5_F
#undef INDUCTOR_MD5_G
#undef INDUCTOR_MD5_H
#undef INDUCTOR_MD5_I

void Md5::update(std::string_view data) {
  update(data.data(), data.size());
}

void Md5::update(const void *data, size_t size) {
  const auto *p = static_cast<const uint8_t *>(data);
  length_ += size;
  if (buffered_ > 0) {
    size_t take = std::min(size, 64 - buffered_);
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ < 64) return;
    transform(buffer_);
    buffered_ = 0;
  }
  // Whole blocks straight from the input, without copying.
  for (; size >= 64; p += 64, size -= 64)
    transform(p);
  if (size > 0) {
    std::memcpy(buffer_, p, size);
    buffered_ = size;
  }
}

Md5Digest Md5::digest() {
  // Padding: a 1 bit, zeros up to 56 mod 64 bytes, then the message length in bits (RFC 1321 3.1, 3.2).
  uint64_t bitLength = length_ * 8;
  static constexpr uint8_t kPadding[64] = {0x80};
  size_t padLength = buffered_ < 56 ? 56 - buffered_ : 120 - buffered_;
  update(kPadding, padLength);
  uint8_t lengthBytes[8];
  storeLe32(lengthBytes, uint32_t(bitLength));
  storeLe32(lengthBytes + 4, uint32_t(bitLength >> 32));
  update(lengthBytes, 8);
  Md5Digest out;
  for (int i = 0; i < 4; ++i)
    storeLe32(out.bytes.data() + 4 * i, state_[i]);
  return out;
}

Md5Digest Md5::of(std::string_view data) {
  Md5 md5;
  md5.update(data);
  return md5.digest();
}

} // namespace inductor::index
