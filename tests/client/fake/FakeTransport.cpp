#include "FakeTransport.h"

#include <QTimer>

namespace multilane::testing {

namespace {

class FakeCall final : public WireCall {
public:
    FakeCall(const FakeTransport::Answer &answer, qint64 bodyLength, int &running, std::shared_ptr<int> alive)
        : m_running(running)
        , m_alive(std::move(alive))
    {
        ++m_running;
        ++*m_alive;
        if (answer.status != 0) {
            m_reply.httpStatus = answer.status;
            m_reply.body = answer.body;
        } else {
            m_reply.networkError = QStringLiteral("Connection refused");
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
        Q_EMIT finished();
    }

    int &m_running;
    std::shared_ptr<int> m_alive;
    WireReply m_reply;
    bool m_done = false;
};

} // namespace

FakeTransport::FakeTransport(Script script)
    : m_script(std::move(script))
{}

WireCall *FakeTransport::send(const EndpointLease &lease, const WireRequest &request)
{
    const Sent sent{lease, request.method, request.url.path()};
    m_sent.append(sent);
    const Answer answer = m_script ? m_script(sent) : Answer{};
    return new FakeCall(answer, request.bodyLength(), m_running, m_alive);
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
