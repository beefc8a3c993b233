#include "NetworkTransport.h"

#include "FileRangeDevice.h"
#include "NoDelaySockets.h"
#include "ReplyEnd.h"
#include "TlsTrust.h"
#include "UnsentCall.h"

#include <QCoreApplication>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>

namespace multilane {

namespace {

std::unique_ptr<QNetworkAccessManager> newManager()
{
    auto manager = std::make_unique<QNetworkAccessManager>();
    manager->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    TlsTrust::watch(*manager);
    return manager;
}

// A request Qt carries; its QNetworkReply goes with it.
class NetworkCall final : public WireCall {
public:
    explicit NetworkCall(QNetworkReply *reply)
        : m_reply(reply)
    {
        NoDelaySockets::watch(reply);
        connect(reply, &QNetworkReply::uploadProgress, this,
                [this](qint64 sent, qint64) { Q_EMIT bytesSent(sent); });
        connect(reply, &QNetworkReply::finished, this, &NetworkCall::onFinished);
    }
    ~NetworkCall() override
    {
        if (m_reply) {
            m_reply->disconnect(this);
            ReplyEnd::release(m_reply);
        }
    }

    void abort() override
    {
        // Only a running reply may be aborted (ReplyEnd): one that has failed or finished ends by itself.
        if (m_reply && !m_done)
            ReplyEnd::abortIfRunning(*m_reply);
    }
    const WireReply &reply() const override { return m_result; }

private:
    void onFinished()
    {
        if (m_done)
            return;
        m_done = true;
        m_result = NetworkTransport::readReply(*m_reply);
        m_reply->disconnect(this);
        ReplyEnd::release(m_reply);
        Q_EMIT finished();
    }

    QPointer<QNetworkReply> m_reply;
    WireReply m_result;
    bool m_done = false;
};

} // namespace

NetworkTransport::NetworkTransport(const EndpointPool &pool, int transferTimeoutMs)
    : m_transferTimeoutMs(transferTimeoutMs)
    , m_control(newManager())
{
    m_lanes.resize(std::size_t(pool.endpointCount()));
    for (int endpoint = 0; endpoint < pool.endpointCount(); ++endpoint) {
        const Endpoint &e = pool.endpoint(endpoint);
        m_endpoints.append(e);
        m_ports.append(quint16(e.url.port(e.url.scheme() == QLatin1String("https") ? 443 : 80)));
    }
}

NetworkTransport::NetworkTransport(const QList<Endpoint> &endpoints, int transferTimeoutMs)
    : m_endpoints(endpoints)
    , m_transferTimeoutMs(transferTimeoutMs)
    , m_control(newManager())
{
    m_lanes.resize(std::size_t(endpoints.size()));
}

NetworkTransport::~NetworkTransport() = default;

QNetworkAccessManager &NetworkTransport::managerFor(const EndpointLease &lease)
{
    if (lease.lane == ControlLane)
        return *m_control;
    // Lanes open as the pool hands them out: how many an endpoint gets is known only once its
    // receiver has said what it allows.
    auto &lanes = m_lanes.at(std::size_t(lease.endpoint));
    while (lanes.size() <= std::size_t(lease.lane))
        lanes.push_back(newManager());
    return *lanes.at(std::size_t(lease.lane));
}

QNetworkRequest NetworkTransport::toNetworkRequest(const Endpoint &endpoint, const WireRequest &wire,
                                                   int transferTimeoutMs)
{
    QNetworkRequest request(wire.url);
    request.setHeader(QNetworkRequest::UserAgentHeader,
                      QStringLiteral("multilane/%1").arg(QCoreApplication::applicationVersion()));
    // A transfer with no bytes moving for this long is aborted and retried elsewhere.
    request.setTransferTimeout(transferTimeoutMs);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    // Answers are small: compressing them costs the server far more CPU than the bytes are worth
    // (Qt would otherwise ask for br and gzip).
    request.setRawHeader("Accept-Encoding", "identity");
    for (const WireHeader &header : wire.headers)
        request.setRawHeader(header.name, header.value);
    if (wire.file || !wire.body.isEmpty() || wire.method == "PUT" || wire.method == "POST")
        request.setHeader(QNetworkRequest::ContentLengthHeader, wire.bodyLength());
    TlsTrust::apply(request, endpoint);
    return request;
}

WireCall *NetworkTransport::send(const EndpointLease &lease, const WireRequest &wire)
{
    const QNetworkRequest request = toNetworkRequest(
        m_endpoints.at(lease.endpoint), wire, wire.timeoutMs > 0 ? wire.timeoutMs : m_transferTimeoutMs);
    QNetworkAccessManager &manager = managerFor(lease);
    QIODevice *body = nullptr;
    if (wire.file) {
        auto *device = new FileRangeDevice(wire.file->path, wire.file->offset, wire.file->length);
        if (!device->open(QIODevice::ReadOnly)) {
            const QString why =
                QStringLiteral("cannot read %1: %2").arg(wire.file->path, device->errorString());
            delete device;
            return new UnsentCall(why);
        }
        body = device;
    }
    QNetworkReply *reply = nullptr;
    if (wire.method == "GET")
        reply = manager.get(request);
    else if (wire.method == "HEAD")
        reply = manager.head(request);
    else if (wire.method == "DELETE")
        reply = manager.deleteResource(request);
    else if (body)
        reply = manager.sendCustomRequest(request, wire.method, body);
    else
        reply = manager.sendCustomRequest(request, wire.method, wire.body);
    if (body)
        body->setParent(reply);
    return new NetworkCall(reply);
}

WireTransport::Delivery NetworkTransport::delivery()
{
    if (!m_meter.isAvailable())
        return {};
    const DeliveryMeter::Sample sample = m_meter.sample(m_ports);
    return {sample.ackedBytes, sample.smoothedRttMs, sample.minRttMs};
}

void NetworkTransport::closeIdleConnections()
{
    for (auto &lanes : m_lanes) {
        for (auto &manager : lanes)
            manager->clearConnectionCache();
    }
    m_control->clearConnectionCache();
}

WireReply NetworkTransport::readReply(QNetworkReply &reply)
{
    WireReply result;
    result.httpStatus = reply.attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.reasonPhrase = reply.attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray();
    for (const QNetworkReply::RawHeaderPair &header : reply.rawHeaderPairs())
        result.headers.append({header.first, header.second});
    // An aborted reply (a stall past the transfer timeout, a pause) is closed: it has no body
    // to read, and reading it makes Qt warn.
    if (reply.isOpen())
        result.body = reply.readAll();
    // A refusal status is an answer whatever else Qt says of the connection; an error with no
    // status or with a success status (the answer cut short) means no whole answer came.
    const bool success = result.httpStatus >= 200 && result.httpStatus < 300;
    if (reply.error() != QNetworkReply::NoError && (result.httpStatus == 0 || success))
        result.networkError = reply.errorString();
    result.closedUnanswered = reply.error() == QNetworkReply::RemoteHostClosedError && result.httpStatus == 0;
    if (const std::optional<TlsTrust::TlsFailure> tls = TlsTrust::failure(reply)) {
        result.tlsFailure = tls->message;
        result.tlsCode = tls->code;
        if (result.networkError.isEmpty())
            result.networkError = tls->message;
    }
    return result;
}

} // namespace multilane
