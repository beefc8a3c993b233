#pragma once

#include "Endpoint.h"

#include <QList>
#include <optional>

namespace multilane {

// Which endpoint (and which of its connection lanes) one request goes to.
struct EndpointLease {
    int endpoint = -1;
    int lane = -1;
};

// Hands out endpoints by smooth weighted round-robin (nginx's algorithm: evenly interleaved,
// not bursty), never beyond an endpoint's connection cap: the one set for it, or, when automatic,
// what its receiver allows one client. Each endpoint's connections are split into lanes of at
// most LaneCapacity, because Qt 6.4's QNetworkAccessManager opens at most six connections per
// host:port: a lane is one manager.
class EndpointPool {
public:
    static constexpr int LaneCapacity = 6;
    // An automatic endpoint's cap until its receiver says (older receivers never do).
    static constexpr int DefaultAutomaticCap = 16;

    explicit EndpointPool(const QList<Endpoint> &endpoints);

    int endpointCount() const { return int(m_states.size()); }
    const Endpoint &endpoint(int index) const { return m_states.at(index).endpoint; }
    int laneCount(int endpoint) const { return int(m_states.at(endpoint).laneBusy.size()); }
    // The most connections to this endpoint.
    int capacity(int endpoint) const;
    // What the endpoint's receiver allows one client (its health answer); counts only where
    // the endpoint's cap is automatic.
    void setAllowedByReceiver(int endpoint, int connections);
    int busy(int endpoint) const { return m_states.at(endpoint).busy; }
    // A down endpoint gets no new requests until it is marked up again (circuit breaker).
    void setUp(int endpoint, bool up) { m_states[endpoint].up = up; }
    // Not checked yet: it gets nothing until it has answered its check (it is not counted down).
    void setPending(int endpoint, bool pending) { m_states[endpoint].pending = pending; }
    // Sent to while its check is still out (the check costs a round trip nobody should wait
    // for): a failure from it says nothing of the work until the check says what it is.
    void setUnchecked(int endpoint, bool unchecked) { m_states[endpoint].unchecked = unchecked; }
    bool isUnchecked(int endpoint) const { return m_states.at(endpoint).unchecked; }
    bool isUp(int endpoint) const { return m_states.at(endpoint).up; }
    // Up, and not waiting for its check: acquire() may hand it out.
    bool takesRequests(int endpoint) const
    {
        const State &state = m_states.at(endpoint);
        return state.up && !state.pending;
    }
    int upCount() const;
    // The measured share (EndpointScorer), multiplied with the configured weight.
    void setScore(int endpoint, int score) { m_states[endpoint].score = std::max(1, score); }
    // What acquire() weighs the endpoint by: its configured weight times its measured share.
    int weightOf(int endpoint) const
    {
        return m_states.at(endpoint).endpoint.weight * m_states.at(endpoint).score;
    }
    int totalCapacity() const;
    // What totalCapacity() will be once every receiver has said what it allows, as far as can be
    // told now: one that has not said yet is taken to allow what a receiver does by default.
    int expectedCapacity() const;

    // nullopt when every endpoint that is up is at its cap.
    std::optional<EndpointLease> acquire();
    void release(const EndpointLease &lease);

private:
    struct State {
        Endpoint endpoint;
        int currentWeight = 0;
        int busy = 0;
        bool up = true;
        bool pending = false;
        bool unchecked = false;
        int score = 1;
        int allowed = DefaultAutomaticCap; // by the receiver, for an automatic cap
        bool receiverSaid = false;
        QList<int> laneBusy;
    };
    QList<State> m_states;
};

} // namespace multilane
