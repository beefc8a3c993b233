#pragma once

#include <QList>
#include <QtGlobal>

namespace multilane {

// Scores endpoints by what they deliver instead of rotating blindly: each finished data request
// adds its goodput (bytes / seconds it took) to a moving average per endpoint, each failure
// raises a moving error rate. weight() turns that into a share of the chunks: a slow or lossy
// endpoint gets fewer, a fast one more. Time is passed in, nothing here sleeps or measures.
class EndpointScorer {
public:
    static constexpr int Scale = 100; // weights are integers for the pool's round-robin

    explicit EndpointScorer(int endpoints);

    void recordSuccess(int endpoint, qint64 bytes, qint64 durationMs);
    void recordFailure(int endpoint);
    // Relative weight in [1, Scale]: Scale for the best endpoint, proportionally less for the
    // others; an endpoint not yet measured gets the best one's weight (it must get a chance).
    int weight(int endpoint) const;
    double goodput(int endpoint) const { return m_states.at(endpoint).goodput; }
    double errorRate(int endpoint) const { return m_states.at(endpoint).errorRate; }

private:
    struct State {
        double goodput = 0; // bytes per second per request, moving average
        double errorRate = 0;
        int samples = 0;
    };
    QList<State> m_states;
};

} // namespace multilane
