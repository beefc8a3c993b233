#include "EndpointScorer.h"

#include <algorithm>
#include <cmath>

namespace multilane {

namespace {
constexpr double Smoothing = 0.3; // weight of the newest sample in the moving averages
constexpr int MinSamples = 2;     // before that, an endpoint counts as "not measured yet"
// A request out counts as evidence once it has taken this many times what the best endpoint's
// requests take, and at least MinOutstandingMs: before that, its time is the round trip and a
// busy event loop as much as its endpoint.
constexpr double OutstandingFactor = 4;
constexpr qint64 MinOutstandingMs = 100;
} // namespace

EndpointScorer::EndpointScorer(int endpoints)
    : m_states(endpoints)
{}

void EndpointScorer::recordSuccess(int endpoint, qint64 bytes, qint64 durationMs)
{
    State &state = m_states[endpoint];
    const double rate = double(bytes) * 1000.0 / double(std::max<qint64>(1, durationMs));
    state.goodput = state.samples == 0 ? rate : (1 - Smoothing) * state.goodput + Smoothing * rate;
    const double duration = double(std::max<qint64>(1, durationMs));
    state.durationMs =
        state.samples == 0 ? duration : (1 - Smoothing) * state.durationMs + Smoothing * duration;
    state.errorRate *= 1 - Smoothing;
    ++state.samples;
}

void EndpointScorer::recordFailure(int endpoint)
{
    State &state = m_states[endpoint];
    state.errorRate = (1 - Smoothing) * state.errorRate + Smoothing;
}

void EndpointScorer::recordOutstanding(const QList<OutstandingRequest> &requests)
{
    for (State &state : m_states)
        state.outstandingCeiling = 0;
    // The yardstick as the answers left it: the bounds below must not move it as they land.
    const State *best = bestState();
    if (!best)
        return;
    const double bestRate = deliverable(*best);
    const double typicalMs = best->durationMs;
    for (const OutstandingRequest &request : requests) {
        const double elapsedMs = double(request.elapsedMs);
        if (elapsedMs < std::max(double(MinOutstandingMs), OutstandingFactor * typicalMs))
            continue;
        // As a share of the best: by bytes (it carried at most all of them so far), or by time
        // (the best's requests take typicalMs; this one took longer already), whichever is kinder:
        // the bytes alone would judge a small request by a big one's rate.
        const double byBytes = double(std::max<qint64>(1, request.bytes)) * 1000.0 / elapsedMs / bestRate;
        const double byTime = typicalMs / elapsedMs;
        const double bound = std::max(byBytes, byTime) * bestRate;
        double &ceiling = m_states[request.endpoint].outstandingCeiling;
        ceiling = ceiling > 0 ? std::min(ceiling, bound) : bound;
    }
}

void EndpointScorer::clearOutstanding(int endpoint)
{
    m_states[endpoint].outstandingCeiling = 0;
}

double EndpointScorer::deliverable(const State &state) const
{
    const bool measured = state.samples >= MinSamples;
    const bool waiting = state.outstandingCeiling > 0;
    if (!measured && !waiting)
        return -1;
    double rate = measured ? state.goodput : state.outstandingCeiling;
    if (waiting)
        rate = std::min(rate, state.outstandingCeiling);
    return rate * (1 - state.errorRate);
}

const EndpointScorer::State *EndpointScorer::bestState() const
{
    // Only measured endpoints set the yardstick: a bound from a request still out is no rate.
    const State *best = nullptr;
    for (const State &state : m_states) {
        if (state.samples >= MinSamples && deliverable(state) > 0 &&
            (!best || deliverable(state) > deliverable(*best)))
            best = &state;
    }
    return best;
}

double EndpointScorer::bestDeliverable() const
{
    const State *best = bestState();
    return best ? deliverable(*best) : 0;
}

double EndpointScorer::rateIfClearlySlower(int endpoint) const
{
    const State *best = bestState();
    const State &state = m_states.at(endpoint);
    const double rate = deliverable(state);
    if (!best || rate <= 0 || rate * 2 >= deliverable(*best))
        return -1;
    // A rate alone does not tell: an endpoint that carried small files has a low one by their
    // round trips. Its requests must also take longer than the best one's (or one be out for
    // long, which says the same).
    const bool slowRequests = state.outstandingCeiling > 0 || state.durationMs > 2 * best->durationMs;
    return slowRequests ? rate : -1;
}

double EndpointScorer::pipelineShare(int endpoint) const
{
    const double rate = rateIfClearlySlower(endpoint);
    return rate > 0 ? rate / bestDeliverable() : 1.0;
}

bool EndpointScorer::outlastsTheRest(int endpoint, qint64 bytes, qint64 bytesAhead, double restSeconds) const
{
    const double rate = rateIfClearlySlower(endpoint);
    if (rate <= 0)
        return false;
    const double hereSeconds = double(bytesAhead + bytes) / rate;
    const double fastestSeconds = double(bytes) / bestDeliverable();
    return hereSeconds > restSeconds + fastestSeconds;
}

int EndpointScorer::weight(int endpoint) const
{
    const double best = bestDeliverable();
    const double rate = deliverable(m_states.at(endpoint));
    if (best <= 0 || rate < 0)
        return Scale;
    return std::clamp(int(std::lround(std::min(1.0, rate / best) * Scale)), 1, Scale);
}

} // namespace multilane
