#include "EndpointPool.h"

namespace multilane {

EndpointPool::EndpointPool(const QList<Endpoint> &endpoints)
{
    for (const Endpoint &endpoint : endpoints) {
        State state;
        state.endpoint = endpoint;
        const int lanes = (std::max(1, endpoint.maxConnections) + LaneCapacity - 1) / LaneCapacity;
        state.laneBusy = QList<int>(lanes, 0);
        m_states.append(state);
    }
}

int EndpointPool::totalCapacity() const
{
    int total = 0;
    for (const State &state : m_states)
        total += state.endpoint.maxConnections;
    return total;
}

int EndpointPool::upCount() const
{
    int count = 0;
    for (const State &state : m_states)
        count += state.up ? 1 : 0;
    return count;
}

std::optional<EndpointLease> EndpointPool::acquire()
{
    // Smooth weighted round-robin over the endpoints that still have room.
    int totalWeight = 0;
    int best = -1;
    for (int i = 0; i < m_states.size(); ++i) {
        State &state = m_states[i];
        if (!state.up || state.busy >= state.endpoint.maxConnections)
            continue;
        const int weight = state.endpoint.weight * state.score;
        state.currentWeight += weight;
        totalWeight += weight;
        if (best < 0 || state.currentWeight > m_states.at(best).currentWeight)
            best = i;
    }
    if (best < 0)
        return std::nullopt;
    State &chosen = m_states[best];
    chosen.currentWeight -= totalWeight;
    ++chosen.busy;
    int lane = 0;
    for (int i = 1; i < chosen.laneBusy.size(); ++i) {
        if (chosen.laneBusy.at(i) < chosen.laneBusy.at(lane))
            lane = i;
    }
    ++chosen.laneBusy[lane];
    return EndpointLease{best, lane};
}

void EndpointPool::release(const EndpointLease &lease)
{
    State &state = m_states[lease.endpoint];
    Q_ASSERT(state.busy > 0 && state.laneBusy.at(lease.lane) > 0);
    --state.busy;
    --state.laneBusy[lease.lane];
}

} // namespace multilane
