#pragma once

#include <cstddef>
#include <cstdint>

namespace multilane {

// Incompressible bytes for GET /v1/probe, made by xoshiro256+ at several GB/s so the probe
// measures the link, not the generator. Not for anything that needs real randomness.
class ProbeStream {
public:
    explicit ProbeStream(std::uint64_t seed);

    void fill(char *buffer, std::size_t length);

private:
    std::uint64_t next();

    std::uint64_t m_state[4];
};

} // namespace multilane
