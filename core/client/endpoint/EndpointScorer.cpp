#include "EndpointScorer.h"

#include <algorithm>
#include <cmath>

namespace multilane {

namespace {
constexpr double Smoothing = 0.3; // weight of the newest sample in the moving averages
constexpr int MinSamples = 2;     // before that, an endpoint counts as "not measured yet"
} // namespace

EndpointScorer::EndpointScorer(int endpoints)
    : m_states(endpoints)
{}

void EndpointScorer::recordSuccess(int endpoint, qint64 bytes, qint64 durationMs)
{
    State &state = m_states[endpoint];
    const double rate = double(bytes) * 1000.0 / double(std::max<qint64>(1, durationMs));
    state.goodput = state.samples == 0 ? rate : (1 - Smoothing) * state.goodput + Smoothing * rate;
    state.errorRate *= 1 - Smoothing;
    ++state.samples;
}

void EndpointScorer::recordFailure(int endpoint)
{
    State &state = m_states[endpoint];
    state.errorRate = (1 - Smoothing) * state.errorRate + Smoothing;
}

int EndpointScorer::weight(int endpoint) const
{
    double best = 0;
    for (const State &state : m_states) {
        if (state.samples >= MinSamples)
            best = std::max(best, state.goodput * (1 - state.errorRate));
    }
    const State &state = m_states.at(endpoint);
    if (best <= 0 || state.samples < MinSamples)
        return Scale;
    const double share = state.goodput * (1 - state.errorRate) / best;
    return std::clamp(int(std::lround(share * Scale)), 1, Scale);
}

} // namespace multilane
