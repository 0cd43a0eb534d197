// server/features/DocumentSymbol.cpp: textDocument/documentSymbol for generated code: the kernels, the entry
// function
// (`call` / `run_impl`) with its launches as children, and the nodes of FX graph dumps.
#include "server/features/Features.h"
#include "server/format/KernelFormat.h"
#include "server/text/Convert.h"

namespace inductor::server {

protocol::DocumentSymbolResult documentSymbol(const FeatureContext &ctx,
                                              const protocol::DocumentSymbolParams &) {
  const index::Index &index = ctx.index;
  TextCache &texts = ctx.texts;
  const std::string &uri = ctx.uri;
  protocol::DocumentSymbolResult out{
      .uri = uri, .symbols = {}, .hierarchical = ctx.client.hierarchicalDocumentSymbolSupport};
  if (ctx.tritonIr) {
    if (auto ir = irDocumentSymbols(index, texts, uri)) out.symbols = std::move(*ir);
    return out;
  }
  const Target &target = ctx.target;
  if (target.kind != Target::Kind::Artifact) return out;
  const index::Artifact &a = index.artifact(target.artifact);
  auto before = [](const protocol::Position &a, const protocol::Position &b) {
    return a.line < b.line || (a.line == b.line && a.character < b.character);
  };
  auto symbol = [&](std::string name, protocol::SymbolKind kind, uint32_t first, uint32_t last, uint32_t line,
                    uint32_t column, size_t length, std::string detail) {
    protocol::DocumentSymbol s;
    s.name = std::move(name);
    s.kind = kind;
    if (!detail.empty()) s.detail = std::move(detail);
    s.selectionRange = {texts.position(uri, line, column), texts.position(uri, line, column + length)};
    protocol::Position end = texts.position(uri, last, texts.lineText(uri, last).size());
    s.range = {texts.position(uri, first, 0), end};
    if (before(s.selectionRange.start, s.range.start)) s.range.start = s.selectionRange.start;
    if (before(s.range.end, s.selectionRange.end)) s.range.end = s.selectionRange.end;
    return s;
  };
  std::vector<protocol::DocumentSymbol> &symbols = out.symbols;
  for (const index::KernelDefinition &d : a.code.kernels)
    symbols.push_back(symbol(d.name, protocol::SymbolKind::Function, d.firstLine, d.lastLine, d.nameLine,
                             d.nameColumn, d.name.size(),
                             std::string(index::displayName(d.kind)) + " kernel"));
  for (const index::EntryPoint &e : a.code.entries) {
    protocol::DocumentSymbol s = symbol(e.name, protocol::SymbolKind::Method, e.line, e.line, e.line,
                                        e.column, e.name.size(), "entry");
    for (const index::Launch &l : a.launches) {
      if (l.site.line < e.line) continue;
      std::string name = l.site.key();
      s.children.push_back(symbol(name, protocol::SymbolKind::Event, l.site.line, l.site.line, l.site.line,
                                  l.site.column, l.site.endColumn - l.site.column, "launch"));
      if (before(s.range.end, s.children.back().range.end)) s.range.end = s.children.back().range.end;
    }
    symbols.push_back(std::move(s));
  }
  if (a.kernelSource)
    symbols.push_back(symbol(a.kernelSource->name, protocol::SymbolKind::Function, a.kernelSource->line,
                             a.kernelSource->line, a.kernelSource->line, a.kernelSource->column,
                             a.kernelSource->name.size(), "kernel"));
  for (const index::Artifact::GraphNode &n : a.graphNodes)
    symbols.push_back(symbol(std::string(n.name), protocol::SymbolKind::Variable, n.line, n.line, n.line,
                             n.column, n.name.size(), std::string(n.target)));
  return out;
}

} // namespace inductor::server
