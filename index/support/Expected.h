// index/support/Expected.h: the error type of index/ APIs. C++20 has no std::expected, so this is a small
// in-house value-or-error type. Nothing in index/ throws across its API: I/O failures and malformed input
// that make a result impossible come back as an Error; a partly malformed input is not an Error but a partial
// result plus diagnostics (see TraceLog.h).
//
// Usage:
//   Expected<TraceLog> log = TraceLog::open(path);
//   if (!log) return log.error();   // Error converts to any Expected<U>
//   use(*log);
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace inductor::index {

/// Why an operation failed, in words meant for a log line or a window/showMessage (e.g.
/// "cannot open /tmp/x.log: No such file or directory").
struct Error {
  std::string message;
};

/// Either a T or an Error. Accessing the value of an error (or the error of a value) is a bug, caught by an
/// assert in debug builds.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  explicit operator bool() const { return v_.index() == 0; }
  bool hasValue() const { return v_.index() == 0; }

  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(value()); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  T &value() & {
    assert(hasValue());
    return std::get<0>(v_);
  }
  const T &value() const & {
    assert(hasValue());
    return std::get<0>(v_);
  }
  T &&value() && {
    assert(hasValue());
    return std::move(std::get<0>(v_));
  }
  const Error &error() const {
    assert(!hasValue());
    return std::get<1>(v_);
  }

private:
  std::variant<T, Error> v_;
};

/// Success or an Error, for operations without a result (the `Expected<void>` of tl::expected).
template <> class [[nodiscard]] Expected<void> {
public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)) {}

  explicit operator bool() const { return !error_; }
  bool hasValue() const { return !error_; }
  const Error &error() const {
    assert(error_);
    return *error_;
  }

private:
  std::optional<Error> error_;
};

} // namespace inductor::index
