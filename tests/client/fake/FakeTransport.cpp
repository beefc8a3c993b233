#include "FakeTransport.h"

#include <QPointer>
#include <QTimer>

#include <algorithm>

namespace multilane::testing {

namespace {

class FakeCall final : public WireCall {
public:
    FakeCall(const FakeTransport::Answer &answer, qint64 bodyLength, int &running, int &runningBehind,
             std::shared_ptr<int> alive, FakeCall *ahead = nullptr)
        : m_running(running)
        , m_runningBehind(runningBehind)
        , m_alive(std::move(alive))
    {
        ++m_running;
        if (ahead && !ahead->m_done) {
            // Behind it until it ends, then in its place.
            ahead->m_behind = this;
            m_ahead = ahead;
            m_isBehind = true;
            ++m_runningBehind;
        }
        ++*m_alive;
        if (answer.status != 0) {
            m_reply.httpStatus = answer.status;
            m_reply.body = answer.body;
        } else {
            m_reply.networkError = QStringLiteral("Connection refused");
        }
        if (bodyLength > 0 && (answer.hang || answer.delayMs > 0)) {
            // The body goes at once, the answer later (a round trip, a slow server) or never.
            QTimer::singleShot(0, this, [this, bodyLength] {
                if (!m_done)
                    Q_EMIT bytesSent(bodyLength);
            });
            bodyLength = 0;
        }
        if (answer.hang)
            return;
        QTimer::singleShot(answer.delayMs, this, [this, bodyLength] {
            if (bodyLength > 0)
                Q_EMIT bytesSent(bodyLength);
            finish();
        });
    }

    ~FakeCall() override { --*m_alive; }

    // How many calls are ahead of this one on its connection.
    int depth() const
    {
        int depth = 0;
        for (const FakeCall *call = this; call && call->m_isBehind; call = call->m_ahead)
            ++depth;
        return depth;
    }

    void abort() override
    {
        if (m_done)
            return;
        m_reply = {};
        m_reply.networkError = QStringLiteral("Operation canceled");
        finish();
    }
    const WireReply &reply() const override { return m_reply; }

private:
    void finish()
    {
        if (m_done)
            return;
        m_done = true;
        --m_running;
        if (m_isBehind) {
            // Ended before the one ahead (answered first): the one behind follows that one now.
            --m_runningBehind;
            m_isBehind = false;
            if (m_ahead)
                m_ahead->m_behind = m_behind;
            if (m_behind)
                m_behind->m_ahead = m_ahead;
        } else if (m_behind && m_behind->m_isBehind) {
            m_behind->m_isBehind = false;
            m_behind->m_ahead = nullptr;
            --m_runningBehind;
        }
        Q_EMIT finished();
    }

    int &m_running;
    int &m_runningBehind;
    std::shared_ptr<int> m_alive;
    QPointer<FakeCall> m_ahead;
    QPointer<FakeCall> m_behind;
    bool m_isBehind = false;
    WireReply m_reply;
    bool m_done = false;
};

} // namespace

FakeTransport::FakeTransport(Script script)
    : m_script(std::move(script))
{}

WireCall *FakeTransport::send(const EndpointLease &lease, const WireRequest &request)
{
    const Sent sent{
        lease, request.method, request.url.path(), false, m_running - m_runningBehind, int(m_sent.size())};
    m_sent.append(sent);
    const Answer answer = m_script ? m_script(sent) : Answer{};
    auto *call = new FakeCall(answer, request.bodyLength(), m_running, m_runningBehind, m_alive);
    call->setProperty("connection", sent.connection);
    m_mostRunningAhead = std::max(m_mostRunningAhead, m_running - m_runningBehind);
    return call;
}

WireCall *FakeTransport::sendBehind(WireCall *ahead, const EndpointLease &lease, const WireRequest &request)
{
    if (!m_pipelines)
        return nullptr;
    const Sent sent{lease,
                    request.method,
                    request.url.path(),
                    true,
                    m_running - m_runningBehind,
                    ahead->property("connection").toInt()};
    m_sent.append(sent);
    const Answer answer = m_script ? m_script(sent) : Answer{};
    auto *call = new FakeCall(answer, request.bodyLength(), m_running, m_runningBehind, m_alive,
                              static_cast<FakeCall *>(ahead));
    call->setProperty("connection", sent.connection);
    m_deepestBehind = std::max(m_deepestBehind, call->depth());
    return call;
}

int FakeTransport::sentBehind(const QString &pathPrefix) const
{
    return int(std::count_if(m_sent.cbegin(), m_sent.cend(), [&](const Sent &sent) {
        return sent.behind && sent.path.startsWith(pathPrefix);
    }));
}

int FakeTransport::count(const QString &pathPrefix, int endpoint) const
{
    int n = 0;
    for (const Sent &sent : m_sent) {
        if (sent.path.startsWith(pathPrefix) && (endpoint < 0 || sent.endpoint() == endpoint))
            ++n;
    }
    return n;
}

} // namespace multilane::testing
