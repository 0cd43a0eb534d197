// In-process tests of server/features/LaunchSites.cpp and ListArtifacts.cpp over small annotated traces.
#include "unit/server/features/MiniTrace.h"

#include "server/features/Features.h"

#include <doctest/doctest.h>

using namespace inductor;
using test::atPosition;
using test::MiniTrace;

TEST_CASE("inductor/launchSites: what a model line's lens opens; nothing elsewhere") {
  MiniTrace t(test::reluMulTexts());
  for (const char *line : {"relu", "mul"}) {
    CAPTURE(line);
    auto sites = test::parsed(
        t.call(&server::launchSites, t.modelUri(), atPosition(t.modelUri(), t.model.range(line).start)));
    REQUIRE(sites.size() == 1);
    CHECK(sites[0]["uri"] == t.outputCodeUri());
    CHECK(test::rangeOf(sites[0]["range"]) == t.code.range("launch"));
  }
  CHECK(t.call(&server::launchSites, t.modelUri(), atPosition(t.modelUri(), {1, 0})).text == "[]");
  // Output code is no model file: no sites, even on the launch.
  CHECK(t.call(&server::launchSites, t.outputCodeUri(), atPosition(t.outputCodeUri(), t.code.point("run")))
            .text == "[]");
}

TEST_CASE("inductor/listArtifacts and documentLink: the log-only graph dump links its `# File:` comments") {
  MiniTrace t(test::reluMulTexts());
  std::vector<protocol::ArtifactEntry> artifacts = t.call(&server::listArtifacts, "", protocol::NoParams{});
  REQUIRE(artifacts.size() == 2);
  CHECK(artifacts[0].uri == t.outputCodeUri());
  CHECK(artifacts[0].compileId == "0/0");
  const protocol::ArtifactEntry &graph = artifacts[1];
  CHECK(graph.uri.starts_with("inductor-trace:/")); // Only in the log: a virtual document.
  CHECK(graph.kind == protocol::ArtifactKind::Graph);
  // Its text is the payload the log holds: the text hashed into `has_payload`, no newline after its last
  // line.
  protocol::ArtifactContentParams content;
  content.uri = graph.uri;
  std::string payload = t.graph.code();
  payload.pop_back();
  CHECK(t.call(&server::artifactContent, graph.uri, content).text == payload);
  protocol::DocumentLinkParams links;
  links.textDocument.uri = graph.uri;
  std::vector<protocol::DocumentLink> found = t.call(&server::documentLink, graph.uri, links);
  REQUIRE(found.size() == 2);
  CHECK(found[0].range == t.graph.range("file"));
  CHECK(found[0].target == t.modelUri() + "#L6");
  // A URI no artifact has is an error answer, not an empty text.
  content.uri = "inductor-trace:/no/such/artifact.py";
  CHECK_THROWS_AS(t.call(&server::artifactContent, content.uri, content), server::FeatureError);
}
