#pragma once

#include "ProtocolError.h"

#include <utility>
#include <variant>

namespace multilane {

// A value, or the error that kept it from being made: errors a caller can handle travel as values
// (std::expected arrives with C++23; this is the part we need). The error is a ProtocolError unless
// said otherwise: a typed code that decides what happens next, and a message for the person.
template<typename T, typename E = ProtocolError> class Result {
public:
    Result(T value)
        : m_data(std::in_place_index<0>, std::move(value))
    {}
    Result(E error)
        : m_data(std::in_place_index<1>, std::move(error))
    {}

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }
    const T &value() const { return std::get<0>(m_data); }
    T &value() { return std::get<0>(m_data); }
    const E &error() const { return std::get<1>(m_data); }
    // The value, or `fallback` when there is none.
    T valueOr(T fallback) const { return ok() ? value() : std::move(fallback); }

private:
    std::variant<T, E> m_data;
};

// The value of a Result for operations that only succeed or fail.
struct Done {};

} // namespace multilane
