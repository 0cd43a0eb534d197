// server/text/TextViews.h: what answers derive from a text that does not change (its line table, its lines,
// the analysis of edited generated code, where a trace's recorded lines are in it), built once and kept
// between requests. A references answer on a model line points into every open output-code document;
// splitting each of them again per request was a third of its time (perf on a 32-rank trace,
// bench/README.md).
#pragma once

#include "index/analysis/OutputCode.h"
#include "index/analysis/Relocation.h"
#include "index/model/Index.h"
#include "index/support/TextLines.h"
#include "protocol/Position.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace inductor::server {

/// The views of one immutable text: an open document's version (server/lsp/Server.h Document; an edit makes a
/// new Document) or a user source file as read (index::SourceFile). Holds the object that owns the text, so
/// the views stay valid while anyone holds this. Each view is built on first use; thread-safe.
class TextViews {
public:
  /// `owner` owns `text`. `lines`, if given, are the text's lines already split (SourceFile::lines, owned by
  /// `owner` too).
  TextViews(std::shared_ptr<const void> owner, std::string_view text,
            const index::TextLines *lines = nullptr);

  std::string_view text() const { return text_; }
  const protocol::LineTable &table() const;
  const index::TextLines &lines() const;
  /// The analysis of the text as generated code (wrapper code in `language`): for documents whose text is
  /// not the indexed one (the client edited it, or it is an edited copy).
  const index::OutputCodeAnalysis &analysis(index::Language language) const;
  /// Where `index`'s recorded lines of the user file `path` (Index::recordedLines) are in this text,
  /// parallel to them (index::relocateLines). A derived() value.
  std::shared_ptr<const std::vector<index::Relocation>> relocations(const index::Index &index,
                                                                    const std::string &path) const;
  /// A value derived from this text and `index` alone (an answer's parts that depend on nothing else), named
  /// `key`: made by `make()` (returning a T) on first use, then kept for the newest index asked about (by
  /// Index::serial). A request still running on an older index gets its own value, which is not kept.
  template <class T, class Make>
  std::shared_ptr<const T> derived(const index::Index &index, const std::string &key, Make make) const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (derivedSerial_ == index.serial())
        if (auto it = derived_.find(key); it != derived_.end())
          return std::static_pointer_cast<const T>(it->second);
    }
    auto made = std::make_shared<const T>(make()); // Outside the lock; a racing request's copy is dropped.
    std::lock_guard<std::mutex> lock(mutex_);
    if (index.serial() < derivedSerial_) return made;
    if (index.serial() > derivedSerial_) {
      derived_.clear();
      derivedSerial_ = index.serial();
    }
    return std::static_pointer_cast<const T>(derived_.try_emplace(key, std::move(made)).first->second);
  }
  /// derived() when it was made for `index` already, else null.
  template <class T> std::shared_ptr<const T> find(const index::Index &index, const std::string &key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (derivedSerial_ != index.serial()) return nullptr;
    auto it = derived_.find(key);
    return it == derived_.end() ? nullptr : std::static_pointer_cast<const T>(it->second);
  }
  /// The owner's use count minus this object's reference: 0 when only this holds the text.
  long ownerUsesElsewhere() const { return owner_.use_count() - 1; }

private:
  std::shared_ptr<const void> owner_;
  std::string_view text_;
  const index::TextLines *givenLines_;
  mutable std::once_flag tableOnce_, linesOnce_;
  mutable std::unique_ptr<protocol::LineTable> table_;
  mutable std::unique_ptr<index::TextLines> lines_;
  mutable std::mutex mutex_; ///< Guards what follows.
  mutable std::map<index::Language, std::unique_ptr<const index::OutputCodeAnalysis>> analyses_;
  mutable uint64_t derivedSerial_ = 0;
  mutable std::unordered_map<std::string, std::shared_ptr<const void>> derived_;
};

/// The TextViews of every text requests read, by the object that owns it. An entry lives while its owner is
/// held elsewhere too (an open document in the server's table, a file in the SourceReader's cache) or a
/// request uses it; the others are dropped when the next text is added. Thread-safe.
class TextViewCache {
public:
  /// The views of `text`, owned by `owner` (see TextViews' constructor): the kept ones when `owner` was
  /// asked about before.
  std::shared_ptr<const TextViews> of(std::shared_ptr<const void> owner, std::string_view text,
                                      const index::TextLines *lines = nullptr);
  /// Index::textLinesInLog of `id` (a first copy: Index::firstCopy), kept for the newest index asked about
  /// (by Index::serial). Null when the text is not in a log (see textLinesInLog). The views point into the
  /// index's log mappings: valid while the caller holds that index.
  std::shared_ptr<const index::TextLines> linesInLog(const index::Index &index, index::ArtifactId id);
  /// Entries kept now, for tests.
  size_t size() const;

private:
  mutable std::mutex mutex_;
  std::unordered_map<const void *, std::shared_ptr<const TextViews>> entries_;
  uint64_t logSerial_ = 0;
  std::unordered_map<uint32_t, std::shared_ptr<const index::TextLines>> logLines_;
};

} // namespace inductor::server
