// d4r core: errors as values.
//
// Promise: every fallible d4r function returns Expected<T> (or Status = Expected<void>). An Error
// carries a code, a message and a chain of context added on the way up, so that the final text
// reads from the outside in: "loading module 3: fatbin entry 2: compressed size 912 exceeds entry
// size 512". Nothing here throws or exits; boundaries (CLI, CUDA, NGX) map ErrorCode to their own.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

namespace d4r {

enum class ErrorCode {
    Invalid,     // malformed input or a bad argument: the caller can fix it (CLI exit status 2)
    NotFound,    // a file, key, symbol or device that does not exist
    Io,          // the operating system refused a read, write, rename, ...
    Unsupported, // valid but not handled by this build or backend
    Internal,    // a d4r bug: an invariant did not hold
};

const char* error_code_name(ErrorCode code);

class Error {
public:
    Error(ErrorCode code, std::string message) : m_code(code), m_message(std::move(message)) {}

    ErrorCode code() const { return m_code; }
    // The innermost message, without context.
    const std::string& message() const { return m_message; }
    // Context entries, outermost first.
    const std::vector<std::string>& context() const { return m_context; }

    // Adds an outer context entry ("while doing X").
    Error& add_context(std::string context) {
        m_context.insert(m_context.begin(), std::move(context));
        return *this;
    }

    // "ctx1: ctx2: message"
    std::string text() const;

private:
    ErrorCode m_code;
    std::string m_message;
    std::vector<std::string> m_context;
};

template <typename... Args>
Error make_error(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
    return Error(code, fmt::format(format, std::forward<Args>(args)...));
}

// Expected<T>: a value or an Error. Expected<void> (alias Status) is success or an Error.
template <typename T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : m_state(std::in_place_index<0>, std::move(value)) {}
    Expected(Error error) : m_state(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_state); }
    const T& value() const& { return std::get<0>(m_state); }
    T&& value() && { return std::get<0>(std::move(m_state)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    Error& error() & { return std::get<1>(m_state); }
    const Error& error() const& { return std::get<1>(m_state); }
    Error&& error() && { return std::get<1>(std::move(m_state)); }

    T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }

private:
    std::variant<T, Error> m_state;
};

template <>
class [[nodiscard]] Expected<void> {
public:
    Expected() = default;
    Expected(Error error) : m_error(std::move(error)), m_failed(true) {}

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    void value() const {}

    Error& error() & { return m_error; }
    const Error& error() const& { return m_error; }
    Error&& error() && { return std::move(m_error); }

private:
    Error m_error{ErrorCode::Internal, ""};
    bool m_failed = false;
};

using Status = Expected<void>;

inline Status ok_status() { return Status(); }

} // namespace d4r

// D4R_TRY(expr): evaluates an Expected; on error returns it from the enclosing function, else yields
// the value (a statement expression: GCC and Clang, which build every d4r target).
// Use it only as a statement or to initialise a variable (`auto x = D4R_TRY(f());`), never inside a braced
// initializer or another call's arguments: GCC does not destroy what the enclosing expression had already
// built when the statement expression returns, and that leaks (AddressSanitizer found two such sites).
#define D4R_TRY(expr)                                                         \
    ({                                                                        \
        auto&& d4r_try_result_ = (expr);                                      \
        if (!d4r_try_result_.ok()) return std::move(d4r_try_result_).error(); \
        std::move(d4r_try_result_).value();                                   \
    })

// D4R_TRY_CTX(expr, format, args...): as D4R_TRY, adding a context entry to the error on the way up.
#define D4R_TRY_CTX(expr, ...)                                                \
    ({                                                                        \
        auto&& d4r_try_result_ = (expr);                                      \
        if (!d4r_try_result_.ok()) {                                          \
            ::d4r::Error d4r_try_error_ = std::move(d4r_try_result_).error(); \
            d4r_try_error_.add_context(fmt::format(__VA_ARGS__));             \
            return d4r_try_error_;                                            \
        }                                                                     \
        std::move(d4r_try_result_).value();                                   \
    })
