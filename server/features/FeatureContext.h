// server/features/FeatureContext.h: what every feature reads, built by one prologue.
//
// A feature is a free function `Result feature(const FeatureContext &, const Params &)` (server/features/
// Features.h): no Server, no Reply, no threads. The server's binder (server/lsp/Dispatch.cpp) takes the index
// the request is answered from and builds the context; `inductor-ls explain` and the in-process feature tests
// build it the same way (makeFeatureContext) over an index they built themselves. clangd's split: the LSP
// layer (ClangdLSPServer) knows the protocol's session, the features (XRefs.cpp, Hover.cpp) know an AST.
#pragma once

#include "index/model/Index.h"
#include "protocol/Json.h"
#include "protocol/JsonRpc.h"
#include "protocol/Protocol.h"
#include "server/text/Convert.h"
#include "server/text/TextCache.h"

#include <stdexcept>
#include <string>

namespace inductor::server {

using protocol::json;

/// What one request's feature reads. Borrowed: the index, the baseline, the texts and the capabilities
/// outlive the feature's call (the binder holds them for the request).
struct FeatureContext {
  const index::Index &index; ///< The run the request is answered from (the current run's, or another's).
  /// The baseline run's index (server/workspace/Runs.cpp) when there is one and it is not `index`; else null.
  const index::Index *baseline = nullptr;
  TextCache &texts; ///< The request's texts (the documents snapshot taken when it started).
  /// The client's capabilities (hierarchical document symbols, ...); defaults for a CLI or a test.
  const protocol::ClientCapabilities &client;
  std::string uri; ///< The document the request is about; empty for workspace requests.
  /// What `uri` is to the index (resolveTarget). For an artifact, `texts` answers with `uri` for it
  /// (TextCache::prefer): a user in TORCH_COMPILE_DEBUG's output_code.py stays there. None for a workspace
  /// request and for a Triton IR file.
  Target target;
  /// `uri` is a Triton IR file of a joined cache entry (isTritonIrFile): never read as a document (an IR
  /// file may be MBs of lines), so no target is resolved for it.
  bool tritonIr = false;
};

/// The baseline an answer about `index` compares with: `baseline`, unless it is null or `index` itself (the
/// baseline run being served). makeFeatureContext's rule, for the code that needs only that.
const index::Index *comparedBaseline(const index::Index &index, const index::Index *baseline);

/// The one prologue: the context of a request about `uri` (empty: a workspace request) answered from
/// `index`. `baseline` is dropped when it is `index` itself (same serial).
FeatureContext makeFeatureContext(const index::Index &index, const index::Index *baseline, TextCache &texts,
                                  const protocol::ClientCapabilities &client, std::string uri);

/// What a feature throws for an answer that is an error, not a result: the binder replies with `code` and
/// `message` (InvalidParams for params that name nothing the index has, RequestFailed for a text that can no
/// longer be read).
struct FeatureError : std::runtime_error {
  FeatureError(protocol::ErrorCode code, const std::string &message)
      : std::runtime_error(message), code(code) {}
  protocol::ErrorCode code;
};

} // namespace inductor::server
