// server/DocumentSymbol.cpp: textDocument/documentSymbol for generated code: the kernels, the entry function
// (`call` / `run_impl`) with its launches as children, and the nodes of FX graph dumps.
#include "server/Convert.h"
#include "server/KernelFormat.h"
#include "server/Server.h"

namespace inductor::server {

void Server::onDocumentSymbol(const protocol::DocumentSymbolParams &params, Reply reply) {
  const std::string &doc = params.textDocument.uri; // Of the current run, or of the baseline run.
  withIndexFor(doc, std::move(reply), [this, params](const index::Index &index, const Reply &reply) {
    const std::string &uri = params.textDocument.uri;
    TextCache texts(documents(), index);
    Target target = resolveTarget(index, uri, texts);
    json out = json::array();
    if (auto ir = irDocumentSymbols(index, texts, uri, capabilities_.hierarchicalDocumentSymbolSupport))
      return reply(std::move(*ir)); // A Triton IR file.
    if (target.kind != Target::Kind::Artifact) return reply(std::move(out));
    const index::Artifact &a = index.artifact(target.artifact);
    auto before = [](const protocol::Position &a, const protocol::Position &b) {
      return a.line < b.line || (a.line == b.line && a.character < b.character);
    };
    auto symbol = [&](std::string name, protocol::SymbolKind kind, uint32_t first, uint32_t last,
                      uint32_t line, uint32_t column, size_t length, std::string detail) {
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
    bool hierarchical = capabilities_.hierarchicalDocumentSymbolSupport;
    std::vector<protocol::DocumentSymbol> symbols;
    for (const index::KernelDefinition &d : a.code.kernels)
      symbols.push_back(symbol(d.name, protocol::SymbolKind::Function, d.firstLine, d.lastLine, d.nameLine,
                               d.nameColumn, d.name.size(),
                               std::string(index::displayName(d.kind)) + " kernel"));
    for (const index::EntryPoint &e : a.code.entries) {
      protocol::DocumentSymbol s = symbol(e.name, protocol::SymbolKind::Method, e.line, e.line, e.line,
                                          e.column, e.name.size(), "entry");
      for (const index::Launch &l : a.launches) {
        if (l.site.line < e.line) continue;
        std::string name =
            l.site.kernel + (l.site.debugHandle ? ":" + std::to_string(*l.site.debugHandle) : "");
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
    for (auto &s : symbols) {
      if (hierarchical) {
        out.push_back(s);
        continue;
      }
      // Flat SymbolInformation for clients without hierarchical support; children are flattened too.
      auto flat = [&](const protocol::DocumentSymbol &d, const std::string &container, auto &self) -> void {
        protocol::SymbolInformation info;
        info.name = d.name;
        info.kind = d.kind;
        info.location = {uri, d.selectionRange};
        if (!container.empty()) info.containerName = container;
        out.push_back(info);
        for (const auto &c : d.children)
          self(c, d.name, self);
      };
      flat(s, "", flat);
    }
    reply(std::move(out));
  });
}

} // namespace inductor::server
