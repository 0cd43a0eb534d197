// protocol/Json.h: the JSON library used by protocol/ and server/ (nlohmann/json 3.11).
// CMake defines JSON_DIAGNOSTICS=1 on inductor_protocol (PUBLIC), so parse and type errors carry the JSON
// path of the offending value (for example "[json.exception.type_error.302] (/textDocument/uri) type must
// be string, but is number"). Every translation unit that shares json values with protocol/ must see the
// same setting: nlohmann encodes it in its ABI namespace, so mixing settings fails to link.
#pragma once

#include <nlohmann/json.hpp>

namespace inductor::protocol {

using json = nlohmann::json;

} // namespace inductor::protocol
