// Tests for server/Logger.h: a message is one line of the log file whatever it holds (a file name with a
// newline must not forge a line), and escapeForLog keeps readable text as is.
#include "server/Logger.h"

#include "unit/TestFiles.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace inductor;
using namespace inductor::test;
using server::escapeForLog;

TEST_CASE("escapeForLog: control characters, C1 controls and invalid UTF-8 as escapes; the rest as is") {
  CHECK(escapeForLog("plain /path/to/dedicated_log_torch_trace.log") ==
        "plain /path/to/dedicated_log_torch_trace.log");
  CHECK(escapeForLog("a\nE[12:00:00.000] forged") == "a\\nE[12:00:00.000] forged");
  CHECK(escapeForLog("cr\r tab\t") == "cr\\r tab\\t");
  CHECK(escapeForLog("\x1b[31mred") == "\\x1b[31mred");
  CHECK(escapeForLog(std::string("nul\0del\x7f", 8)) == "nul\\x00del\\x7f");
  CHECK(escapeForLog("csi \xc2\x9b"
                     "2J") == "csi \\u009b2J"); // U+009B, a C1 control.
  CHECK(escapeForLog("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5") ==
        "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5");
  CHECK(escapeForLog("bad \xff\xc3") == "bad \\xff\\xc3"); // Invalid, and a cut sequence.
  CHECK(escapeForLog("over \xc0\xaf \xed\xa0\x80") ==
        "over \\xc0\\xaf \\xed\\xa0\\x80"); // Overlong, surrogate.
}

TEST_CASE("Logger: a message with a newline is one line of the log file") {
  TempDir dir("logger");
  std::string path = dir.path + "/server.log";
  server::Logger &logger = server::Logger::instance();
  REQUIRE(logger.openFile(path));
  server::logWarn("cannot read /t/dedicated_log_torch_trace_x\nE[12:00:00.000] forged line.log\r\x1b[2K");
  server::logInfo("next");
  logger.closeFile();
  std::string text = readFile(path);
  std::vector<std::string> lines;
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
  }
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("dedicated_log_torch_trace_x\\nE[12:00:00.000] forged line.log\\r\\x1b[2K") !=
        std::string::npos);
  CHECK(lines[0].rfind("W[", 0) == 0);
  CHECK(lines[1].rfind("I[", 0) == 0);
}
