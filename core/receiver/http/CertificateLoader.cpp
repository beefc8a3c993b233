#include "CertificateLoader.h"

#include <QFile>
#include <memory>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace multilane::CertificateLoader {

namespace {

struct BioFree {
    void operator()(BIO *bio) const { BIO_free(bio); }
};
struct KeyFree {
    void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};

// The first reason OpenSSL queued, for the message's parentheses.
QString openSslReason()
{
    const unsigned long error = ERR_get_error();
    ERR_clear_error();
    const char *reason = error ? ERR_reason_error_string(error) : nullptr;
    return reason ? QString::fromLatin1(reason) : QStringLiteral("unknown OpenSSL error");
}

// Without this OpenSSL would prompt on the terminal for an encrypted key's passphrase, which a
// service cannot answer.
int refusePassphrase(char *, int, int, void *)
{
    return 0;
}

std::optional<QString> unreadable(const QString &what, const QString &path)
{
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return QStringLiteral("cannot read the TLS %1 %2: %3").arg(what, path, file.errorString());
}

} // namespace

std::optional<QString> configure(ssl_ctx_st &context, const TlsFiles &files)
{
    ERR_clear_error();
    if (auto problem = unreadable(QStringLiteral("certificate"), files.certificateFile))
        return problem;
    if (auto problem = unreadable(QStringLiteral("key"), files.keyFile))
        return problem;

    SSL_CTX_set_min_proto_version(&context, TLS1_2_VERSION);
    SSL_CTX_set_options(&context, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_default_passwd_cb(&context, refusePassphrase);

    const QByteArray certificatePath = QFile::encodeName(files.certificateFile);
    if (SSL_CTX_use_certificate_chain_file(&context, certificatePath.constData()) != 1)
        return QStringLiteral("%1 holds no usable PEM certificate (%2); --tls-cert takes the certificate "
                              "chain, e.g. certbot's fullchain.pem")
            .arg(files.certificateFile, openSslReason());

    const QByteArray keyPath = QFile::encodeName(files.keyFile);
    const std::unique_ptr<BIO, BioFree> keyInput(BIO_new_file(keyPath.constData(), "r"));
    const std::unique_ptr<EVP_PKEY, KeyFree> key(
        keyInput ? PEM_read_bio_PrivateKey(keyInput.get(), nullptr, refusePassphrase, nullptr) : nullptr);
    if (!key)
        return QStringLiteral("%1 holds no usable PEM private key (%2); a key with a passphrase must be "
                              "decrypted first: openssl pkey -in KEY -out PLAIN-KEY")
            .arg(files.keyFile, openSslReason());
    if (X509_check_private_key(SSL_CTX_get0_certificate(&context), key.get()) != 1) {
        ERR_clear_error();
        return QStringLiteral("the TLS key %1 does not belong to the certificate %2; pass the key that was "
                              "made with that certificate")
            .arg(files.keyFile, files.certificateFile);
    }
    if (SSL_CTX_use_PrivateKey(&context, key.get()) != 1)
        return QStringLiteral("cannot use the TLS key %1 (%2)").arg(files.keyFile, openSslReason());
    return std::nullopt;
}

QString certificateSha256(const ssl_ctx_st &context)
{
    X509 *certificate = SSL_CTX_get0_certificate(&context);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!certificate || X509_digest(certificate, EVP_sha256(), digest, &length) != 1)
        return {};
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(digest), int(length)).toHex());
}

} // namespace multilane::CertificateLoader
