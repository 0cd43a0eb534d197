// Tests for index/files/ReadPolicy.h: roots, symlinks out of them, component-wise containment, missing files.
#include "index/files/ReadPolicy.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace inductor::index;
using namespace inductor::test;
namespace fs = std::filesystem;

TEST_CASE("isWithin is component-wise") {
  CHECK(isWithin("/work/a/b.py", "/work/a"));
  CHECK(isWithin("/work/a", "/work/a"));
  CHECK_FALSE(isWithin("/work/ab/c.py", "/work/a"));
  CHECK_FALSE(isWithin("/work", "/work/a"));
  CHECK(isWithin("/etc/passwd", "/"));
  CHECK_FALSE(isWithin("/x", ""));
}

TEST_CASE("ReadPolicy: inside the roots only, symlinks judged by their targets") {
  TempDir root, outside;
  fs::create_directories(root.path + "/pkg");
  std::ofstream(root.path + "/pkg/m.py") << "x = 1\n";
  std::ofstream(outside.path + "/secret.txt") << "secret\n";
  fs::create_symlink(outside.path + "/secret.txt", root.path + "/output_code.py");
  fs::create_symlink(root.path + "/pkg/m.py", root.path + "/alias.py");
  fs::create_directory_symlink(outside.path, root.path + "/linked_dir");

  ReadPolicy policy({root.path});
  CHECK(policy.allows(root.path + "/pkg/m.py"));
  CHECK(policy.allows(root.path + "/pkg/../pkg/m.py"));
  CHECK(policy.allows(root.path + "/alias.py"));             // a link whose target is inside
  CHECK_FALSE(policy.allows(root.path + "/output_code.py")); // a link out of the roots
  CHECK_FALSE(policy.allows(root.path + "/linked_dir/secret.txt"));
  CHECK_FALSE(policy.allows(outside.path + "/secret.txt"));
  CHECK_FALSE(policy.allows("/etc/passwd"));
  CHECK_FALSE(policy.allows("/proc/self/environ"));
  CHECK_FALSE(policy.allows(root.path + "/../" + fs::path(outside.path).filename().string() + "/secret.txt"));
  CHECK(policy.allows(root.path + "/not/yet/there.py")); // judged lexically
  CHECK_FALSE(policy.allows(""));

  CHECK(ReadPolicy::allowAll().allows("/etc/passwd"));
  CHECK_FALSE(ReadPolicy(std::vector<std::string>{}).allows(root.path + "/pkg/m.py"));
}

TEST_CASE("ReadPolicy::readListed: no canonicalisation first, but the file opened must be inside") {
  TempDir root, outside;
  std::ofstream(root.path + "/meta.json") << "{}";
  std::ofstream(outside.path + "/secret.txt") << "secret\n";
  fs::create_symlink(outside.path + "/secret.txt", root.path + "/swapped.json");
  fs::create_directory_symlink(outside.path, root.path + "/linked_dir");

  ReadPolicy policy({root.path});
  auto inside = policy.readListed(root.path + "/meta.json", 1024);
  REQUIRE(inside);
  CHECK(*inside == "{}");
  // A listed name swapped for a link out of the roots, and a path through a linked directory: refused by
  // the descriptor's real path, with the same message as read().
  for (const std::string &p : {root.path + "/swapped.json", root.path + "/linked_dir/secret.txt"}) {
    auto refused = policy.readListed(p, 1024);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("outside the workspace folders") != std::string::npos);
  }
  CHECK_FALSE(policy.readListed(outside.path + "/secret.txt", 1024));
  CHECK(ReadPolicy::allowAll().readListed(outside.path + "/secret.txt", 1024));
}
