// server/features/LaunchSites.cpp: the custom request `inductor/launchSites`, what a model line's code lens
// opens (server/features/CodeLens.cpp: its command `inductor.showLaunchSites` carries no locations, as a line
// of a many-compile trace has thousands of launch sites).
//
//   inductor/launchSites {textDocument, position} -> Location[] (protocol::LaunchSitesParams): the launch
//   sites the lens of that line of a user file counts, one per site in each compile, the ranks of a compile
//   merged where their code is the same, each version where it differs (references lists every rank's); []
//   on other lines and documents.
#include "index/model/Counts.h"
#include "protocol/JsonWriter.h"
#include "server/features/Features.h"
#include "server/features/InductorRequests.h"
#include "server/text/Convert.h"

namespace inductor::server {

std::string launchLocations(TextCache &texts, const index::Index &index,
                            const std::vector<index::LaunchRef> &launches) {
  protocol::JsonWriter w;
  w.reserve(launches.size() * 128); // About a location's text.
  w.beginArray();
  UniqueLocations unique(w);
  for (index::LaunchRef r : launches) {
    const std::string &uri = texts.uriOf(index, r.artifact);
    unique.add(uri, launchRange(texts, index, r, uri));
  }
  w.endArray();
  return w.take();
}

protocol::Written<std::vector<protocol::Location>> launchSites(const FeatureContext &ctx,
                                                               const protocol::LaunchSitesParams &params) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const std::string &uri = ctx.uri;
  const Target &target = ctx.target;
  if (target.kind != Target::Kind::UserFile) return {"[]"};
  // The line's launches as the lens found them: the recorded lines at this line of the text now.
  uint32_t line = params.position.line + 1;
  auto now = userLinesNow(texts, index, uri, target.path, line);
  auto it = now.find(line);
  if (it == now.end()) return {"[]"};
  // One per site in each compile, not one per rank (a 32-rank trace would send 32 copies of each). The
  // ranks' copies (the same code, up to the device) add no site: left out before summarizing (8 ranks: 8×
  // fewer to look at). Ranks whose code for the compile differs add their version of each site.
  return {launchLocations(texts, index,
                          index::summarizeLaunches(index, withoutCopies(index, it->second)).locations())};
}

} // namespace inductor::server
