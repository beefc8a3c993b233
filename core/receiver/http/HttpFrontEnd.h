#pragma once

#include "ListenAddress.h"
#include "MetricsAccess.h"
#include "ReceiverMetrics.h"
#include "ReloadableTlsContext.h"

#include <QList>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace httplib {
struct Request;
class Server;
} // namespace httplib

namespace multilane {

class ProtocolService;

// The HTTP(S) front end: one cpp-httplib server per listen address, each accepting on its own
// thread and serving connections from its own thread pool, all over one shared ProtocolService.
class HttpFrontEnd {
public:
    struct Options {
        // Open connections per address, each with its own thread (httplib is thread-per-connection);
        // more get 503 `busy` from a few spare threads (ConnectionQueue).
        int maxConnections = 256;
        int idleTimeoutSeconds = 10; // how long a kept-alive connection may wait for its next request
        int ioTimeoutSeconds = 60;
        // Set: every address serves HTTPS with this certificate, else HTTP.
        std::optional<TlsFiles> tls;
        // Called from server threads for failed requests and finished files; unset = silent.
        std::function<void(const QString &line)> log;
        // Called from server threads with one logfmt line per request (HttpBridge::accessLine).
        std::function<void(const QString &line)> accessLog;
        // The access log's `token` field: which token a request used (never the token itself).
        // Called concurrently from server threads, after the response was written.
        std::function<QString(const QByteArray &authorization)> tokenId;
        // Where the counters go (it must outlive the server); unset: the server keeps its own.
        ReceiverMetrics *metrics = nullptr;
        // A listener that serves only GET /metrics and GET /v1/health.
        std::optional<ListenAddress> metricsAddress;
        // With a token, the upload ports serve /metrics to requests that bear it (and the metrics
        // listener asks for it too); without one, /metrics is only on metricsAddress.
        QByteArray metricsToken;
    };

    explicit HttpFrontEnd(ProtocolService &service);
    HttpFrontEnd(ProtocolService &service, Options options);
    ~HttpFrontEnd(); // stops
    HttpFrontEnd(const HttpFrontEnd &) = delete;
    HttpFrontEnd &operator=(const HttpFrontEnd &) = delete;

    // Binds every address and starts serving. On failure nothing is left listening and the
    // message names the address and says what to do.
    std::optional<QString> start(const QList<ListenAddress> &addresses);
    // The addresses as bound, with the real port where port 0 was asked for.
    QList<ListenAddress> boundAddresses() const;
    // The metrics listener as bound, when there is one.
    std::optional<ListenAddress> boundMetricsAddress() const;
    ReceiverMetrics &metrics() { return *m_metrics; }
    bool usesTls() const { return m_options.tls.has_value(); }
    // SHA-256 of the served certificate (DER, hex) for clients' --pin-sha256; empty without TLS.
    QString certificateSha256() const;
    // Reads the certificate and key files again (after a renewal) for connections from now on; on
    // a problem the certificate in use stays and the message says why. nullopt without TLS.
    std::optional<QString> reloadTls();
    // TLS handshakes completed so far over every address, and how many resumed a session
    // (a resumed one skips the certificate and key exchange work).
    using TlsHandshakes = ReloadableTlsContext::Handshakes;
    TlsHandshakes tlsHandshakes() const;
    // Stops accepting, lets running requests finish and joins the threads. Idempotent.
    void stop();

private:
    struct Listener;
    static void launch(Listener &listener);
    std::optional<QString> serveUploads(Listener &listener); // a problem if it cannot
    void serveMetricsOnly(httplib::Server &http);
    void observe(httplib::Server &http);
    std::optional<QString> bind(Listener &listener, const ListenAddress &address);

    ProtocolService &m_service;
    Options m_options;
    ReceiverMetrics m_ownMetrics;
    ReceiverMetrics *m_metrics;
    MetricsAccess m_metricsAccess;
    std::unique_ptr<ReloadableTlsContext> m_tls; // one for every HTTPS listener; outlives them
    std::vector<std::unique_ptr<Listener>> m_listeners;
};

} // namespace multilane
