#include "EndpointPool.h"

#include "ProtocolNames.h"

namespace multilane {

static int lanesFor(int connections)
{
    return (std::max(1, connections) + EndpointPool::LaneCapacity - 1) / EndpointPool::LaneCapacity;
}

EndpointPool::EndpointPool(const QList<Endpoint> &endpoints)
{
    for (const Endpoint &endpoint : endpoints) {
        State state;
        state.endpoint = endpoint;
        m_states.append(state);
        m_states.last().laneBusy = QList<int>(lanesFor(capacity(int(m_states.size()) - 1)), 0);
    }
}

int EndpointPool::capacity(int endpoint) const
{
    const State &state = m_states.at(endpoint);
    return state.endpoint.maxConnections > 0 ? state.endpoint.maxConnections : state.allowed;
}

void EndpointPool::setAllowedByReceiver(int endpoint, int connections)
{
    State &state = m_states[endpoint];
    state.allowed = std::max(1, connections);
    state.receiverSaid = true;
    // Lanes only grow: one in use keeps its count until released.
    const int lanes = lanesFor(capacity(endpoint));
    while (state.laneBusy.size() < lanes)
        state.laneBusy.append(0);
}

int EndpointPool::totalCapacity() const
{
    int total = 0;
    for (int i = 0; i < m_states.size(); ++i)
        total += capacity(i);
    return total;
}

int EndpointPool::expectedCapacity() const
{
    int total = 0;
    for (int i = 0; i < m_states.size(); ++i) {
        const State &state = m_states.at(i);
        const bool automatic = state.endpoint.maxConnections <= 0;
        total += automatic && !state.receiverSaid ? Protocol::DefaultConnectionsPerClient : capacity(i);
    }
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
        if (!takesRequests(i) || state.busy >= capacity(i))
            continue;
        const int weight = weightOf(i);
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
    const int lanes = lanesFor(capacity(best));
    for (int i = 1; i < lanes; ++i) {
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
