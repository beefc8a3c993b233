#pragma once

#include "CertificateLoader.h"

#include <QString>
#include <memory>
#include <mutex>
#include <optional>

namespace multilane {

// The TLS context every HTTPS listener gives its new connections: one for all ports, so a session
// ticket from one port resumes on another, and replaced whole when the certificate is reloaded
// (SIGHUP after a renewal): connections already open keep the context they began with.
class ReloadableTlsContext {
public:
    explicit ReloadableTlsContext(TlsFiles files);

    // Reads the files into a new context and, when they are good, serves it from now on. On a
    // problem the context in use (if any) stays, and the message names the file and the fix.
    std::optional<QString> reload();
    // The context for a connection starting now; null until a reload succeeded.
    std::shared_ptr<ssl_ctx_st> current() const;
    // SHA-256 of the served certificate (DER, hex), as clients' --pin-sha256 takes it.
    QString certificateSha256() const;

    // Handshakes completed over every context served so far, and how many resumed a session.
    struct Handshakes {
        long completed = 0;
        long resumed = 0;
    };
    Handshakes handshakes() const;

private:
    const TlsFiles m_files;
    mutable std::mutex m_mutex;
    std::shared_ptr<ssl_ctx_st> m_context;
    Handshakes m_retired; // of the contexts replaced
};

} // namespace multilane
