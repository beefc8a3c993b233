#include "ProbeStream.h"

#include <cstring>

namespace multilane {

namespace {

std::uint64_t rotateLeft(std::uint64_t value, int bits)
{
    return (value << bits) | (value >> (64 - bits));
}

// splitmix64 spreads one seed over the four state words (the seeding xoshiro's authors advise).
std::uint64_t splitMix(std::uint64_t &seed)
{
    std::uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

} // namespace

ProbeStream::ProbeStream(std::uint64_t seed)
{
    for (std::uint64_t &word : m_state)
        word = splitMix(seed);
}

std::uint64_t ProbeStream::next()
{
    const std::uint64_t result = m_state[0] + m_state[3];
    const std::uint64_t shifted = m_state[1] << 17;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= shifted;
    m_state[3] = rotateLeft(m_state[3], 45);
    return result;
}

void ProbeStream::fill(char *buffer, std::size_t length)
{
    std::size_t done = 0;
    for (; done + 8 <= length; done += 8) {
        const std::uint64_t word = next();
        std::memcpy(buffer + done, &word, 8);
    }
    if (done < length) {
        const std::uint64_t word = next();
        std::memcpy(buffer + done, &word, length - done);
    }
}

} // namespace multilane
