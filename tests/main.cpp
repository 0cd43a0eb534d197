// Shared doctest entry point for every test binary.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// Repeats every failure, briefly, at the end of the run. A CI log keeps the head and the tail of a long
/// output; a failure in the middle (after test cases whose messages carry a server's log) is otherwise
/// lost there. Each line: test case, file:line, the expression as evaluated, and the first characters of
/// each short INFO in scope.
class FailureDigest : public doctest::IReporter {
public:
  explicit FailureDigest(const doctest::ContextOptions &) {}

  void report_query(const doctest::QueryData &) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats &) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lines_.empty()) return;
    // On stdout, as the console reporter writes: the two keep their order in a log.
    std::cout << "\nfailures (" << lines_.size() << (dropped_ ? ", more not shown" : "") << "):\n";
    for (const std::string &l : lines_)
      std::cout << "  " << l << "\n";
    std::cout.flush();
  }
  void test_case_start(const doctest::TestCaseData &data) override {
    std::lock_guard<std::mutex> lock(mutex_);
    testCase_ = data.m_name;
  }
  void test_case_reenter(const doctest::TestCaseData &) override {}
  void test_case_end(const doctest::CurrentTestCaseStats &) override {}
  void test_case_exception(const doctest::TestCaseException &e) override {
    add("exception: " + std::string(e.error_string.c_str()), "", 0);
  }
  void subcase_start(const doctest::SubcaseSignature &) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData &a) override {
    if (!a.m_failed) return;
    std::string what = std::string(a.m_expr) + " is " + a.m_decomp.c_str();
    if (a.m_threw) what += " (threw: " + std::string(a.m_exception.c_str()) + ")";
    add(what, a.m_file, a.m_line);
  }
  void log_message(const doctest::MessageData &m) override {
    if (m.m_severity & doctest::assertType::is_warn) return; // MESSAGE and WARN: not failures.
    add(std::string("message: ") + m.m_string.c_str(), m.m_file, m.m_line);
  }
  void test_case_skipped(const doctest::TestCaseData &) override {}

private:
  static constexpr size_t kMaxLines = 40, kMaxChars = 300;

  static std::string clip(std::string s) {
    for (char &c : s)
      if (c == '\n') c = ' ';
    if (s.size() > kMaxChars) s = s.substr(0, kMaxChars) + "...";
    return s;
  }

  void add(const std::string &what, const char *file, int line) {
    std::string context;
    const doctest::IContextScope *const *scopes = doctest::IReporter::get_active_contexts();
    for (int i = 0; i < doctest::IReporter::get_num_active_contexts(); ++i) {
      std::ostringstream out;
      scopes[i]->stringify(&out);
      std::string text = out.str();
      // A server's log in scope is noise here (the console output above has it): its size only.
      size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
      context +=
          lines > 5 ? " [" + std::to_string(lines) + " lines]" : " [" + clip(text.substr(0, 160)) + "]";
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (lines_.size() >= kMaxLines) {
      dropped_ = true;
      return;
    }
    std::string where;
    if (file && *file) {
      where = file;
      // Relative to the source tree: the clone's directory says nothing.
      if (size_t at = where.rfind("/tests/"); at != std::string::npos) where = where.substr(at + 1);
      where += ":" + std::to_string(line) + ": ";
    }
    lines_.push_back(clip(testCase_ + ": " + where + what) + clip(context));
  }

  std::mutex mutex_;
  std::string testCase_;
  std::vector<std::string> lines_;
  bool dropped_ = false;
};

REGISTER_LISTENER("failure-digest", 1, FailureDigest);

} // namespace
