#pragma once

#include "ListenAddress.h"
#include "TlsServerContext.h"

#include <QList>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace multilane {

class ReceiverService;

// The HTTP(S) front end: one cpp-httplib server per listen address, each accepting on its own
// thread and serving connections from its own thread pool, all over one shared ReceiverService.
class ReceiverServer {
public:
    struct Options {
        // Open connections per address, each with its own thread (httplib is thread-per-connection);
        // more get 503 `busy` from a few spare threads (ConnectionQueue).
        int maxConnections = 256;
        int idleTimeoutSeconds = 10; // how long a kept-alive connection may wait for its next request
        int ioTimeoutSeconds = 60;
        // Set: every address serves HTTPS with this certificate (httplib's SSLServer), else HTTP.
        std::optional<TlsFiles> tls;
        // Called from server threads for failed requests and finished files; unset = silent.
        std::function<void(const QString &line)> log;
    };

    explicit ReceiverServer(ReceiverService &service);
    ReceiverServer(ReceiverService &service, Options options);
    ~ReceiverServer(); // stops
    ReceiverServer(const ReceiverServer &) = delete;
    ReceiverServer &operator=(const ReceiverServer &) = delete;

    // Binds every address and starts serving. On failure nothing is left listening and the
    // message names the address and says what to do.
    std::optional<QString> start(const QList<ListenAddress> &addresses);
    // The addresses as bound, with the real port where port 0 was asked for.
    QList<ListenAddress> boundAddresses() const;
    bool usesTls() const { return m_options.tls.has_value(); }
    // SHA-256 of the served certificate (DER, hex) for clients' --pin-sha256; empty without TLS.
    QString certificateSha256() const;
    // TLS handshakes completed so far over every address, and how many resumed a session
    // (a resumed one skips the certificate and key exchange work).
    struct TlsHandshakes {
        long completed = 0;
        long resumed = 0;
    };
    TlsHandshakes tlsHandshakes() const;
    // Stops accepting, lets running requests finish and joins the threads. Idempotent.
    void stop();

private:
    struct Listener;
    static void launch(Listener &listener);

    ReceiverService &m_service;
    Options m_options;
    std::vector<std::unique_ptr<Listener>> m_listeners;
};

} // namespace multilane
