// Tests for protocol/URI.h: parsing, VS Code style encoding, file and inductor-trace URIs.
#include "protocol/URI.h"

#include <doctest/doctest.h>

using namespace inductor::protocol;

TEST_CASE("fileURI encodes like VS Code") {
  CHECK(fileURI("/tmp/work/model.py") == "file:///tmp/work/model.py");
  CHECK(fileURI("/a b/c#d%e?f") == "file:///a%20b/c%23d%25e%3Ff");
  CHECK(fileURI("/x@y/[z]/a:b") == "file:///x%40y/%5Bz%5D/a%3Ab");
  CHECK(fileURI("/caf\xC3\xA9/\xE4\xB8\xAD.py") == "file:///caf%C3%A9/%E4%B8%AD.py");
  // Unreserved characters stay as they are.
  CHECK(fileURI("/A-z_0.9~") == "file:///A-z_0.9~");
}

TEST_CASE("file paths round-trip through fileURI and filePath") {
  const char *paths[] = {
      "/tmp/work/mlp_train/model.py",
      "/with space/and#hash/100%/what?/x",
      "/user@host/[brackets]/(parens)/a+b=c;d,e&f'g!h*",
      "/caf\xC3\xA9/\xE4\xB8\xAD/\xF0\x9F\x98\x80.py",
      "/",
      "/tmp/torchinductor_root/ab/cabc123.py",
  };
  for (const char *path : paths) {
    CAPTURE(path);
    const std::string uri = fileURI(path);
    // Nothing outside unreserved, '/', ':' and '%' survives encoding.
    CHECK(uri.find_first_of(" #?@[]()+=;,&'!*") == std::string::npos);
    CHECK(filePath(uri) == std::optional<std::string>(path));
  }
}

TEST_CASE("filePath accepts what clients send") {
  CHECK(filePath("file:///tmp/a.py") == std::optional<std::string>("/tmp/a.py"));
  CHECK(filePath("file://localhost/tmp/a.py") == std::optional<std::string>("/tmp/a.py"));
  CHECK(filePath("FILE://LocalHost/tmp/a.py") == std::optional<std::string>("/tmp/a.py"));
  // Lower-case escapes, and characters other encoders leave alone.
  CHECK(filePath("file:///a%3ab/c%c3%a9") == std::optional<std::string>("/a:b/c\xC3\xA9"));
  CHECK(filePath("file:///a:b/@x") == std::optional<std::string>("/a:b/@x"));
  // A '%' that starts no escape is kept literally.
  CHECK(filePath("file:///100%/x%zz%4") == std::optional<std::string>("/100%/x%zz%4"));
  // One slash and no authority.
  CHECK(filePath("file:/tmp/a.py") == std::optional<std::string>("/tmp/a.py"));
  // Query and fragment are not part of the path.
  CHECK(filePath("file:///a.py?x=1#L3") == std::optional<std::string>("/a.py"));
}

TEST_CASE("filePath refuses what is not a local file") {
  CHECK_FALSE(filePath("inductor-trace:/x.log/1/a.py").has_value());
  CHECK_FALSE(filePath("untitled:Untitled-1").has_value());
  CHECK_FALSE(filePath("file://server/share/a.py").has_value());
  CHECK_FALSE(filePath("/tmp/a.py").has_value());
  CHECK_FALSE(filePath("C:\\x\\a.py").has_value());
  CHECK_FALSE(filePath("").has_value());
  CHECK_FALSE(filePath("file:a.py").has_value());
}

TEST_CASE("inductor-trace virtual documents") {
  const std::string uri =
      makeURI("inductor-trace", "/dedicated_log_torch_trace_abc.log/147/0_0_0-forward-output_code.py");
  CHECK(uri == "inductor-trace:/dedicated_log_torch_trace_abc.log/147/0_0_0-forward-output_code.py");
  const std::optional<URI> parsed = parseURI(uri);
  REQUIRE(parsed);
  CHECK(parsed->scheme == "inductor-trace");
  CHECK(parsed->authority == "");
  CHECK(parsed->path == "/dedicated_log_torch_trace_abc.log/147/0_0_0-forward-output_code.py");
  CHECK(parsed->toString() == uri);

  // Awkward log names survive the round trip.
  const std::string path = "/rank 0 #1 [50%]?.log/3/0_1-\xC3\xA9.py";
  const std::string encoded = makeURI("inductor-trace", path);
  CHECK(encoded == "inductor-trace:/rank%200%20%231%20%5B50%25%5D%3F.log/3/0_1-%C3%A9.py");
  REQUIRE(parseURI(encoded));
  CHECK(parseURI(encoded)->path == path);
}

TEST_CASE("parseURI splits every component") {
  const std::optional<URI> uri = parseURI("HTTPS://user%40x@example.com:8080/a%20b/c?q=1%262#frag%20ment");
  REQUIRE(uri);
  CHECK(uri->scheme == "https");
  CHECK(uri->authority == "user@x@example.com:8080");
  CHECK(uri->path == "/a b/c");
  CHECK(uri->query == "q=1&2");
  CHECK(uri->fragment == "frag ment");

  const std::optional<URI> opaque = parseURI("untitled:Untitled-1");
  REQUIRE(opaque);
  CHECK(opaque->scheme == "untitled");
  CHECK(opaque->path == "Untitled-1");
  CHECK(opaque->toString() == "untitled:Untitled-1");

  const std::optional<URI> noPath = parseURI("foo://host");
  REQUIRE(noPath);
  CHECK(noPath->authority == "host");
  CHECK(noPath->path == "");
}

TEST_CASE("parseURI rejects text without a scheme") {
  CHECK_FALSE(parseURI("").has_value());
  CHECK_FALSE(parseURI("/abs/path").has_value());
  CHECK_FALSE(parseURI("relative/path").has_value());
  CHECK_FALSE(parseURI(":nothing").has_value());
  CHECK_FALSE(parseURI("1abc:x").has_value());
  CHECK_FALSE(parseURI("a b:x").has_value());
  CHECK_FALSE(parseURI("c:/windows").has_value());
}

TEST_CASE("URI::toString keeps an authority-less path that starts with //") {
  const URI uri{"xy", "", "//not-an-authority/p", "", ""};
  const std::string text = uri.toString();
  CHECK(text == "xy:////not-an-authority/p");
  REQUIRE(parseURI(text));
  CHECK(*parseURI(text) == uri);
}

TEST_CASE("percentEncode and percentDecode") {
  CHECK(percentEncode("a/b c", /*keepSlash=*/true) == "a/b%20c");
  CHECK(percentEncode("a/b c", /*keepSlash=*/false) == "a%2Fb%20c");
  CHECK(percentEncode(std::string("\0\xFF", 2), true) == "%00%FF");
  CHECK(percentDecode("%00%ff%FF") == std::string("\0\xFF\xFF", 3));
  CHECK(percentDecode("%") == "%");
  CHECK(percentDecode("%4") == "%4");
  CHECK(percentDecode("%g0") == "%g0");
  CHECK(percentDecode("%41%") == "A%");
}

TEST_CASE("every parsed URI serialises back to itself") {
  // Finding 7 of issue 11: "file:x" was written as "file://x", which reads back with authority "x".
  for (const char *text :
       {"file:x", "file:a/b.py", "file:", "file://", "file:///", "file:///a b", "file://h/p",
        "file:////srv/x", "inductor-trace:/log/1/a.py", "sc:", "sc://", "sc:////x", "sc:x?q#f", "sc:%zz%",
        "SC:X", "sc://a%2Fb@c:1/p?q=%23#%25", "file:x?y#z"}) {
    CAPTURE(text);
    std::optional<URI> uri = parseURI(text);
    REQUIRE(uri.has_value());
    CHECK(parseURI(uri->toString()) == uri);
  }
  CHECK(parseURI("file:x")->toString() == "file:x");
  CHECK(parseURI("file:x")->authority.empty());
  CHECK(parseURI("file:///tmp/a")->toString() == "file:///tmp/a");
}
