#pragma once

#include "S3Failure.h"

#include <utility>
#include <variant>

namespace multilane {

// Either a value or an S3Failure (std::expected arrives with C++23; this is the part we need).
template<typename T> class S3Result {
public:
    S3Result(T value)
        : m_data(std::in_place_index<0>, std::move(value))
    {}
    S3Result(S3Failure failure)
        : m_data(std::in_place_index<1>, std::move(failure))
    {}

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }
    const T &value() const { return std::get<0>(m_data); }
    T &value() { return std::get<0>(m_data); }
    const S3Failure &failure() const { return std::get<1>(m_data); }

private:
    std::variant<T, S3Failure> m_data;
};

// For operations that only succeed or fail (Abort, HeadBucket).
struct S3Done {};

} // namespace multilane
