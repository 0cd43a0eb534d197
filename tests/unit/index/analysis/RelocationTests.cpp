// Tests for index/analysis/Relocation.h: recorded lines found again in edited sources and other library
// versions.
#include "index/analysis/Relocation.h"

#include <doctest/doctest.h>

#include <string>

using namespace inductor::index;
using Status = Relocation::Status;

namespace {

// The model of the mlp_train fixture, as the trace recorded it (lines 14-17 and 28-29).
const std::string kModel = R"(import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.norm(x)
        h = F.gelu(self.fc1(h))
        h = self.fc2(h)
        return x + h


class MLP(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return torch.softmax(self.head(x), dim=-1)
)";

std::vector<RecordedLine> recorded() {
  return {{14, "h = self.norm(x)", "forward"},
          {15, "h = F.gelu(self.fc1(h))", "forward"},
          {16, "h = self.fc2(h)", "forward"},
          {28, "x = blk(x)", "forward"},
          {29, "return torch.softmax(self.head(x), dim=-1)", "forward"}};
}

std::vector<uint32_t> lines(const std::vector<Relocation> &r) {
  std::vector<uint32_t> out;
  for (const Relocation &x : r)
    out.push_back(x.found() ? x.line : 0);
  return out;
}

std::string insertAfter(std::string text, const std::string &anchor, const std::string &what) {
  size_t pos = text.find(anchor);
  REQUIRE(pos != std::string::npos);
  pos = text.find('\n', pos) + 1;
  return text.insert(pos, what);
}

} // namespace

TEST_CASE("Relocation: an unchanged file") {
  TextLines l = splitLines(kModel);
  auto r = relocateLines(l, recorded());
  CHECK(lines(r) == std::vector<uint32_t>{14, 15, 16, 28, 29});
  for (const Relocation &x : r)
    CHECK(x.status == Status::Unchanged);
}

TEST_CASE("Relocation: lines inserted above and inside functions") {
  std::string text = "# a comment\n# another\n" + kModel;
  text = insertAfter(text, "h = self.norm(x)", "        # the MLP part\n        h = h * 1.0\n");
  TextLines l = splitLines(text);
  auto r = relocateLines(l, recorded());
  CHECK(lines(r) == std::vector<uint32_t>{16, 19, 20, 32, 33});
  CHECK(r[0].status == Status::Moved);
  CHECK(l[r[1].line - 1].find("F.gelu") != std::string_view::npos);
  // Indentation changes do not matter (compared trimmed).
  std::string reindented = kModel;
  reindented.replace(reindented.find("        h = F.gelu"), 8, "            ");
  TextLines l2 = splitLines(reindented);
  CHECK(relocateLine(l2, recorded()[1]).status == Status::Unchanged);
  // Nor do comments: one added at the end of the line, or recorded with it.
  std::string commented = insertAfter(kModel, "h = self.norm(x)", "");
  commented.replace(commented.find("h = F.gelu(self.fc1(h))"), 23, "h = F.gelu(self.fc1(h))  # 'GELU' #2");
  TextLines l3 = splitLines(commented);
  CHECK(relocateLine(l3, recorded()[1]).status == Status::Unchanged);
  CHECK(relocateLine(l, {19, "h = F.gelu(self.fc1(h))  # was relu", "forward"}).line == 19);
  // A `#` inside a string is not a comment.
  CHECK(relocateLine(splitLines("x = '#a'\n"), {1, "x = '#b'", ""}).status == Status::NotFound);
}

TEST_CASE("Relocation: a deleted line is not found, never another line") {
  std::string text = kModel;
  size_t pos = text.find("        h = F.gelu(self.fc1(h))\n");
  text.erase(pos, std::string("        h = F.gelu(self.fc1(h))\n").size());
  TextLines l = splitLines(text);
  auto r = relocateLines(l, recorded());
  CHECK(r[1].status == Status::NotFound);
  CHECK(r[1].line == 0);
  CHECK(lines(r) == std::vector<uint32_t>{14, 0, 15, 27, 28});
  // The same text elsewhere, in another function, is another statement.
  text = insertAfter(text, "self.head = nn.Linear(d, 10)", "        h = F.gelu(self.fc1(h))\n");
  TextLines l3 = splitLines(text);
  CHECK(relocateLines(l3, recorded())[1].status == Status::NotFound);
}

TEST_CASE("Relocation: the same statement in several functions, another version of a library") {
  // Two classes with identical `forward` lines, as in transformers; the second moved by 3 lines.
  std::string lib = R"(class A:
    def forward(self, h):
        h = self.dense(h)
        h = self.act(h)
        return h

class B:
    def forward(self, h):
        h = self.dense(h)
        h = self.dropout(h)
        return h
)";
  std::vector<RecordedLine> rec{{3, "h = self.dense(h)", "forward"},
                                {9, "h = self.dense(h)", "forward"},
                                {10, "h = self.dropout(h)", "forward"}};
  TextLines same = splitLines(lib);
  CHECK(lines(relocateLines(same, rec)) == std::vector<uint32_t>{3, 9, 10});
  std::string newer = insertAfter(lib, "class B:", "    \"\"\"B.\n\nA docstring.\n\"\"\"\n");
  TextLines l = splitLines(newer);
  auto r = relocateLines(l, rec);
  // The recorded line 9 is B's: the unique dropout line (an anchor) says B moved down by 4, so it is at 13,
  // not at A's line 3, which holds the same text.
  CHECK(lines(r) == std::vector<uint32_t>{3, 13, 14});
  CHECK(r[1].status == Status::Moved);
  // Alone (no anchors), the nearest candidate wins.
  CHECK(relocateLine(l, rec[1]).line == 13);
}

TEST_CASE("Relocation: multi-line signatures and strings stay inside their function") {
  std::string lib = R"(class Attention:
    def forward(
        self,
        hidden_states,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Docs.

Dedented text.
"""
        q = self.q_proj(hidden_states)
        return q

    def other(self):
        q = self.q_proj(hidden_states)
)";
  TextLines l = splitLines(lib);
  CHECK(relocateLine(l, {10, "q = self.q_proj(hidden_states)", "forward"}).status == Status::Unchanged);
  std::string moved = insertAfter(lib, "Dedented text.", "\n\n");
  TextLines m = splitLines(moved);
  Relocation r = relocateLine(m, {10, "q = self.q_proj(hidden_states)", "forward"});
  CHECK(r.status == Status::Moved);
  CHECK(r.line == 12);
}

TEST_CASE("Relocation: without recorded text, and with functions the file no longer defines") {
  TextLines l = splitLines(kModel);
  CHECK(relocateLine(l, {14, "", "forward"}).status == Status::Unverified);
  CHECK(relocateLine(l, {14, "", "forward"}).line == 14);
  CHECK(relocateLine(l, {400, "", "forward"}).status == Status::NotFound);
  CHECK(relocateLine(l, {400, "h = self.norm(x)", "forward"}).line == 14);
  // A renamed function: candidates anywhere.
  CHECK(relocateLine(l, {3, "h = self.norm(x)", "old_forward"}).line == 14);
  CHECK(relocateLine(l, {3, "h = self.norm(x)", "<module>"}).line == 14);
  CHECK(relocateLines(l, {}).empty());
  CHECK(relocateLine({}, {1, "x", "f"}).status == Status::NotFound);
}
