// Tests of index/analysis/TritonIR.h: PTX `.loc`, MLIR `loc(...)` and LLVM `!DILocation` line tables, on
// inline snippets and on every IR file of the kernel_ir fixture (oracles parse the text their own way).
#include "index/analysis/TritonIR.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

using namespace inductor::index;
using inductor::test::readFile;

namespace {

const std::filesystem::path kTritonCache =
    std::filesystem::path(INDUCTOR_FIXTURES_DIR) / "traces/kernel_ir/inductor_cache/triton/0";

std::vector<std::filesystem::path> fixtureFiles(std::string_view ext) {
  std::vector<std::filesystem::path> out;
  for (auto &d : std::filesystem::directory_iterator(kTritonCache))
    for (auto &f : std::filesystem::directory_iterator(d.path()))
      if (f.path().extension() == ext) out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("TritonIR: PTX .loc lines, .file after the function, inlined chains in comments") {
  std::string ptx = ".version 8.4\n"                                                     // 0
                    ".visible .entry k(\n"                                               // 1
                    "\t.param .u64 k_param_0\n"                                          // 2
                    ")\n"                                                                // 3
                    "{\n"                                                                // 4
                    "\t.reg .b32 %r<3>;\n"                                               // 5
                    "\t.loc\t1 18 0\n"                                                   // 6
                    "$L__func_begin0:\n"                                                 // 7
                    "\t.loc\t1 20 28 // c.py:20:28\n"                                    // 8
                    "\tmov.u32 %r1, %ctaid.x;\n"                                         // 9
                    "\t// begin inline asm\n"                                            // 10
                    "\t@%p1 st.global.b32 [ %rd1 + 0 ], { %r1 };\n"                      // 11
                    "\t.loc\t2 116 15 // h.py:116:15 @[ h.py:129:29 @[ c.py:38:37 ] ]\n" // 12
                    "\tmax.f32 %r2, %r1, %r1;\n"                                         // 13
                    "\tret;\n"                                                           // 14
                    "}\n"                                                                // 15
                    "\t.file\t1 \"/cache/xy/c.py\"\n"                                    // 16
                    "\t.file\t2 \"/site/h.py\"\n";                                       // 17
  IrLineMap m = parsePtx(ptx);
  REQUIRE(m.files.size() == 2);
  CHECK(m.files[0] == "/cache/xy/c.py");
  REQUIRE(m.functions.size() == 1);
  CHECK(m.functions[0].name == "k");
  CHECK(m.functions[0].line == 1);
  CHECK(m.functions[0].endLine == 15);
  uint32_t c = *m.fileNamed("c.py");
  CHECK(m.linesOf(c, 20) == std::vector<uint32_t>{9, 11});
  // The inlined helper's instruction belongs to the kernel line that called it.
  CHECK(m.linesOf(c, 38) == std::vector<uint32_t>{13, 14});
  CHECK_FALSE(m.locationAt(5));
  CHECK_FALSE(m.locationAt(7));
  CHECK_FALSE(m.locationAt(16));
  // A `.loc` line is where it says (the kernel line, for an inlined chain), but no instruction of it.
  REQUIRE(m.locationAt(8));
  CHECK(*m.locationAt(8) == IrLocation{c, 20, 28});
  REQUIRE(m.locationAt(12));
  CHECK(*m.locationAt(12) == IrLocation{c, 38, 37});
  REQUIRE(m.locationAt(6));
  CHECK(m.locationAt(6)->line == 18);
  CHECK(m.lineCount == 18);
  CHECK(m.error.empty());
}

TEST_CASE("TritonIR: MLIR aliases, names, call sites and fused locations") {
  std::string mlir = "#loc = loc(\"/c.py\":18:0)\n"                                // 0
                     "module {\n"                                                  // 1
                     "  tt.func public @k(%a: i32 loc(\"a\"(#loc))) {\n"           // 2
                     "    %0 = arith.constant 1 : i32 loc(#loc2)\n"                // 3
                     "    %1 = arith.addi %0, %0 : i32 loc(#loc5)\n"               // 4
                     "    %2 = arith.addi %1, %0 : i32 loc(fused[#loc1, #loc2])\n" // 5
                     "    tt.return loc(\"/c.py\":30:4)\n"                         // 6
                     "  } loc(#loc)\n"                                             // 7
                     "} loc(#loc)\n"                                               // 8
                     "#loc1 = loc(\"/c.py\":20:28)\n"
                     "#loc2 = loc(\"x\"(#loc1))\n"
                     "#loc3 = loc(\"/h.py\":116:15)\n"
                     "#loc4 = loc(\"/c.py\":38:37)\n"
                     "#loc5 = loc(callsite(#loc3 at #loc4))\n"
                     "#loc6 = loc(#loc7)\n"
                     "#loc7 = loc(#loc6)\n";
  IrLineMap m = parseMlir(mlir);
  REQUIRE(m.functions.size() == 1);
  CHECK(m.functions[0].name == "k");
  uint32_t c = *m.fileNamed("c.py");
  CHECK(m.linesOf(c, 20) == std::vector<uint32_t>{3, 5});
  CHECK(m.linesOf(c, 38) == std::vector<uint32_t>{4});
  CHECK(m.linesOf(c, 30) == std::vector<uint32_t>{6});
  CHECK_FALSE(m.locationAt(7));
  CHECK_FALSE(m.fileNamed("h.py").has_value()); // Only the call site was needed.
}

TEST_CASE("TritonIR: LLVM !DILocation through scopes and inlinedAt") {
  std::string ll = "define void @k(ptr %0) !dbg !4 {\n" // 0
                   "  %2 = add i32 1, 2, !dbg !7\n"     // 1
                   "  %3 = add i32 1, 2, !dbg !9\n"     // 2
                   "  ret void, !dbg !7\n"              // 3
                   "}\n"                                // 4
                   "!1 = !DIFile(filename: \"c.py\", directory: \"/cache/xy\")\n"
                   "!2 = !DIFile(filename: \"h.py\", directory: \"/site\")\n"
                   "!4 = distinct !DISubprogram(name: \"k\", scope: !1, file: !1, line: 18)\n"
                   "!5 = distinct !DISubprogram(name: \"max\", scope: !2, file: !2, line: 100)\n"
                   "!7 = !DILocation(line: 20, column: 28, scope: !4)\n"
                   "!8 = !DILocation(line: 38, column: 37, scope: !4)\n"
                   "!9 = !DILocation(line: 116, column: 15, scope: !5, inlinedAt: !8)\n";
  IrLineMap m = parseLlir(ll);
  REQUIRE(m.functions.size() == 1);
  CHECK(m.functions[0].name == "k");
  CHECK(m.functions[0].endLine == 4);
  uint32_t c = *m.fileNamed("c.py");
  CHECK(m.files[c] == "/cache/xy/c.py");
  CHECK(m.linesOf(c, 20) == std::vector<uint32_t>{1, 3});
  CHECK(m.linesOf(c, 38) == std::vector<uint32_t>{2});
}

TEST_CASE("TritonIR: malformed input never crashes") {
  for (std::string_view s :
       {"", "\t.loc 1\n", ".entry (\n{\n\t.loc 9 9 9\n\tadd;\n", "#loc1 = loc(#loc1)\nx loc(#loc1)\n",
        "x loc(callsite(#loc1 at \n", "!7 = !DILocation(line: , scope: !7, inlinedAt: !7)\nx, !dbg !7\n",
        "x loc(\"f\":\n", "x loc(fused[\n"}) {
    for (size_t s2 = 0; s2 < kTritonStages; ++s2) {
      IrLineMap m = parseTritonIr(static_cast<TritonStage>(s2), s);
      CHECK(std::is_sorted(m.code.begin(), m.code.end(),
                           [](const IrCodeLine &a, const IrCodeLine &b) { return a.line < b.line; }));
    }
  }
}

TEST_CASE("TritonIR: every PTX of kernel_ir, against a parse of its own") {
  auto files = fixtureFiles(".ptx");
  REQUIRE(files.size() >= 10);
  for (const auto &path : files) {
    std::string text = readFile(path);
    IrLineMap m = parsePtx(text);
    INFO(path.string());
    // Oracle: the `.file` table, then every instruction line inside the function body is attributed to the
    // last `.loc` before it, or, when the `.loc`'s comment has an inlined chain, to its innermost `@[ f:l:c`.
    std::map<int, std::string> fileTable;
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
      lines.push_back(l);
    std::regex fileRe(R"(^\s*\.file\s+(\d+)\s+\"([^\"]+)\")"), locRe(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+))"),
        chainRe(R"(@\[ ([^ :]+):(\d+):(\d+))");
    for (const auto &l : lines) {
      std::smatch sm;
      if (std::regex_search(l, sm, fileRe)) fileTable[std::stoi(sm[1])] = sm[2];
    }
    std::map<std::pair<std::string, int>, std::vector<uint32_t>> expected; // (file name, line) -> ptx lines
    bool body = false;
    std::pair<std::string, int> current{"", 0};
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string &l = lines[i];
      if (l == "{") body = true;
      if (l == "}") body = false;
      if (!body || l == "{") continue;
      std::smatch sm;
      if (std::regex_search(l, sm, locRe)) {
        std::string f = fileTable[std::stoi(sm[1])];
        current = {f.substr(f.rfind('/') + 1), std::stoi(sm[2])};
        std::string rest = l;
        std::smatch cm;
        while (std::regex_search(rest, cm, chainRe)) {
          current = {cm[1], std::stoi(cm[2])};
          rest = cm.suffix();
        }
        continue;
      }
      size_t b = l.find_first_not_of(" \t");
      if (b == std::string::npos) continue;
      char c0 = l[b];
      if (c0 == '.' || c0 == '/' || c0 == '{' || c0 == '}' || c0 == '$') continue;
      expected[current].push_back(static_cast<uint32_t>(i));
    }
    REQUIRE(!expected.empty());
    size_t total = 0, found = 0;
    for (const auto &entry : expected) {
      // Not a structured binding: clang 14 cannot capture one in doctest's CHECK_MESSAGE.
      const auto &key = entry.first;
      const auto &want = entry.second;
      if (key.first.empty() || key.second == 0) continue; // Line 0: code of no line (LLVM's convention).
      auto file = m.fileNamed(key.first);
      REQUIRE(file);
      std::vector<uint32_t> got = m.linesOf(*file, static_cast<uint32_t>(key.second));
      total += want.size();
      for (uint32_t g : got) {
        bool in = std::find(want.begin(), want.end(), g) != want.end();
        CHECK_MESSAGE(in, "line " << g + 1 << " attributed to " << key.first << ":" << key.second);
        found += in;
      }
    }
    CHECK(found == total);
    REQUIRE(m.functions.size() == 1);
    CHECK(path.stem().string() == m.functions[0].name); // `.extern .func __assertfail` is no function here.
  }
}

TEST_CASE("TritonIR: TTIR, TTGIR and LLIR of kernel_ir map into the kernel's file") {
  for (std::string_view ext : {".ttir", ".ttgir", ".llir", ".source"}) {
    for (const auto &path : fixtureFiles(ext)) {
      INFO(path.string());
      std::string text = readFile(path);
      auto stage = tritonStageOfExtension(ext.substr(1));
      REQUIRE(stage);
      IrLineMap m = parseTritonIr(*stage, text);
      REQUIRE(!m.files.empty());
      // The kernel, and in the first stage (`.source`) the helpers it calls, not yet inlined.
      auto kernel = std::find_if(m.functions.begin(), m.functions.end(),
                                 [&](const IrFunction &f) { return f.name == path.stem().string(); });
      REQUIRE(kernel != m.functions.end());
      if (ext != ".source") CHECK(m.functions.size() == 1);
      // Every located line of the kernel maps into the kernel's own file (inlined helpers map to their call
      // site); the kernel file is the one the function's own location names.
      size_t located = 0;
      std::optional<uint32_t> kernelFile;
      for (uint32_t i = kernel->line; i <= kernel->endLine; ++i) {
        std::optional<IrLocation> at = m.locationAt(i);
        if (!at) continue;
        ++located;
        if (!kernelFile) kernelFile = at->file;
        CHECK(at->file == *kernelFile);
      }
      CHECK(located > 0);
      CHECK(m.files[*kernelFile].find("/inductor_cache/") != std::string::npos);
    }
  }
}

// Issue 43: IR files come from outside, and editors ask for their tables by themselves (inlay hints,
// document symbols). What a parse keeps follows the located code lines, never the lines; every count the
// input controls is bounded and looked up, never scanned.

namespace {

/// Seconds `f` takes.
template <typename F> double secondsOf(F &&f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A PTX kernel whose body is `body`, with `.file 1` the kernel's file.
std::string ptxKernel(const std::string &body) {
  return ".visible .entry k(\n)\n{\n" + body + "}\n\t.file\t1 \"/cache/xy/ck.py\"\n";
}

} // namespace

TEST_CASE("TritonIR: a file of 8 MiB of newlines keeps nothing per line, in every stage") {
  // Before: three per-line tables (line views, locations, code flags), about 30 bytes a line: 250 MB here,
  // 3.85 GB for the 128 MiB .ptx of the issue.
  std::string text(size_t{8} << 20, '\n');
  for (TritonStage stage : {TritonStage::Ptx, TritonStage::Ttir, TritonStage::Llir}) {
    IrLineMap m = parseTritonIr(stage, text);
    CHECK(m.lineCount == text.size());
    CHECK(m.code.empty());
    CHECK(m.error.empty());
    CHECK(m.keptBytes() < 4096);
  }
  // Inside a function, blank lines and comments are no code either.
  std::string body;
  for (int i = 0; i < 100000; ++i)
    body += "\t// nothing\n\n";
  IrLineMap m = parsePtx(ptxKernel("\t.loc\t1 5 0\n" + body + "\tret;\n"));
  REQUIRE(m.code.size() == 1);
  CHECK(m.code[0].location.line == 5);
  CHECK(m.keptBytes() < 4096);
}

TEST_CASE("TritonIR: .loc comments naming 4,000 inlined files 200,000 times are looked up, not scanned") {
  // Each `.loc`'s inlined chain names its file by name only: before, each was found by scanning every file
  // named so far (80,000 names cost 36 s per definition request). 4,000 names stay within IrLimits.
  std::string body;
  for (int i = 0; i < 200000; ++i)
    body += "\t.loc\t1 " + std::to_string(i % 7 + 1) + " 0 // h.py:1:1 @[ f" + std::to_string(i % 4000) +
            ".py:" + std::to_string(i % 7 + 1) + ":2 ]\n\tadd.s32 %r1, %r1, 1;\n";
  std::string ptx = ptxKernel(body);
  IrLineMap m;
  double seconds = secondsOf([&] { m = parsePtx(ptx); });
  CHECK_MESSAGE(seconds < 3.0, "parsePtx took " << seconds << " s");
  REQUIRE(m.error.empty());
  CHECK(m.files.size() == 4001); // The kernel's file and the 4,000 named in comments.
  CHECK(m.code.size() == 200000);
  auto f = m.fileNamed("f17.py");
  REQUIRE(f);
  // f17 is named by instructions 17, 4017, 8017...: line (i % 7) + 1, each instruction two lines after the
  // body's start (line 3).
  std::vector<uint32_t> lines = m.linesOf(*f, 17 % 7 + 1);
  REQUIRE(!lines.empty());
  CHECK(lines.front() == 3 + 2 * 17 + 1);
}

TEST_CASE("TritonIR: a file past IrLimits is refused, never cut, and the parse stops there") {
  IrLimits small;
  small.maxCodeLines = 10;
  small.maxFiles = 3;
  small.maxFunctions = 2;
  small.maxAliases = 4;
  std::string body;
  for (int i = 0; i < 11; ++i)
    body += "\t.loc\t1 1 0\n\tret;\n";
  IrLineMap m = parsePtx(ptxKernel(body), small);
  CHECK(m.error == "more than 10 located code lines");
  CHECK(parsePtx(ptxKernel(body)).error.empty());
  // 80,000 inlined names: more than 4,096 source files, found in one pass.
  std::string names;
  for (int i = 0; i < 80000; ++i)
    names += "\t.loc\t1 1 0 // h.py:1:1 @[ f" + std::to_string(i) + ".py:1:2 ]\n\tret;\n";
  double seconds = secondsOf([&] { m = parsePtx(ptxKernel(names)); });
  CHECK(m.error == "more than 4,096 source files");
  CHECK_MESSAGE(seconds < 3.0, "parsePtx took " << seconds << " s");
  CHECK(parsePtx(ptxKernel("\t.loc\t1 1 0 // @[ " + std::string(5000, 'a') + ".py:1:1 ]\n\tret;\n")).error ==
        "a source file name longer than 4,096 bytes");
  CHECK(parsePtx(".entry a(\n{\n}\n.entry b(\n{\n}\n.entry c(\n{\n}\n", small).error ==
        "more than 2 functions");
  CHECK(parseMlir(
            "#loc1 = loc(\"a\":1:1)\n#loc2 = loc(\"a\":1:1)\n#loc3 = loc(\"a\":1:1)\n#loc4 = loc(\"a\":1:1)\n"
            "#loc5 = loc(\"a\":1:1)\n",
            TritonStage::Ttir, small)
            .error == "more than 4 location aliases or metadata nodes");
  CHECK(parseMlir("x loc(\"a\":1:1)\nx loc(\"b\":1:1)\nx loc(\"c\":1:1)\nx loc(\"d\":1:1)\n",
                  TritonStage::Ttir, small)
            .error == "more than 3 source files");
}

TEST_CASE("TritonIR: LLVM locations sharing one inlinedAt chain and one huge DIFile are read once") {
  // 100,000 locations inlined at one location whose file node's fields are 1 MB: before, each walk read the
  // chain's and the file's fields again (100,000 x 1 MB).
  std::string ll = "define void @k() !dbg !4 {\n";
  const int n = 100000;
  for (int i = 0; i < n; ++i)
    ll += "  %" + std::to_string(i) + " = add i32 1, 2, !dbg !" + std::to_string(100 + i) + "\n";
  ll += "}\n";
  ll += "!1 = !DIFile(filename: \"c.py\", directory: \"/cache/xy\", " + std::string(1 << 20, ' ') + ")\n";
  ll += "!4 = distinct !DISubprogram(name: \"k\", scope: !1, file: !1, line: 18)\n";
  ll += "!8 = !DILocation(line: 38, column: 37, scope: !4" + std::string(1 << 20, ' ') + ")\n";
  for (int i = 0; i < n; ++i)
    ll += "!" + std::to_string(100 + i) + " = !DILocation(line: 1, column: 1, scope: !4, inlinedAt: !8)\n";
  IrLineMap m;
  double seconds = secondsOf([&] { m = parseLlir(ll); });
  CHECK_MESSAGE(seconds < 3.0, "parseLlir took " << seconds << " s");
  REQUIRE(m.error.empty());
  auto c = m.fileNamed("c.py");
  REQUIRE(c);
  CHECK(m.linesOf(*c, 38).size() == static_cast<size_t>(n));
}
