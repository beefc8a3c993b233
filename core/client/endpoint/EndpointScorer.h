#pragma once

#include <QList>
#include <QtGlobal>

namespace multilane {

// Scores endpoints by what they deliver instead of rotating blindly: each finished data request
// adds its goodput (bytes / seconds it took) to a moving average per endpoint, each failure
// raises a moving error rate. weight() turns that into a share of the chunks: a slow or lossy
// endpoint gets fewer, a fast one more. A request still out counts before its answer: an endpoint
// whose requests have been out far longer than the best one's take (one not yet measured, or one
// that has stalled) gets less at once, instead of a full share until its answers come in, seconds
// later on a slow link. Time is passed in, nothing here sleeps or measures.
class EndpointScorer {
public:
    static constexpr int Scale = 100; // weights are integers for the pool's round-robin

    explicit EndpointScorer(int endpoints);

    void recordSuccess(int endpoint, qint64 bytes, qint64 durationMs);
    void recordFailure(int endpoint);
    struct OutstandingRequest {
        int endpoint = -1;
        qint64 bytes = 0;     // what it carries
        qint64 elapsedMs = 0; // since it started on the wire
    };
    // The data requests out now, in place of those recorded before. One counts once it has
    // taken several times what the best endpoint's requests take; the tightest bound of each
    // endpoint holds until the next call or clearOutstanding().
    void recordOutstanding(const QList<OutstandingRequest> &requests);
    void clearOutstanding(int endpoint);
    // Relative weight in [1, Scale]: Scale for the best endpoint, proportionally less for the
    // others; an endpoint not yet measured gets the best one's weight (it must get a chance)
    // unless a request of it that is out says it delivers less.
    int weight(int endpoint) const;
    double goodput(int endpoint) const { return m_states.at(endpoint).goodput; }
    // Of the bytes that may wait behind a connection's request, the share for a connection to
    // this endpoint: 1 where it delivers about what the best one does (within a factor of two:
    // the rest is the measurement's noise as much as theirs), its fraction of the best where it
    // is clearly slower (rateIfClearlySlower); such a connection's queue would hold work the
    // others carry sooner.
    double pipelineShare(int endpoint) const;
    // Would `bytes` sent to this endpoint, behind `bytesAhead` on its connection, arrive after
    // the rest of the upload (`restSeconds` of work at the upload's rate) and the best endpoint
    // would have carried them too? Only for an endpoint clearly slower than the best: towards an
    // upload's end its last requests would otherwise be the ones everyone waits for.
    bool outlastsTheRest(int endpoint, qint64 bytes, qint64 bytesAhead, double restSeconds) const;
    double errorRate(int endpoint) const { return m_states.at(endpoint).errorRate; }

private:
    struct State {
        double goodput = 0;    // bytes per second per request, moving average
        double durationMs = 0; // how long a request takes, moving average
        double errorRate = 0;
        int samples = 0;
        double outstandingCeiling = 0; // the most bytes per second its requests out can reach; 0: none
    };
    // What a request to the endpoint can be counted on to deliver, bytes per second (as weight()
    // weighs it): its measured goodput (when measured), no more than its requests out allow, less
    // its errors; negative when there is nothing to go by.
    double deliverable(const State &state) const;
    // The measured endpoint that delivers most, if any, and what it delivers (0: none).
    const State *bestState() const;
    double bestDeliverable() const;
    // The endpoint's rate where it is clearly slower than the best (under half, its requests
    // taking over twice as long), else -1.
    double rateIfClearlySlower(int endpoint) const;
    QList<State> m_states;
};

} // namespace multilane
