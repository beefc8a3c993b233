#pragma once

#include "WireTransport.h"

#include <QHash>
#include <QList>
#include <functional>
#include <memory>

namespace multilane::testing {

// A transport whose answers a test decides, request by request, in-process: an answer comes on
// the next turn of the event loop (or after a delay), or never, until the call is aborted.
class FakeTransport final : public WireTransport {
public:
    struct Answer {
        int status = 200; // 0: no answer (as a refused or reset connection)
        QByteArray body;
        bool hang = false; // no answer until aborted
        int delayMs = 0;
    };
    static Answer status(int status)
    {
        Answer answer;
        answer.status = status;
        return answer;
    }
    struct Sent {
        EndpointLease lease;
        QByteArray method;
        QString path;
        bool behind = false;  // sent behind another (sendBehind)
        int runningAhead = 0; // calls running then that were not behind another
        int connection = 0;   // a request sent behind another is on that one's connection
        int endpoint() const { return lease.endpoint; }
    };
    using Script = std::function<Answer(const Sent &request)>;

    explicit FakeTransport(Script script = {});

    void setScript(Script script) { m_script = std::move(script); }
    WireCall *send(const EndpointLease &lease, const WireRequest &request) override;
    // Where the test lets it (setPipelines), a request behind another is taken like any other but
    // counted apart; its answer follows its script, whatever the one ahead does.
    WireCall *sendBehind(WireCall *ahead, const EndpointLease &lease, const WireRequest &request) override;
    void setPipelines(bool pipelines) { m_pipelines = pipelines; }
    int sentBehind(const QString &pathPrefix = {}) const;
    // The most calls running at once that were not sent behind another.
    int mostRunningAhead() const { return m_mostRunningAhead; }
    // The most calls there were ahead of one sent behind (1: one behind another, no deeper).
    int deepestBehind() const { return m_deepestBehind; }
    void closeIdleConnections() override { ++m_idleClosures; }
    // Records the most connections asked to be open per endpoint.
    void warmUp(int endpoint, const QUrl &, int connections) override
    {
        m_warmed[endpoint] = std::max(m_warmed.value(endpoint), connections);
    }
    int warmed(int endpoint) const { return m_warmed.value(endpoint); }

    const QList<Sent> &sent() const { return m_sent; }
    int count(const QString &pathPrefix, int endpoint = -1) const;
    int idleClosures() const { return m_idleClosures; }
    int running() const { return m_running; }
    // Calls not yet deleted by their owners; outlives the transport, so a test can see what
    // an owner left behind after it went.
    std::shared_ptr<const int> aliveCalls() const { return m_alive; }

private:
    Script m_script;
    QList<Sent> m_sent;
    int m_idleClosures = 0;
    QHash<int, int> m_warmed;
    int m_running = 0;
    int m_runningBehind = 0;
    int m_mostRunningAhead = 0;
    int m_deepestBehind = 0;
    bool m_pipelines = false;
    std::shared_ptr<int> m_alive = std::make_shared<int>(0);
};

} // namespace multilane::testing
