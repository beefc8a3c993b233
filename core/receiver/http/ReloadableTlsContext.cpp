#include "ReloadableTlsContext.h"

#include <openssl/ssl.h>

#include <utility>

namespace multilane {

ReloadableTlsContext::ReloadableTlsContext(TlsFiles files)
    : m_files(std::move(files))
{}

std::optional<QString> ReloadableTlsContext::reload()
{
    std::shared_ptr<ssl_ctx_st> fresh(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
    if (!fresh)
        return QStringLiteral("cannot set up TLS (OpenSSL could not make a context)");
    if (auto problem = CertificateLoader::configure(*fresh, m_files))
        return problem;
    const std::lock_guard lock(m_mutex);
    if (m_context) {
        m_retired.completed += SSL_CTX_sess_accept_good(m_context.get());
        m_retired.resumed += SSL_CTX_sess_hits(m_context.get());
    }
    m_context = std::move(fresh);
    return std::nullopt;
}

std::shared_ptr<ssl_ctx_st> ReloadableTlsContext::current() const
{
    const std::lock_guard lock(m_mutex);
    return m_context;
}

QString ReloadableTlsContext::certificateSha256() const
{
    const std::shared_ptr<ssl_ctx_st> context = current();
    return context ? CertificateLoader::certificateSha256(*context) : QString();
}

ReloadableTlsContext::Handshakes ReloadableTlsContext::handshakes() const
{
    const std::lock_guard lock(m_mutex);
    Handshakes total = m_retired;
    if (m_context) {
        total.completed += SSL_CTX_sess_accept_good(m_context.get());
        total.resumed += SSL_CTX_sess_hits(m_context.get());
    }
    return total;
}

} // namespace multilane
