// index/support/SharedVector.h: a read-only vector that copies of an analysis share (see SharedVector).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace inductor::index {

/// A vector shared by the copies of an analysis: the ranks of a data-parallel job, and recompiles that
/// generated the same code, have one analysis (see IndexBuilder::buildLogCompiles), and their launches, graph
/// nodes and guards are one copy in memory instead of one per rank. Reads like a `const std::vector<T>`; the
/// index builder changes it through edit(), which first copies it when another object shares it (the builder
/// is the only writer, and an Index is immutable once built, so the use count is not raced).
template <class T> class SharedVector {
public:
  using value_type = T;
  using const_iterator = typename std::vector<T>::const_iterator;

  SharedVector() = default;
  /// Takes `items` as a vector of its own (that copies of this object will share).
  explicit SharedVector(std::vector<T> items)
      : items_(items.empty() ? nullptr : std::make_shared<std::vector<T>>(std::move(items))) {}

  const std::vector<T> &get() const { return items_ ? *items_ : none(); }
  const std::vector<T> &operator*() const { return get(); }
  const std::vector<T> *operator->() const { return &get(); }
  size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const T &operator[](size_t i) const { return get()[i]; }
  const T &at(size_t i) const { return get().at(i); }
  /// Reads as the vector wherever a `const std::vector<T> &` is taken.
  operator const std::vector<T> &() const { return get(); } // NOLINT(google-explicit-constructor)
  const T &front() const { return get().front(); }
  const T &back() const { return get().back(); }
  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }

  /// The vector to change, this object's own (copied first when shared).
  std::vector<T> &edit() {
    if (!items_)
      items_ = std::make_shared<std::vector<T>>();
    else if (items_.use_count() > 1)
      items_ = std::make_shared<std::vector<T>>(*items_);
    return *items_;
  }
  /// What copies of this object share: the same address for the same vector, null when empty.
  const void *identity() const { return items_.get(); }
  /// Whether `other` holds the very same vector (not only equal items).
  bool sharedWith(const SharedVector &other) const { return items_ && items_ == other.items_; }

private:
  static const std::vector<T> &none() {
    static const std::vector<T> nothing;
    return nothing;
  }
  std::shared_ptr<std::vector<T>> items_;
};

} // namespace inductor::index
