// Tests of server/text/Markdown.h: the line budget of hovers.
#include "server/text/Markdown.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

using namespace inductor::server;

namespace {

size_t nonBlankLines(const std::string &md) {
  std::istringstream in(md);
  size_t n = 0;
  for (std::string l; std::getline(in, l);)
    n += l.find_first_not_of(" \t") != std::string::npos;
  return n;
}

/// A paragraph of `n` list items named `name`.
std::string paragraph(const std::string &name, size_t n) {
  std::string out = "**" + name + "**";
  for (size_t i = 1; i < n; ++i)
    out += "\n- " + name + " " + std::to_string(i);
  return out;
}

} // namespace

TEST_CASE("withinLineBudget: what fits is kept whole") {
  std::string md = "### title\n\n" + paragraph("a", 3) + "\n\n" + paragraph("b", 4);
  CHECK(withinLineBudget(md, 8) == md);
  CHECK(withinLineBudget(md, 20) == md);
}

TEST_CASE("withinLineBudget: never more than the budget and one line, whatever the paragraphs") {
  // Paragraphs of every size around every budget: the cut lines and the last "… N more lines" included.
  for (size_t budget = 3; budget < 30; ++budget)
    for (size_t size = 1; size < 12; ++size) {
      std::string md = "### kernel\n\nkind · compile";
      for (int p = 0; p < 6; ++p)
        md += "\n\n" + paragraph("p" + std::to_string(p), size + static_cast<size_t>(p));
      std::string out = withinLineBudget(md, budget);
      CAPTURE(budget);
      CAPTURE(size);
      INFO(out);
      CHECK(nonBlankLines(out) <= budget + 1);
      CHECK(out.rfind("### kernel\n\nkind · compile", 0) == 0); // The most important first, kept.
      if (nonBlankLines(md) > budget) CHECK(out.find(" more") != std::string::npos);
    }
}

TEST_CASE("withinLineBudget: a cut paragraph says how many of its lines were left out") {
  std::string md = "### t\n\n" + paragraph("a", 10);
  std::string out = withinLineBudget(md, 6);
  // Heading, then 4 of the paragraph's lines and its "more" line: 6 in all.
  CHECK(nonBlankLines(out) == 6);
  CHECK(out.find("- … 6 more") != std::string::npos);
}
