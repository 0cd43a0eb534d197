// Tests for index/trace/Md5.h: RFC 1321 test vectors, block-boundary lengths, streaming in odd pieces.
#include "index/trace/Md5.h"

#include <doctest/doctest.h>

#include <string>

using namespace inductor::index;

namespace {
std::string md5Hex(std::string_view s) {
  return Md5::of(s).hex();
}
} // namespace

TEST_CASE("Md5: RFC 1321 appendix A.5 test suite") {
  CHECK(md5Hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5Hex("a") == "0cc175b9c0f1b6a831c399e269772661");
  CHECK(md5Hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(md5Hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0");
  CHECK(md5Hex("abcdefghijklmnopqrstuvwxyz") == "c3fcd3d76192e4007dfb496cca67e13b");
  CHECK(md5Hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") ==
        "d174ab98d277d9f5a5611c2c9f419d9f");
  CHECK(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890") ==
        "57edf4a22be3c955ac49da2e2107b67a");
}

TEST_CASE("Md5: lengths around the padding boundary (values from Python's hashlib)") {
  CHECK(md5Hex(std::string(55, 'a')) == "ef1772b6dff9a122358552954ad0df65");
  CHECK(md5Hex(std::string(56, 'a')) == "3b0c8ac703f828b04c6c197006d17218");
  CHECK(md5Hex(std::string(63, 'a')) == "b06521f39153d618550606be297466d5");
  CHECK(md5Hex(std::string(64, 'a')) == "014842d480b571495a4a0363793f7367");
  CHECK(md5Hex(std::string(65, 'a')) == "c743a45e0d2e6a95cb859adae0248435");
  CHECK(md5Hex(std::string(1000, 'a')) == "cabe45dcc9ae5b66ba86600cca6b8ba8");
}

TEST_CASE("Md5: streaming in pieces of any size gives the one-shot digest") {
  const std::string input(1000000, 'a');
  for (size_t piece : {1u, 3u, 63u, 64u, 65u, 4096u, 999999u}) {
    CAPTURE(piece);
    Md5 md5;
    for (size_t i = 0; i < input.size(); i += piece)
      md5.update(std::string_view(input).substr(i, piece));
    CHECK(md5.hexdigest() == "7707d6ae4e027c70eea2a935c2296f21");
  }
}

TEST_CASE("Md5Digest: hex round trip, either case; malformed hex is rejected") {
  auto d = Md5Digest::fromHex("D41D8CD98F00B204E9800998ECF8427E");
  REQUIRE(d);
  CHECK(*d == Md5::of(""));
  CHECK(d->hex() == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK_FALSE(Md5Digest::fromHex("d41d8cd98f00b204e9800998ecf8427"));   // 31 characters
  CHECK_FALSE(Md5Digest::fromHex("d41d8cd98f00b204e9800998ecf8427e0")); // 33 characters
  CHECK_FALSE(Md5Digest::fromHex("g41d8cd98f00b204e9800998ecf8427e"));
  CHECK(Md5::of("a") != Md5::of("b"));
}
