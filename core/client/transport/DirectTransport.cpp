#include "DirectTransport.h"

#include "ConnectionPool.h"
#include "DirectCall.h"
#include "HttpRequestHead.h"
#include "UnsentCall.h"

#include <QCoreApplication>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace multilane {

namespace {

QString originOf(const QUrl &url, int endpoint)
{
    // Connections carry the endpoint's TLS trust, so two endpoints never share one.
    return url.scheme() + QLatin1String("://") + url.host().toLower() + QLatin1Char(':') +
           QString::number(url.port(url.scheme() == QLatin1String("https") ? 443 : 80)) + QLatin1Char('#') +
           QString::number(endpoint);
}

// A body this small is read into the request and goes out with its head in one send(): a
// sendfile() of it costs four system calls more (the SIGPIPE guard around it, the head's own
// send), which for files of a few KiB is more than copying them.
constexpr qint64 SmallBodyBytes = 16 * 1024;

void takeBodyIntoMemory(OutgoingRequest &request)
{
    const qsizetype headSize = request.headAndBody.size();
    request.headAndBody.resize(headSize + request.fileLength);
    qint64 got = 0;
    while (got < request.fileLength) {
        const ssize_t n = ::pread(request.fileFd, request.headAndBody.data() + headSize + got,
                                  std::size_t(request.fileLength - got), off_t(request.fileOffset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += n;
    }
    if (got < request.fileLength) {
        // Shorter than planned (or unreadable): the file path reports it as it reports any file
        // that shrank while it was sent.
        request.headAndBody.truncate(headSize);
        return;
    }
    request.bodyInMemory = request.fileLength;
    ::close(request.fileFd);
    request.fileFd = -1;
    request.fileLength = 0;
}

} // namespace

DirectTransport::DirectTransport(const EndpointPool &pool, int transferTimeoutMs)
    : m_transferTimeoutMs(transferTimeoutMs)
    , m_userAgent("multilane/" + QCoreApplication::applicationVersion().toUtf8())
    , m_pool(std::make_unique<ConnectionPool>())
    , m_pipelines(qEnvironmentVariable("MULTILANE_PIPELINING").trimmed().toLower() != QLatin1String("off"))
{
    for (int endpoint = 0; endpoint < pool.endpointCount(); ++endpoint)
        m_endpoints.append(pool.endpoint(endpoint));
}

DirectTransport::DirectTransport(const QList<Endpoint> &endpoints, int transferTimeoutMs)
    : m_endpoints(endpoints)
    , m_transferTimeoutMs(transferTimeoutMs)
    , m_userAgent("multilane/" + QCoreApplication::applicationVersion().toUtf8())
    , m_pool(std::make_unique<ConnectionPool>())
    , m_pipelines(qEnvironmentVariable("MULTILANE_PIPELINING").trimmed().toLower() != QLatin1String("off"))
{}

DirectTransport::~DirectTransport() = default;

WireCall *DirectTransport::send(const EndpointLease &lease, const WireRequest &wire)
{
    WireCall *call = makeCall(lease, wire);
    if (auto *direct = qobject_cast<DirectCall *>(call))
        m_pool->enqueue(direct);
    return call;
}

WireCall *DirectTransport::sendBehind(WireCall *ahead, const EndpointLease &lease, const WireRequest &wire)
{
    auto *head = qobject_cast<DirectCall *>(ahead);
    if (!m_pipelines || !head || head->isDone() || !head->connection ||
        head->origin() != originOf(wire.url, lease.endpoint))
        return nullptr;
    WireCall *call = makeCall(lease, wire);
    if (auto *direct = qobject_cast<DirectCall *>(call)) {
        direct->behind = head->connection;
        m_pool->enqueue(direct);
    }
    return call;
}

WireCall *DirectTransport::makeCall(const EndpointLease &lease, const WireRequest &wire)
{
    OutgoingRequest request;
    request.headAndBody = HttpRequestHead::build(wire, m_userAgent);
    if (!wire.file && !wire.body.isEmpty()) {
        request.headAndBody += wire.body;
        request.bodyInMemory = wire.body.size();
    }
    request.headRequest = wire.method == "HEAD";
    request.timeoutMs = wire.timeoutMs > 0 ? wire.timeoutMs : m_transferTimeoutMs;
    if (wire.file) {
        request.fileFd = ::open(QFile::encodeName(wire.file->path).constData(), O_RDONLY | O_CLOEXEC);
        if (request.fileFd < 0)
            return new UnsentCall(QStringLiteral("cannot read %1: %2")
                                      .arg(wire.file->path, QString::fromLocal8Bit(std::strerror(errno))));
        request.fileOffset = wire.file->offset;
        request.fileLength = wire.file->length;
        request.filePath = wire.file->path;
        if (request.fileLength <= SmallBodyBytes)
            takeBodyIntoMemory(request);
    }
    auto *call = new DirectCall(*m_pool, m_endpoints.at(lease.endpoint), originOf(wire.url, lease.endpoint),
                                wire.url, request);
    // The pool owns what its sender has not deleted yet (a health check may go first).
    call->setParent(m_pool.get());
    return call;
}

void DirectTransport::closeIdleConnections()
{
    m_pool->closeIdle();
}

void DirectTransport::warmUp(int endpoint, const QUrl &origin, int connections)
{
    m_pool->warmUp(m_endpoints.at(endpoint), originOf(origin, endpoint), origin, connections);
}

WireTransport::Delivery DirectTransport::delivery()
{
    return m_pool->delivery();
}

int DirectTransport::openConnections() const
{
    return m_pool->openConnections();
}

} // namespace multilane
