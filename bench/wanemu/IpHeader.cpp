#include "IpHeader.h"

namespace multilane::wanemu {

namespace {

std::uint64_t mix(std::uint64_t hash, std::uint64_t value)
{
    // splitmix64's finaliser over a running hash: cheap, and collisions between the few flows
    // of a run are practically impossible.
    hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
    hash ^= hash >> 30;
    hash *= 0xbf58476d1ce4e5b9ULL;
    hash ^= hash >> 27;
    return hash;
}

std::uint32_t readBig(const std::uint8_t *bytes, std::size_t count)
{
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < count; ++i)
        value = (value << 8) | bytes[i];
    return value;
}

} // namespace

std::optional<IpFacts> readIpv4(const std::uint8_t *bytes, std::size_t size)
{
    if (size < 20 || (bytes[0] >> 4) != 4)
        return std::nullopt;
    const std::size_t headerLength = static_cast<std::size_t>(bytes[0] & 0x0f) * 4;
    const std::uint32_t protocol = bytes[9];
    IpFacts facts;
    facts.length = readBig(bytes + 2, 2);
    std::uint64_t flow = mix(protocol, readBig(bytes + 12, 4));
    flow = mix(flow, readBig(bytes + 16, 4));
    const bool hasPorts = protocol == 6 || protocol == 17; // TCP, UDP
    if (hasPorts && size >= headerLength + 4)
        flow = mix(flow, readBig(bytes + headerLength, 4));
    facts.flow = flow;
    return facts;
}

} // namespace multilane::wanemu
