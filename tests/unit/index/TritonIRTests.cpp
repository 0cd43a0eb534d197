// Tests of index/analysis/TritonIR.h: PTX `.loc`, MLIR `loc(...)` and LLVM `!DILocation` line tables, on
// inline snippets and on every IR file of the kernel_ir fixture (oracles parse the text their own way).
#include "index/analysis/TritonIR.h"
#include "unit/TestFiles.h"

#include <doctest/doctest.h>

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
  CHECK_FALSE(m.code[5]);
  CHECK_FALSE(m.code[7]);
  CHECK_FALSE(m.code[16]);
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
  CHECK_FALSE(m.code[7]);
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
      CHECK(m.locations.size() == m.code.size());
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
    CHECK(found * 100 >= total * 98);
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
      for (size_t i = kernel->line; i <= kernel->endLine; ++i) {
        if (!m.code[i]) continue;
        ++located;
        if (!kernelFile) kernelFile = m.locations[i].file;
        CHECK(m.locations[i].file == *kernelFile);
      }
      CHECK(located > 0);
      CHECK(m.files[*kernelFile].find("/inductor_cache/") != std::string::npos);
    }
  }
}
