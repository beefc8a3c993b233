#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_set>

namespace multilane::wanemu {

// What one direction saw over an interval. Bytes are IP lengths (no overhead).
struct DirectionCounters {
    std::uint64_t arrivedPackets = 0;
    std::uint64_t arrivedBytes = 0;
    std::uint64_t deliveredPackets = 0;
    std::uint64_t deliveredBytes = 0;
    std::uint64_t lossDrops = 0;  // random loss
    std::uint64_t queueDrops = 0; // the bottleneck's queue was full
    std::uint64_t flowDrops = 0;  // the per-flow shaper's queue was full
    std::uint64_t queuePeakPackets = 0;
    std::chrono::nanoseconds queuePeakDelay{0}; // longest wait + serialisation at the bottleneck
    std::unordered_set<std::uint64_t> flows;    // distinct 5-tuples seen

    // How late packets left compared with their computed release time (the forwarder's own
    // scheduling error), in buckets of LatenessBucket.
    static constexpr std::chrono::microseconds LatenessBucket{50};
    std::array<std::uint64_t, 400> lateness{}; // the last bucket holds everything later
    std::chrono::nanoseconds latenessMax{0};

    void recordLateness(std::chrono::nanoseconds late);
    std::chrono::nanoseconds latenessPercentile(double fraction) const;
};

// One line of "key=value" pairs that scripts parse, e.g.
// "wanemu stats total up packets=... bytes=... drop_queue=..."
std::string formatCounters(const std::string &label, const char *direction,
                           const DirectionCounters &counters);

} // namespace multilane::wanemu
