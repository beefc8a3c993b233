#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace multilane::wanemu {

// What the forwarder needs from a packet's first bytes: its IP length and a hash of its flow
// (protocol, addresses and, for TCP and UDP, ports).
struct IpFacts {
    std::uint32_t length = 0;
    std::uint64_t flow = 0;
};

// Empty when the bytes are not the start of an IPv4 packet.
std::optional<IpFacts> readIpv4(const std::uint8_t *bytes, std::size_t size);

} // namespace multilane::wanemu
