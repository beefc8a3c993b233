#include "DirectionCounters.h"

#include <algorithm>
#include <cstdio>

namespace multilane::wanemu {

void DirectionCounters::recordLateness(std::chrono::nanoseconds late)
{
    if (late.count() < 0)
        late = std::chrono::nanoseconds(0);
    const auto bucket = static_cast<std::size_t>(late / LatenessBucket);
    ++lateness[std::min(bucket, lateness.size() - 1)];
    latenessMax = std::max(latenessMax, late);
}

std::chrono::nanoseconds DirectionCounters::latenessPercentile(double fraction) const
{
    std::uint64_t total = 0;
    for (const std::uint64_t count : lateness)
        total += count;
    if (total == 0)
        return std::chrono::nanoseconds(0);
    const auto wanted = static_cast<std::uint64_t>(fraction * static_cast<double>(total));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < lateness.size(); ++i) {
        seen += lateness[i];
        if (seen > wanted)
            return (i + 1) * LatenessBucket; // the bucket's upper edge: never flattering
    }
    return latenessMax;
}

std::string formatCounters(const std::string &label, const char *direction, const DirectionCounters &counters)
{
    auto ms = [](std::chrono::nanoseconds value) { return static_cast<double>(value.count()) / 1e6; };
    char text[512];
    std::snprintf(text, sizeof text,
                  "wanemu stats %s %s packets=%llu bytes=%llu delivered_packets=%llu delivered_bytes=%llu "
                  "drop_queue=%llu drop_loss=%llu drop_flow=%llu queue_max_packets=%llu queue_max_ms=%.3f "
                  "flows=%zu late_p50_ms=%.2f late_p99_ms=%.2f late_max_ms=%.2f",
                  label.c_str(), direction, static_cast<unsigned long long>(counters.arrivedPackets),
                  static_cast<unsigned long long>(counters.arrivedBytes),
                  static_cast<unsigned long long>(counters.deliveredPackets),
                  static_cast<unsigned long long>(counters.deliveredBytes),
                  static_cast<unsigned long long>(counters.queueDrops),
                  static_cast<unsigned long long>(counters.lossDrops),
                  static_cast<unsigned long long>(counters.flowDrops),
                  static_cast<unsigned long long>(counters.queuePeakPackets), ms(counters.queuePeakDelay),
                  counters.flows.size(), ms(counters.latenessPercentile(0.5)),
                  ms(counters.latenessPercentile(0.99)), ms(counters.latenessMax));
    return text;
}

} // namespace multilane::wanemu
