// server/text/Markdown.h: the pieces of Markdown the views write (hover text, messages): counted nouns, links
// into documents and code spans, a text cut to a line budget. Plain strings in, Markdown out; no LSP, and of
// index/ only its string helpers (index/support).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace inductor::server {

/// `1 kernel`, `2 kernels`; `many` defaults to `one` + "s".
std::string plural(size_t n, std::string_view one, std::string_view many = {});

/// A Markdown link `[text](uri#L<line>)` (line 1-based; none when 0). `text` is used as given (it may be a
/// code span); the URI is percent-encoded already (protocol::fileURI, makeURI), so it needs no escaping.
std::string markdownLink(std::string_view text, const std::string &uri, uint32_t line = 0);
/// A code span for Markdown, safe for text holding backticks.
std::string codeSpan(std::string_view s);

/// `md` within `budget` non-blank lines and one: its paragraphs in order (they come most important first),
/// each cut to what the budget has left, what was cut counted in a "… N more" line where it was cut (a code
/// block cut is closed; both lines count), a paragraph with no room for a line and its "… more" dropped.
/// Past the budget, only the headings of the sections left (`### `, `---`) stay, so that what else the text
/// has is visible; the paragraphs dropped are counted in a last "… N more lines". `md` itself when it fits.
std::string withinLineBudget(const std::string &md, size_t budget);

} // namespace inductor::server
