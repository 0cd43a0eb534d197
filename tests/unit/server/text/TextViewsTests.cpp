// Tests for server/text/TextViews.h: views of immutable texts kept between requests, and when they go.
#include "server/text/TextViews.h"

#include "index/files/PathResolver.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

using inductor::index::ArtifactId;
using inductor::index::Index;
using inductor::index::IndexOptions;
using inductor::server::TextViewCache;
using inductor::server::TextViews;

namespace {

const std::string kTraces = inductor::index::normalizePath(INDUCTOR_FIXTURES_DIR) + "/traces";

/// The index of a fixture case's trace; each call builds a new one (a new Index::serial).
std::shared_ptr<const Index> build(const std::string &caseName) {
  IndexOptions options;
  options.inputs = {kTraces + "/" + caseName + "/trace"};
  options.jobs = 1;
  return Index::build(options);
}

std::shared_ptr<const std::string> text(std::string s) {
  return std::make_shared<const std::string>(std::move(s));
}

} // namespace

TEST_CASE("TextViews: line table, lines and wrapper analysis of one text, built once") {
  auto owner = text("def f(x):\n    return x\r\n\nz");
  TextViews views(owner, *owner);
  CHECK(views.table().lineCount() == 4);
  CHECK(views.table().lineText(1) == "    return x");
  CHECK(&views.table() == &views.table());
  REQUIRE(views.lines().size() == 4);
  CHECK(views.lines()[0] == "def f(x):");
  CHECK(&views.lines() == &views.lines());
  CHECK(&views.analysis(inductor::index::Language::Python) ==
        &views.analysis(inductor::index::Language::Python));
  CHECK(&views.analysis(inductor::index::Language::Python) !=
        &views.analysis(inductor::index::Language::Cpp));
  CHECK(views.ownerUsesElsewhere() == 1);
  owner.reset();
  CHECK(views.ownerUsesElsewhere() == 0);
  CHECK(views.table().lineText(3) == "z"); // The views hold the text.
}

TEST_CASE("TextViewCache: one views object per owner while the owner is held elsewhere") {
  TextViewCache cache;
  auto a = text("a\nb\n");
  auto first = cache.of(a, *a);
  CHECK(cache.of(a, *a) == first);
  // Many texts come and go (edits make new documents): the ones nobody holds are dropped, held ones stay.
  std::vector<std::shared_ptr<const std::string>> held;
  for (int i = 0; i < 200; ++i) {
    auto t = text("line " + std::to_string(i));
    cache.of(t, *t);
    if (i % 10 == 0) held.push_back(t);
  }
  // What nobody holds goes when the next text comes: the held ones, `a` and the last one remain.
  CHECK(cache.size() == held.size() + 2);
  CHECK(cache.of(a, *a) == first);
  for (const auto &t : held)
    CHECK(cache.of(t, *t)->text() == *t);
  // A views object a request still uses keeps its text even when its owner is gone everywhere else.
  std::shared_ptr<const TextViews> inUse = cache.of(held.back(), *held.back());
  std::string expected = *held.back();
  held.clear();
  a.reset();
  for (int i = 0; i < 300; ++i) {
    auto t = text("more " + std::to_string(i));
    cache.of(t, *t);
  }
  CHECK(inUse->text() == expected);
  CHECK(cache.size() == 3); // The two views still in use here (`first`, `inUse`) and the last one.
}

TEST_CASE("TextViews: relocations kept for the newest index, recomputed for another") {
  auto older = build("mlp_train");
  auto newer = build("mlp_train");
  REQUIRE(newer->serial() > older->serial());
  // A user file the trace recorded lines of: its recorded text, as the file is now.
  std::string path;
  for (const auto &a : newer->artifacts())
    for (const auto &l : a.launches)
      for (const auto &o : l.origins)
        if (path.empty() && !newer->recordedLines(o.path).empty()) path = o.path;
  REQUIRE(!path.empty());
  const auto &recorded = newer->recordedLines(path);
  std::string body;
  for (uint32_t line = 1, i = 0; i < recorded.size(); ++line) {
    if (recorded[i].line == line) {
      body += std::string(recorded[i].code) + "\n";
      while (i < recorded.size() && recorded[i].line == line)
        ++i;
    } else {
      body += "\n";
    }
  }
  auto owner = text("# a line added at the top\n" + body);
  TextViews views(owner, *owner);
  auto kept = views.relocations(*newer, path);
  REQUIRE(kept->size() == recorded.size());
  CHECK((*kept)[0].line == recorded[0].line + 1);
  CHECK(views.relocations(*newer, path) == kept);
  // An older index's request is answered but does not replace the newer's.
  auto old = views.relocations(*older, path);
  CHECK(old != kept);
  REQUIRE(old->size() == kept->size());
  for (size_t i = 0; i < old->size(); ++i)
    CHECK((*old)[i].line == (*kept)[i].line);
  CHECK(views.relocations(*newer, path) == kept);
  CHECK(views.relocations(*newer, "/no/such/file.py")->empty());
}

TEST_CASE("TextViewCache: a log payload's lines are split once per index") {
  auto index = build("multirank");
  std::optional<ArtifactId> logged;
  for (uint32_t i = 0; i < index->artifacts().size() && !logged; ++i)
    if (index->textLinesInLog(ArtifactId{i})) logged = ArtifactId{i};
  REQUIRE(logged);
  TextViewCache cache;
  auto lines = cache.linesInLog(*index, *logged);
  REQUIRE(lines);
  CHECK(*lines == *index->textLinesInLog(*logged));
  CHECK(cache.linesInLog(*index, *logged) == lines);
  auto rebuilt = build("multirank");
  auto again = cache.linesInLog(*rebuilt, *logged);
  CHECK(again != lines);
  CHECK(*again == *lines);
}

TEST_CASE("TextViews::derived: made once per index, found only for the index it was made for") {
  auto older = build("mlp_train");
  auto newer = build("mlp_train");
  auto owner = text("x = 1\n");
  TextViews views(owner, *owner);
  int made = 0;
  auto make = [&] { return ++made; };
  CHECK(views.find<int>(*newer, "k") == nullptr);
  auto first = views.derived<int>(*newer, "k", make);
  CHECK(*first == 1);
  CHECK(views.derived<int>(*newer, "k", make) == first);
  CHECK(views.find<int>(*newer, "k") == first);
  CHECK(*views.derived<int>(*newer, "other", make) == 2);
  // An older index's request gets its own value, not kept; the newer's stays.
  CHECK(*views.derived<int>(*older, "k", make) == 3);
  CHECK(views.find<int>(*older, "k") == nullptr);
  CHECK(views.find<int>(*newer, "k") == first);
  // A newer index than any before drops what was kept.
  auto newest = build("mlp_train");
  CHECK(*views.derived<int>(*newest, "k", make) == 4);
  CHECK(views.find<int>(*newer, "k") == nullptr);
  CHECK(made == 4);
}
