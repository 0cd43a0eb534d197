// server/text/TextViews.cpp: see TextViews.h.
#include "server/text/TextViews.h"

#include <algorithm>

namespace inductor::server {

TextViews::TextViews(std::shared_ptr<const void> owner, std::string_view text, const index::TextLines *lines)
    : owner_(std::move(owner)), text_(text), givenLines_(lines) {}

const protocol::LineTable &TextViews::table() const {
  std::call_once(tableOnce_, [&] { table_ = std::make_unique<protocol::LineTable>(text_); });
  return *table_;
}

const index::TextLines &TextViews::lines() const {
  if (givenLines_) return *givenLines_;
  std::call_once(linesOnce_, [&] { lines_ = std::make_unique<index::TextLines>(index::splitLines(text_)); });
  return *lines_;
}

const index::OutputCodeAnalysis &TextViews::analysis(index::Language language) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = analyses_.find(language); it != analyses_.end()) return *it->second;
  }
  // Analysed outside the lock (a large wrapper takes milliseconds); a racing request's copy is dropped.
  auto made = std::make_unique<const index::OutputCodeAnalysis>(language == index::Language::Cpp
                                                                    ? index::analyzeCppWrapper(lines())
                                                                    : index::analyzePythonWrapper(lines()));
  std::lock_guard<std::mutex> lock(mutex_);
  return *analyses_.try_emplace(language, std::move(made)).first->second;
}

std::shared_ptr<const std::vector<index::Relocation>> TextViews::relocations(const index::Index &index,
                                                                             const std::string &path) const {
  return derived<std::vector<index::Relocation>>(index, "relocations\n" + path, [&] {
    return index::relocateLines(lines(), index.recordedLines(path));
  });
}

std::shared_ptr<const TextViews> TextViewCache::of(std::shared_ptr<const void> owner, std::string_view text,
                                                   const index::TextLines *lines) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = entries_.find(owner.get()); it != entries_.end()) return it->second;
  // Nobody else holds these texts now (an edited document's earlier version, a closed one, a file the
  // SourceReader let go) and no request uses their views: dropped at once (each can be megabytes, and an edit
  // makes a new one), and before an owner's address can be reused.
  std::erase_if(entries_, [](const auto &e) {
    return e.second.use_count() == 1 && e.second->ownerUsesElsewhere() == 0;
  });
  const void *key = owner.get();
  auto views = std::make_shared<const TextViews>(std::move(owner), text, lines);
  entries_.emplace(key, views);
  return views;
}

std::shared_ptr<const index::TextLines> TextViewCache::linesInLog(const index::Index &index,
                                                                  index::ArtifactId id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (logSerial_ == index.serial())
      if (auto it = logLines_.find(id.value); it != logLines_.end()) return it->second;
  }
  std::shared_ptr<const index::TextLines> made;
  if (auto lines = index.textLinesInLog(id))
    made = std::make_shared<const index::TextLines>(std::move(*lines));
  std::lock_guard<std::mutex> lock(mutex_);
  if (index.serial() < logSerial_) return made; // An older index: answered, not kept.
  if (index.serial() > logSerial_) {
    // The views point into the older index's mappings, which may be unmapped once it is freed.
    logLines_.clear();
    logSerial_ = index.serial();
  }
  return logLines_.try_emplace(id.value, std::move(made)).first->second;
}

size_t TextViewCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

} // namespace inductor::server
