// server/features/Features.h: every request the server answers from an index, as a free function of a
// FeatureContext (server/features/FeatureContext.h) and the request's typed params, returning its typed
// result. One file each under server/features/. The server's binder (server/lsp/Dispatch.cpp) parses the
// params, builds the context and serialises the result once; `inductor-ls explain` and the in-process feature
// tests (tests/unit/server/features/) call the same functions.
//
// A feature never blocks on the server and keeps nothing between calls but what TextViews keeps for the
// documents (server/text/TextViews.h). An answer that is an error (params naming nothing the index has)
// throws FeatureError. Results of thousands of items are protocol::Written (the JSON text, written once).
#pragma once

#include "protocol/InductorProtocol.h"
#include "protocol/JsonWriter.h"
#include "protocol/Protocol.h"
#include "server/features/FeatureContext.h"

#include <optional>
#include <string>
#include <vector>

namespace inductor::server {

// LSP requests.

/// textDocument/definition: a kernel or FX node in generated code -> the user lines it came from; a Triton IR
/// line -> its kernel line; a `# File: PATH:LINE` comment -> that line (server/features/Definition.cpp).
std::vector<protocol::Location> definition(const FeatureContext &ctx,
                                           const protocol::TextDocumentPositionParams &params);
/// textDocument/references: a user line's launch sites in every compile; a kernel's launches
/// (server/features/References.cpp).
protocol::Written<std::vector<protocol::Location>> references(const FeatureContext &ctx,
                                                              const protocol::ReferenceParams &params);
/// textDocument/hover: a user line's kernels, GPU time, compile health and changes since the baseline; a
/// launch's, a kernel's or an FX node's story (server/features/Hover.cpp). nullopt: nothing here.
std::optional<protocol::Hover> hover(const FeatureContext &ctx,
                                     const protocol::TextDocumentPositionParams &params);
/// textDocument/codeLens (server/features/CodeLens.cpp).
protocol::Written<std::vector<protocol::CodeLens>> codeLens(const FeatureContext &ctx,
                                                            const protocol::CodeLensParams &params);
/// textDocument/documentSymbol: kernels, entry points with their launches, FX nodes; an IR file's kernel
/// (server/features/DocumentSymbol.cpp).
protocol::DocumentSymbolResult documentSymbol(const FeatureContext &ctx,
                                              const protocol::DocumentSymbolParams &params);
/// workspace/symbol: the kernels whose names match the query (server/features/WorkspaceSymbol.cpp).
std::vector<protocol::SymbolInformation> workspaceSymbol(const FeatureContext &ctx,
                                                         const protocol::WorkspaceSymbolParams &params);
/// textDocument/inlayHint: GPU time, printer statistics and PTX counts at line ends of generated code
/// (server/features/InlayHint.cpp).
std::vector<protocol::InlayHint> inlayHint(const FeatureContext &ctx,
                                           const protocol::InlayHintParams &params);
/// textDocument/documentLink: every `# File: PATH:LINE` comment whose file is here
/// (server/features/DocumentLink.cpp).
std::vector<protocol::DocumentLink> documentLink(const FeatureContext &ctx,
                                                 const protocol::DocumentLinkParams &params);
/// textDocument/codeAction: compile-health quick fixes, then the printer's commands
/// (server/features/CodeAction.cpp).
std::vector<protocol::CodeAction> codeAction(const FeatureContext &ctx,
                                             const protocol::CodeActionParams &params);
/// textDocument/diagnostic (server/features/Diagnostics.cpp).
protocol::DocumentDiagnosticReport documentDiagnostic(const FeatureContext &ctx,
                                                      const protocol::DocumentDiagnosticParams &params);
/// workspace/diagnostic: every reported document's, and empty reports for those that have none now.
protocol::WorkspaceDiagnosticReport workspaceDiagnostic(const FeatureContext &ctx,
                                                        const protocol::WorkspaceDiagnosticParams &params);

/// Every diagnostic of the document at `uri`: compile health when it is a user file, rank divergences,
/// runtime findings; marked new since `baseline` when given (pushed and pulled alike).
std::vector<protocol::Diagnostic> documentDiagnostics(const index::Index &index, TextCache &texts,
                                                      const std::string &uri, const index::Index *baseline);
/// The documents diagnostics are reported for without being open: the user files with compile-health events
/// or rank divergences that exist here, and where runtime findings are.
std::vector<std::string> reportedUris(const index::Index &index, TextCache &texts);

// Custom requests (protocol/InductorProtocol.h).

/// inductor/artifactContent: an artifact's text, or a recorded source's. Throws FeatureError: InvalidParams
/// for a URI no artifact has, RequestFailed for a text that can no longer be read.
protocol::ArtifactContentResult artifactContent(const FeatureContext &ctx,
                                                const protocol::ArtifactContentParams &params);
/// inductor/listArtifacts: every indexed artifact.
std::vector<protocol::ArtifactEntry> listArtifacts(const FeatureContext &ctx,
                                                   const protocol::NoParams &params);
/// inductor/launchSites: the launch sites a user line's lens counts.
protocol::Written<std::vector<protocol::Location>> launchSites(const FeatureContext &ctx,
                                                               const protocol::LaunchSitesParams &params);
/// inductor/lowered: a Triton kernel line's TTIR/TTGIR/LLIR/PTX lines; [] when the line is in no Triton
/// kernel's source or the kernel has no joined cache entry.
std::vector<protocol::LoweredStage> lowered(const FeatureContext &ctx, const protocol::LoweredParams &params);
/// inductor/compiles: the compiled frames overview (all, or those of the context's user file).
protocol::CompilesResult compiles(const FeatureContext &ctx, const protocol::CompilesParams &params);
/// inductor/hotLines: the hottest user lines and launches (the binder waits for joined profiles).
protocol::HotLinesResult hotLines(const FeatureContext &ctx, const protocol::HotLinesParams &params);
/// inductor/ranks: where the ranks diverge.
protocol::RanksResult ranks(const FeatureContext &ctx, const protocol::RanksParams &params);

} // namespace inductor::server
