#pragma once

#include "ProtocolError.h"

#include <utility>
#include <variant>

namespace multilane {

// Either a value or a ReceiverError (std::expected arrives with C++23; this is the part we need).
template<typename T> class StoreResult {
public:
    StoreResult(T value)
        : m_data(std::in_place_index<0>, std::move(value))
    {}
    StoreResult(ReceiverError error)
        : m_data(std::in_place_index<1>, std::move(error))
    {}

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }
    const T &value() const { return std::get<0>(m_data); }
    T &value() { return std::get<0>(m_data); }
    const ReceiverError &error() const { return std::get<1>(m_data); }

private:
    std::variant<T, ReceiverError> m_data;
};

// For operations that only succeed or fail.
struct Done {};

} // namespace multilane
