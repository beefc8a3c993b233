#pragma once

#include "DirectionCounters.h"
#include "WanOptions.h"

#include <cstdint>
#include <deque>
#include <queue>
#include <random>
#include <unordered_map>
#include <vector>

namespace multilane::wanemu {

// A packet as the model sees it: the forwarder's handle for it, its IP length and its flow.
struct PacketInfo {
    std::uint64_t token = 0;
    std::uint32_t length = 0;
    std::uint64_t flow = 0;
};

enum class DropCause { None, Loss, QueueFull, FlowCap };

// One direction of the path, without sockets: random loss, then the per-flow shaper (if any),
// then the bottleneck (a drop-tail FIFO served at the rate), then the fixed delay. Time is
// passed in, so tests drive it without sleeping. The delay a packet sees is its wait in the
// queue + its own serialisation at the rate + the one-way delay.
class DirectionModel {
public:
    DirectionModel(const DirectionConfig &config, std::uint64_t seed);

    // A packet arrives at `now` (never earlier than a previous call's now). None: the model
    // holds it until due() hands it out; anything else: the caller drops it now.
    DropCause arrive(const PacketInfo &packet, Nanoseconds now);
    // Appends, in order, the packets whose release time has come, and those the bottleneck
    // refused when they left the per-flow shaper.
    void due(Nanoseconds now, std::vector<std::uint64_t> &released, std::vector<std::uint64_t> &dropped);
    // When due() next has something to do; nullopt when nothing is held.
    std::optional<Nanoseconds> nextEvent() const;
    std::size_t held() const { return m_shaped.size() + m_releases.size(); }

    const DirectionCounters &interval() const { return m_interval; }
    const DirectionCounters &total() const { return m_total; }
    void resetInterval() { m_interval = DirectionCounters(); }

private:
    struct Shaped { // waiting in a per-flow shaper
        Nanoseconds enter;
        std::uint64_t sequence;
        PacketInfo packet;
        bool operator>(const Shaped &other) const
        {
            return enter != other.enter ? enter > other.enter : sequence > other.sequence;
        }
    };
    struct Release {
        Nanoseconds at;
        PacketInfo packet;
    };

    bool lost();
    Nanoseconds serialisation(std::uint32_t length, double rate) const;
    bool overLimit(const QueueLimit &limit, std::size_t queued, Nanoseconds backlog, Nanoseconds own) const;
    DropCause shape(const PacketInfo &packet, Nanoseconds now);
    DropCause enterBottleneck(const PacketInfo &packet, Nanoseconds at);
    void admitShaped(Nanoseconds now);

    DirectionConfig m_config;
    std::mt19937_64 m_random;
    std::uint64_t m_lossThreshold = 0; // a draw below it is a loss
    std::unordered_map<std::uint64_t, Nanoseconds> m_flowFreeAt;
    std::priority_queue<Shaped, std::vector<Shaped>, std::greater<>> m_shaped;
    std::uint64_t m_sequence = 0;
    std::uint64_t m_lastFlow = 0;
    Nanoseconds m_linkFreeAt{0};
    std::deque<Nanoseconds> m_queuedDepartures; // of the packets not yet serialised
    std::deque<Release> m_releases;
    std::vector<std::uint64_t> m_lateDrops; // refused at the bottleneck after shaping
    DirectionCounters m_interval;
    DirectionCounters m_total;
};

} // namespace multilane::wanemu
