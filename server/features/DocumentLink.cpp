// server/features/DocumentLink.cpp: textDocument/documentLink. Every `# File: PATH:LINE` comment (FX graph
// dumps print one above the nodes of each user line; Inductor copies them into output code) links PATH:LINE
// to the local file and line, resolved the way origins are (index::Index::resolvePath: pathMappings, the
// recorded path, suffix match under the workspace). Paths that resolve to no local file get no link. Any
// document can hold such comments, so this does not require the document to be indexed.
#include "server/features/Features.h"
#include "server/text/Convert.h"

namespace inductor::server {

std::optional<protocol::Location> fileCommentTarget(const index::Index &index, std::string_view lineText,
                                                    std::optional<size_t> byteColumn, TextCache &texts,
                                                    index::FileCommentAt *found) {
  // Copied: `lineText` may point into `texts`, which placeOrigin() below may grow.
  std::string line(lineText);
  lineText = line;
  auto at = index::findFileComment(lineText);
  if (!at) return std::nullopt;
  if (byteColumn && (*byteColumn < at->begin || *byteColumn > at->end)) return std::nullopt;
  index::ResolvedPath local = index.resolvePath(at->comment.file);
  if (!local.exists) return std::nullopt;
  index::Origin o;
  o.path = local.path;
  o.recordedPath = at->comment.file;
  o.line = at->comment.line;
  o.code = at->comment.code;
  o.exists = true;
  if (found) *found = *at;
  // Where the line is now (the file may have changed since the trace); none when it is gone.
  return placeOrigin(texts, index, o).location;
}

std::vector<protocol::DocumentLink> documentLink(const FeatureContext &ctx,
                                                 const protocol::DocumentLinkParams &) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const std::string &uri = ctx.uri;
  std::vector<protocol::DocumentLink> out;
  for (uint32_t line = 0, n = texts.lineCount(uri); line < n; ++line) {
    std::string_view text = texts.lineText(uri, line);
    if (text.find("File: ") == std::string_view::npos) continue; // Cheap pre-check.
    index::FileCommentAt at;
    auto target = fileCommentTarget(index, text, std::nullopt, texts, &at);
    if (!target) continue;
    protocol::DocumentLink link;
    link.range = {texts.position(uri, line, at.begin), texts.position(uri, line, at.end)};
    link.target = target->uri + (at.comment.line ? "#L" + std::to_string(at.comment.line) : "");
    std::string_view path = at.comment.file;
    size_t slash = path.rfind('/');
    link.tooltip = "Open " + std::string(slash == std::string_view::npos ? path : path.substr(slash + 1)) +
                   (at.comment.line ? ":" + std::to_string(at.comment.line) : "");
    out.push_back(std::move(link));
  }
  return out;
}

} // namespace inductor::server
