#include "DirectCall.h"

#include "ConnectionPool.h"

#include <unistd.h>

namespace multilane {

DirectCall::DirectCall(ConnectionPool &pool, const Endpoint &endpoint, const QString &origin, const QUrl &url,
                       const OutgoingRequest &request)
    : m_pool(&pool)
    , m_endpoint(endpoint)
    , m_origin(origin)
    , m_url(url)
    , m_request(request)
{}

DirectCall::~DirectCall()
{
    if (!m_done && m_pool)
        m_pool->forget(this);
    if (m_request.fileFd >= 0)
        ::close(m_request.fileFd);
}

void DirectCall::abort()
{
    // As Qt says of an aborted reply.
    if (!m_done && m_pool)
        m_pool->cancel(this, QStringLiteral("Operation canceled"));
}

void DirectCall::finish(const WireReply &reply)
{
    if (m_done)
        return;
    m_done = true;
    m_reply = reply;
    if (m_request.fileFd >= 0) {
        ::close(m_request.fileFd);
        m_request.fileFd = -1;
    }
    Q_EMIT finished();
}

} // namespace multilane
