// Origins of kernel launches (step 4 of the build pipeline, see IndexBuilder.h): the fallback chain of
// Index.h from a launch's provenance to the user source lines it came from.
#include "index/builder/IndexBuilder.h"

#include <algorithm>
#include <set>

namespace inductor::index {

using namespace detail;

Origin IndexBuilder::makeOrigin(const std::string &file, uint32_t line, std::string code,
                                std::string function) const {
  ResolvedPath r = resolver_->resolve(file);
  Origin o;
  o.path = r.path;
  o.recordedPath = file;
  o.line = line;
  o.code = std::move(code);
  o.function = std::move(function);
  o.exists = r.exists;
  o.library = frames_.isUserLibrary(file, r.exists ? std::string_view(r.path) : std::string_view());
  return o;
}

namespace {

uint64_t placeHash(const std::string &file, uint32_t line, const std::string &code,
                   const std::string &function, uint64_t hash = 0) {
  for (size_t part : {std::hash<std::string>()(file), size_t{line}, std::hash<std::string>()(code),
                      std::hash<std::string>()(function)})
    hash = (hash ^ part) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
  return hash;
}

bool samePlace(const Origin &o, const std::string &file, uint32_t line, const std::string &code,
               const std::string &function) {
  return o.recordedPath == file && o.line == line && o.code == code && o.function == function;
}

/// The value in `pool` under `hash` that `same` accepts, else `make()` stored there. `make` runs outside the
/// lock (it resolves paths); a value another worker stored meanwhile wins.
template <class V, class Same, class Make>
V intern(std::unordered_multimap<uint64_t, V> &pool, std::mutex &mutex, uint64_t hash, const Same &same,
         const Make &make) {
  auto find = [&]() -> const V * {
    for (auto [it, end] = pool.equal_range(hash); it != end; ++it)
      if (same(it->second)) return &it->second;
    return nullptr;
  };
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (const V *found = find()) return *found;
  }
  V made = make();
  std::lock_guard<std::mutex> lock(mutex);
  if (const V *found = find()) return *found;
  return pool.emplace(hash, std::move(made))->second;
}

/// `items` as the vector in `pool` under `hash` whose elements `same` accepts one by one, else shared and
/// stored there. Empty items share nothing.
template <class T, class Same>
SharedVector<T> internVector(std::unordered_multimap<uint64_t, SharedVector<T>> &pool, std::mutex &mutex,
                             uint64_t hash, std::vector<T> items, const Same &same) {
  if (items.empty()) return {};
  // Compared with `items` until make() moves them into the shared vector, then with that vector (moving the
  // SharedVector keeps it in place).
  const std::vector<T> *mine = &items;
  auto equal = [&](const SharedVector<T> &list) {
    return std::equal(list.begin(), list.end(), mine->begin(), mine->end(), same);
  };
  return intern(pool, mutex, hash, equal, [&] {
    SharedVector<T> made(std::move(items));
    mine = &made.get();
    return made;
  });
}

} // namespace

std::shared_ptr<const Origin> IndexBuilder::sharedModelOrigin(const SourceComment &c) {
  if (isFrameworkPath(c.file)) return nullptr;
  std::shared_ptr<const Origin> o = intern(
      origins_, stacksMutex_, placeHash(c.file, c.line, c.code, c.function),
      [&](const std::shared_ptr<const Origin> &o) {
        return samePlace(*o, c.file, c.line, c.code, c.function);
      },
      [&] { return std::make_shared<const Origin>(makeOrigin(c.file, c.line, c.code, c.function)); });
  return o->library ? nullptr : o;
}

std::shared_ptr<const Origin> IndexBuilder::sharedFrameOrigin(const std::string &file, uint32_t line,
                                                              const std::string &code,
                                                              const std::string &function) {
  if (file.empty() || file.front() == '<') return nullptr;
  return intern(
      origins_, stacksMutex_, placeHash(file, line, code, function),
      [&](const std::shared_ptr<const Origin> &o) { return samePlace(*o, file, line, code, function); },
      [&] { return std::make_shared<const Origin>(makeOrigin(file, line, code, function)); });
}

SharedVector<Origin> IndexBuilder::sharedStack(const std::vector<StackFrame> &trace) {
  // The frames kept, judged once each (isFrameworkPath splits the path): consecutive frames of one file
  // share the judgement.
  std::vector<const StackFrame *> kept;
  kept.reserve(trace.size());
  const std::string *lastFile = nullptr;
  bool lastKept = false;
  for (const StackFrame &f : trace) {
    if (!lastFile || f.file != *lastFile) {
      lastFile = &f.file;
      lastKept = !f.file.empty() && !isFrameworkPath(f.file);
    }
    if (lastKept) kept.push_back(&f);
  }
  uint64_t hash = 0;
  for (const StackFrame *f : kept)
    hash = placeHash(f->file, f->line, f->code, f->function, hash);
  // The same frames as a stack made before: compared field by field, a hash alone never shares.
  auto same = [&](const std::vector<Origin> &stack) {
    if (stack.size() != kept.size()) return false;
    for (size_t i = 0; i < kept.size(); ++i)
      if (!samePlace(stack[i], kept[i]->file, kept[i]->line, kept[i]->code, kept[i]->function)) return false;
    return true;
  };
  return intern(
      stacks_, stacksMutex_, hash, [&](const SharedVector<Origin> &s) { return same(*s); },
      [&] {
        std::vector<Origin> stack;
        stack.reserve(kept.size());
        for (const StackFrame *f : kept)
          stack.push_back(makeOrigin(f->file, f->line, f->code, f->function));
        return SharedVector<Origin>(std::move(stack));
      });
}

SharedVector<Origin> IndexBuilder::sharedOrigins(std::vector<Origin> origins) {
  uint64_t hash = 0;
  for (const Origin &o : origins)
    hash = placeHash(o.recordedPath, o.line, o.code, o.function, hash);
  return internVector(originLists_, stacksMutex_, hash, std::move(origins),
                      [](const Origin &a, const Origin &b) {
                        return samePlace(a, b.recordedPath, b.line, b.code, b.function) && a.path == b.path &&
                               a.exists == b.exists && a.library == b.library;
                      });
}

SharedVector<std::string> IndexBuilder::sharedStrings(std::vector<std::string> strings) {
  uint64_t hash = strings.size();
  for (const std::string &s : strings)
    hash = hash * 1099511628211ULL ^ std::hash<std::string>{}(s);
  return internVector(stringLists_, stacksMutex_, hash, std::move(strings), std::equal_to<>());
}

namespace {

/// The ATen op of a post-grad node's target as Inductor's comments print it: `torch.ops.aten.mm.default` ->
/// `aten.mm` (namespace and op, without the overload). Empty for targets that are not ops.
std::string opName(std::string_view target) {
  constexpr std::string_view prefix = "torch.ops.";
  if (target.substr(0, prefix.size()) != prefix) return {};
  target.remove_prefix(prefix.size());
  size_t dot = target.find('.');
  if (dot == std::string_view::npos) return {};
  size_t end = target.find('.', dot + 1);
  return std::string(target.substr(0, end));
}

} // namespace

void IndexBuilder::resolveLaunches(Artifact &a, const CompileProvenance &prov, const GraphData &post,
                                   const GraphData &pre) {
  std::unordered_map<std::string, int> launchCount;
  // Provenance tracking (INDUCTOR_PROVENANCE=1) prints a debug handle above each launch (PyTorch 2.9+) and
  // logs maps and stacks (2.7+, or AOTI's kernel_information.json); a compile with none of them was traced
  // without it, and only the graphs' `# File:` comments can tell its launches' origins.
  bool tracked = prov.hasMappings || !prov.stackTraces.empty() || !prov.kernelInformation.empty();
  for (const KernelLaunch &l : a.code.launches) {
    ++launchCount[l.kernel];
    tracked = tracked || l.debugHandle.has_value();
  }
  // The stack of each parsed traceback (kernels of one node share theirs): `prov` outlives this map.
  std::unordered_map<const void *, SharedVector<Origin>> stackOfTrace;
  std::vector<Launch> &launches = a.launches.edit();
  launches.clear();
  launches.reserve(a.code.launches.size());
  // Each site moves into its Launch, its ATen ops into Launch::atenOps: a copy of both was a tenth of a large
  // log's index memory.
  for (KernelLaunch &site : a.code.launches) {
    Launch L;
    std::vector<std::string> postNodes, preNodes, atenOps;
    const KernelDefinition *def = a.code.findKernel(site.kernel);
    if (def) L.definition = static_cast<int>(def - a.code.kernels.data());
    L.kind = def ? def->kind : kindFromName(site.kernel);
    if (!site.atenOps.empty())
      atenOps = std::move(site.atenOps);
    else if (def)
      atenOps = def->atenOps;
    std::string key = site.key();
    // Without a debug handle a kernel launched twice cannot be told apart in the maps: use only what the
    // launch itself says (its comment) rather than the union, which would name lines of the other launches.
    bool ambiguous = !site.debugHandle && launchCount[site.kernel] > 1;

    // FX nodes.
    const KernelInformation *info = nullptr;
    if (auto it = prov.kernelInformation.find(key); it != prov.kernelInformation.end()) info = &it->second;
    L.provenance = tracked;
    if (info) {
      postNodes = info->postGradNodes;
      preNodes = info->preGradNodes;
    }
    if (postNodes.empty() && !ambiguous) {
      auto it = prov.mappings.kernelToPost.find(key);
      if (it == prov.mappings.kernelToPost.end() && site.debugHandle)
        it = prov.mappings.kernelToPost.find(site.kernel);
      if (it != prov.mappings.kernelToPost.end())
        postNodes = it->second;
      else if (def && launchCount[site.kernel] == 1) // The definition's comment describes its first launch.
        for (const auto &[src, nodes] : def->sourceToAten)
          postNodes.insert(postNodes.end(), nodes.begin(), nodes.end());
    }
    // An extern kernel's `Original ATen` comment lists the ops of every node of its buffer's group (the
    // `aten.t, aten.addmm` of an addmm split into an extern mm and a fused Triton epilogue); the targets of
    // its own post-grad nodes say what it computes.
    if (!def && post.present && !postNodes.empty()) {
      std::vector<std::string> own;
      for (const std::string &n : postNodes)
        if (auto it = post.nodeIndex.find(n); it != post.nodeIndex.end())
          if (std::string op = opName(post.analysis.nodes[it->second].target);
              !op.empty() && std::find(own.begin(), own.end(), op) == own.end())
            own.push_back(std::move(op));
      if (!own.empty()) atenOps = std::move(own);
    }
    if (preNodes.empty()) {
      std::set<std::string> pres;
      for (const std::string &n : postNodes)
        if (auto it = prov.mappings.postToPre.find(n); it != prov.mappings.postToPre.end())
          pres.insert(it->second.begin(), it->second.end());
      if (pres.empty())
        for (const std::string &n :
             site.sourceNodes.empty() && def && !ambiguous ? def->sourceNodes : site.sourceNodes)
          if (!n.empty()) pres.insert(n);
      preNodes.assign(pres.begin(), pres.end());
    }

    std::vector<Origin> origins;
    auto addOrigin = [&](Origin o) {
      if (std::find(origins.begin(), origins.end(), o) == origins.end()) origins.push_back(std::move(o));
    };
    // 1. Stack traces recorded for this kernel:debug_handle.
    const std::vector<SharedVector<StackFrame>> *traces = nullptr;
    if (info && !info->stackTraces.empty()) traces = &info->stackTraces;
    if (!traces) {
      auto it = prov.stackTraces.find(key);
      if (it == prov.stackTraces.end() && !ambiguous) it = prov.stackTraces.find(site.kernel);
      if (it != prov.stackTraces.end()) traces = &it->second;
    }
    if (traces) {
      for (const auto &trace : *traces) {
        // The frames outside PyTorch, the standard library and synthetic files; the innermost of them that
        // no libraryPaths glob matches (recorded or local path) is the origin.
        auto [known, fresh] = stackOfTrace.try_emplace(trace.identity());
        if (fresh) known->second = sharedStack(trace);
        const SharedVector<Origin> &stack = known->second;
        for (auto it = stack->rbegin(); it != stack->rend(); ++it)
          if (!it->library) {
            addOrigin(*it);
            break;
          }
        if (!stack.empty()) L.stacks.push_back(stack);
      }
      if (!origins.empty()) L.originSource = OriginSource::StackTrace;
    }
    // 2. Post-grad FX nodes in the post-grad graph's `# File:` comments.
    if (origins.empty() && post.present) {
      for (const std::string &n : postNodes)
        if (const SourceComment *c = post.originOf(n))
          if (auto o = sharedModelOrigin(*c)) addOrigin(*o);
      if (!origins.empty()) L.originSource = OriginSource::PostGradGraph;
    }
    // 3. Pre-grad FX nodes in the pre-grad graph's `# File:` comments.
    if (origins.empty() && pre.present) {
      for (const std::string &n : preNodes)
        if (const SourceComment *c = pre.originOf(n))
          if (auto o = sharedModelOrigin(*c)) addOrigin(*o);
      if (!origins.empty()) L.originSource = OriginSource::PreGradGraph;
    }
    // 4. No model frame anywhere: the kernel came from PyTorch's own code that Dynamo traced (a compiled
    // optimizer step). Its innermost frames are kept apart from the origins (Index.h), so that the kernel
    // answers where it came from without counting as any file's user line.
    if (origins.empty()) {
      std::vector<Origin> frames;
      auto addFrame = [&](const std::shared_ptr<const Origin> &o) {
        if (o && std::find(frames.begin(), frames.end(), *o) == frames.end()) frames.push_back(*o);
      };
      if (traces)
        for (const auto &trace : *traces)
          for (auto it = trace->rbegin(); it != trace->rend(); ++it)
            if (auto o = sharedFrameOrigin(it->file, it->line, it->code, it->function)) {
              addFrame(o);
              break;
            }
      for (const GraphData *g : {&post, &pre}) {
        if (!frames.empty() || !g->present) continue;
        for (const std::string &n : g == &post ? postNodes : preNodes)
          if (const SourceComment *c = g->originOf(n))
            addFrame(sharedFrameOrigin(c->file, c->line, c->code, c->function));
      }
      L.frameworkOrigins = sharedOrigins(std::move(frames));
    }
    L.origins = sharedOrigins(std::move(origins));
    L.postGradNodes = sharedStrings(std::move(postNodes));
    L.preGradNodes = sharedStrings(std::move(preNodes));
    L.atenOps = sharedStrings(std::move(atenOps));
    L.site = std::move(site);
    launches.push_back(std::move(L));
  }
  a.code.launches.clear();
  a.code.launches.shrink_to_fit();
}

} // namespace inductor::index
