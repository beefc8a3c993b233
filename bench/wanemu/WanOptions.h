#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace multilane::wanemu {

using Nanoseconds = std::chrono::nanoseconds;

// A drop-tail queue's depth: a number of packets, or the time its bytes take to drain at the
// bottleneck rate. Exactly one of the two is set.
struct QueueLimit {
    std::size_t packets = 0;
    Nanoseconds duration{0};
};

// One direction of the emulated path. Rates are wire bytes per second (IP length + overhead);
// 0 means unlimited.
struct DirectionConfig {
    Nanoseconds delay{0}; // fixed one-way propagation delay
    double rate = 0;      // the bottleneck
    QueueLimit queue{0, std::chrono::milliseconds(50)};
    double loss = 0;     // probability that a packet is lost, 0..1
    double flowRate = 0; // per-flow (5-tuple) shaping before the bottleneck
    QueueLimit flowQueue{0, std::chrono::milliseconds(50)};
    std::uint32_t overhead = 0; // bytes added to each packet's IP length on the wire
};

enum class Backend { Nfqueue, Tun };

struct WanOptions {
    DirectionConfig up;             // client -> receiver
    DirectionConfig down;           // receiver -> client
    Backend backend = Backend::Tun; // the cheaper of the two at 100 MB/s (docs/wan.md)
    std::uint64_t seed = 0;
    bool seedGiven = false;
    Nanoseconds tick{std::chrono::microseconds(100)}; // shortest sleep between releases
    bool realtime = true;             // SCHED_FIFO for the forwarder, so a busy machine delays packets less
    std::vector<std::string> sysctls; // "key=value", set in both namespaces
    std::vector<std::string> receiverCommands; // sh -c, in the receiver namespace
    std::string clientCommand;                 // sh -c, in the client namespace; ends the run
    bool help = false;
};

struct ParsedOptions {
    WanOptions options;
    std::string error;
};

ParsedOptions parseArguments(const std::vector<std::string> &arguments);
std::string usageText();

// "50ms", "1.5s", "200us", "40" (milliseconds).
std::optional<Nanoseconds> parseDuration(std::string_view text);
// "0.1%", "0.001".
std::optional<double> parseProbability(std::string_view text);
// "50ms" (time to drain at the rate) or "100p" / "100pkt" (packets).
std::optional<QueueLimit> parseQueueLimit(std::string_view text);

std::string describe(const DirectionConfig &direction);

} // namespace multilane::wanemu
