#pragma once

#include <QString>
#include <optional>

struct ssl_ctx_st; // OpenSSL's SSL_CTX, kept out of this header

namespace multilane {

// The receiver's certificate chain and private key, as PEM files (certbot's fullchain.pem and
// privkey.pem, or a self-signed pair).
struct TlsFiles {
    QString certificateFile;
    QString keyFile;
};

// Loads TlsFiles into an OpenSSL server context, with messages that name the file at fault.
namespace CertificateLoader {

// Fills `context` (TLS 1.2 or newer, no compression, no renegotiation, session resumption on).
// nullopt on success; otherwise why, naming the file and what to do.
std::optional<QString> configure(ssl_ctx_st &context, const TlsFiles &files);

// SHA-256 of the context's certificate (DER), as lower-case hex: the value clients pass to
// --pin-sha256. Empty when the context has no certificate.
QString certificateSha256(const ssl_ctx_st &context);

} // namespace CertificateLoader
} // namespace multilane
