// libFuzzer target: a cubin's resources (index/files/TritonCache.h readCubinResources: ELF64 section headers,
// symbol tables, `.nv.info` attributes). The first byte is the length of the kernel name that follows; the
// rest is the file. Properties: bounds (ASan: nothing read outside the bytes), the same answer twice, and
// the answer of a prefix of the file never invents what the file does not hold past it.
#include "FuzzInput.h"
#include "index/files/TritonCache.h"

#include <algorithm>

using namespace inductor;
using namespace inductor::index;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Input in(data, size);
  size_t nameLength = in.number(64);
  std::string_view rest = in.rest();
  std::string_view kernel = rest.substr(0, std::min(nameLength, rest.size()));
  std::string_view elf = rest.substr(kernel.size());
  CubinResources r = readCubinResources(elf, kernel);
  CubinResources again = readCubinResources(elf, kernel);
  fuzz::require(r.registers == again.registers && r.frameBytes == again.frameBytes, "the same answer twice");
  if (r.frameBytes) fuzz::require(r.spills() == *r.frameBytes / 4, "spills are the frame in 4-byte words");
  // Shorter than an ELF header: nothing.
  CubinResources cut = readCubinResources(elf.substr(0, 63), kernel);
  fuzz::require(!cut.registers && !cut.frameBytes, "no resources from less than an ELF header");
  return 0;
}
