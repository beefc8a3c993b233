#include "DirectionModel.h"

#include <cmath>
#include <limits>

namespace multilane::wanemu {

namespace {

// Flows idle this long lose their shaper state, which keeps the table small over a long run.
constexpr Nanoseconds IdleFlowAge = std::chrono::seconds(2);
constexpr std::uint64_t FlowSweepEvery = 8192; // arrivals

} // namespace

DirectionModel::DirectionModel(const DirectionConfig &config, std::uint64_t seed)
    : m_config(config)
    , m_random(seed)
{
    if (config.loss >= 1)
        m_lossThreshold = std::numeric_limits<std::uint64_t>::max();
    else
        m_lossThreshold = static_cast<std::uint64_t>(std::ldexp(config.loss, 64));
}

template<typename Update> static void updateBoth(DirectionCounters &a, DirectionCounters &b, Update update)
{
    update(a);
    update(b);
}

bool DirectionModel::lost()
{
    // Always draw, so the loss pattern of a seed does not depend on the other settings.
    const std::uint64_t draw = m_random();
    return m_config.loss > 0 && (m_config.loss >= 1 || draw < m_lossThreshold);
}

Nanoseconds DirectionModel::serialisation(std::uint32_t length, double rate) const
{
    const double wireBytes = static_cast<double>(length) + static_cast<double>(m_config.overhead);
    return Nanoseconds(static_cast<std::int64_t>(std::llround(wireBytes * 1e9 / rate)));
}

// Drop-tail: the packet is refused when the queue already holds the limit in packets, or
// when its bytes would not have drained within the limit's duration.
bool DirectionModel::overLimit(const QueueLimit &limit, std::size_t queued, Nanoseconds backlog,
                               Nanoseconds own) const
{
    if (limit.packets > 0)
        return queued >= limit.packets;
    return backlog + own > limit.duration;
}

DropCause DirectionModel::arrive(const PacketInfo &packet, Nanoseconds now)
{
    admitShaped(now);
    updateBoth(m_interval, m_total, [&](DirectionCounters &c) {
        ++c.arrivedPackets;
        c.arrivedBytes += packet.length;
    });
    if (packet.flow != m_lastFlow || m_interval.flows.empty()) { // packets come in runs of one flow
        m_interval.flows.insert(packet.flow);
        m_total.flows.insert(packet.flow);
        m_lastFlow = packet.flow;
    }
    if (lost()) {
        updateBoth(m_interval, m_total, [](DirectionCounters &c) { ++c.lossDrops; });
        return DropCause::Loss;
    }
    if (m_config.flowRate > 0)
        return shape(packet, now);
    return enterBottleneck(packet, now);
}

// The per-flow shaper: each flow is served at flowRate with a burst of one packet; a packet
// enters the bottleneck when the shaper starts sending it.
DropCause DirectionModel::shape(const PacketInfo &packet, Nanoseconds now)
{
    Nanoseconds &freeAt = m_flowFreeAt[packet.flow];
    const Nanoseconds backlog = std::max(Nanoseconds(0), freeAt - now);
    const Nanoseconds own = serialisation(packet.length, m_config.flowRate);
    const auto queued = static_cast<std::size_t>(backlog / std::max(own, Nanoseconds(1)));
    if (overLimit(m_config.flowQueue, queued, backlog, own)) {
        updateBoth(m_interval, m_total, [](DirectionCounters &c) { ++c.flowDrops; });
        return DropCause::FlowCap;
    }
    const Nanoseconds enter = std::max(now, freeAt);
    freeAt = enter + own;
    m_shaped.push(Shaped{enter, m_sequence++, packet});
    if (m_sequence % FlowSweepEvery == 0)
        std::erase_if(m_flowFreeAt, [now](const auto &flow) { return flow.second + IdleFlowAge < now; });
    return DropCause::None;
}

DropCause DirectionModel::enterBottleneck(const PacketInfo &packet, Nanoseconds at)
{
    Nanoseconds departure = at;
    Nanoseconds sojourn{0};
    if (m_config.rate > 0) {
        while (!m_queuedDepartures.empty() && m_queuedDepartures.front() <= at)
            m_queuedDepartures.pop_front();
        const Nanoseconds backlog = std::max(Nanoseconds(0), m_linkFreeAt - at);
        const Nanoseconds own = serialisation(packet.length, m_config.rate);
        if (overLimit(m_config.queue, m_queuedDepartures.size(), backlog, own)) {
            updateBoth(m_interval, m_total, [](DirectionCounters &c) { ++c.queueDrops; });
            return DropCause::QueueFull;
        }
        m_linkFreeAt = std::max(at, m_linkFreeAt) + own;
        departure = m_linkFreeAt;
        m_queuedDepartures.push_back(departure);
        sojourn = departure - at;
    }
    const auto queued = static_cast<std::uint64_t>(m_queuedDepartures.size());
    updateBoth(m_interval, m_total, [&](DirectionCounters &c) {
        c.queuePeakPackets = std::max(c.queuePeakPackets, queued);
        c.queuePeakDelay = std::max(c.queuePeakDelay, sojourn);
    });
    m_releases.push_back(Release{departure + m_config.delay, packet});
    return DropCause::None;
}

void DirectionModel::admitShaped(Nanoseconds now)
{
    while (!m_shaped.empty() && m_shaped.top().enter <= now) {
        const Shaped next = m_shaped.top();
        m_shaped.pop();
        if (enterBottleneck(next.packet, next.enter) != DropCause::None)
            m_lateDrops.push_back(next.packet.token);
    }
}

void DirectionModel::due(Nanoseconds now, std::vector<std::uint64_t> &released,
                         std::vector<std::uint64_t> &dropped)
{
    admitShaped(now);
    dropped.insert(dropped.end(), m_lateDrops.begin(), m_lateDrops.end());
    m_lateDrops.clear();
    while (!m_releases.empty() && m_releases.front().at <= now) {
        const Release &next = m_releases.front();
        released.push_back(next.packet.token);
        updateBoth(m_interval, m_total, [&](DirectionCounters &c) {
            ++c.deliveredPackets;
            c.deliveredBytes += next.packet.length;
            c.recordLateness(now - next.at);
        });
        m_releases.pop_front();
    }
}

std::optional<Nanoseconds> DirectionModel::nextEvent() const
{
    std::optional<Nanoseconds> next;
    if (!m_releases.empty())
        next = m_releases.front().at;
    if (!m_shaped.empty() && (!next || m_shaped.top().enter < *next))
        next = m_shaped.top().enter;
    return next;
}

} // namespace multilane::wanemu
