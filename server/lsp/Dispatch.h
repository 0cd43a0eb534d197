// server/lsp/Dispatch.h: what the dispatch layer (server/lsp/Dispatch.cpp, the method table and the binder
// that turns JSON params into typed ones) offers the handlers.
#pragma once

#include "server/lsp/Server.h"

#include <string_view>

namespace inductor::server {

/// The one way a request is answered InvalidParams (-32602), with `<method>: <why>` as the message: params
/// that do not parse (the binder, when fromJSON fails: `why` is nlohmann's message with the JSON path), or
/// params that parse but name nothing the server has (an artifact URI no index holds).
void replyInvalidParams(const Reply &reply, std::string_view why);

} // namespace inductor::server
