// Status and StatusOr: error values that cross module boundaries (no exceptions).
//
// A Status carries a code and a chain of messages, outermost first: each layer that
// passes an error up adds what it was doing ("Cannot decode packet: file=…, offset=…"),
// and ToString() prints the chain as "outer: CAUSED BY inner".
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace causeway {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the user asked for something that cannot be (bad flag, bad query)
  kNotFound,            // a file, thread, stream or field that does not exist
  kDataLoss,            // input is corrupt or truncated
  kUnimplemented,       // valid input using a feature we do not support
  kIoError,             // the operating system refused
  kPermissionDenied,    // needs privileges the process does not have (root, CAP_BPF)
  kFailedPrecondition,  // the machine lacks a feature (BTF, a tracepoint, a program)
  kInternal,            // a bug of ours
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code) {
    messages_.push_back(std::move(message));
  }

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }

  // The innermost message (the root cause).
  const std::string& root_message() const { return messages_.back(); }
  // The outermost message (what the caller was doing).
  const std::string& message() const { return messages_.front(); }

  // Adds an outer context: "Cannot open trace: path=…" around the current chain.
  Status WithContext(std::string context) && {
    if (!ok()) messages_.insert(messages_.begin(), std::move(context));
    return std::move(*this);
  }
  Status WithContext(std::string context) const& {
    Status copy = *this;
    return std::move(copy).WithContext(std::move(context));
  }

  // "outer: CAUSED BY middle: CAUSED BY inner".
  std::string ToString() const {
    if (ok()) return "OK";
    std::string out;
    for (size_t i = 0; i < messages_.size(); ++i) {
      if (i) out += ": CAUSED BY ";
      out += messages_[i];
    }
    return out;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::vector<std::string> messages_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status PermissionDenied(std::string m) {
  return {StatusCode::kPermissionDenied, std::move(m)};
}
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : value_(std::move(status)) { assert(!std::get<Status>(value_).ok()); }
  StatusOr(T value) : value_(std::move(value)) {}

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? Status() : std::get<Status>(value_); }

  T& value() & { return std::get<T>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> value_;
};

}  // namespace causeway

#define CW_CONCAT_INNER(a, b) a##b
#define CW_CONCAT(a, b) CW_CONCAT_INNER(a, b)

// Returns the status from the enclosing function if it is an error.
#define RETURN_IF_ERROR(expr) RETURN_IF_ERROR_IMPL(CW_CONCAT(cw_status_, __LINE__), expr)
#define RETURN_IF_ERROR_IMPL(tmp, expr) \
  do {                                  \
    ::causeway::Status tmp = (expr);    \
    if (!tmp.ok()) return tmp;          \
  } while (0)

// ASSIGN_OR_RETURN(auto x, Foo()); declares x from a StatusOr or returns its error.
#define ASSIGN_OR_RETURN(decl, expr) \
  ASSIGN_OR_RETURN_IMPL(CW_CONCAT(cw_statusor_, __LINE__), decl, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, decl, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  decl = std::move(tmp).value()
