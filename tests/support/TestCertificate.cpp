#include "TestCertificate.h"

#include <QDir>
#include <QFile>
#include <memory>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace {

struct KeyFree {
    void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};
struct CertificateFree {
    void operator()(X509 *certificate) const { X509_free(certificate); }
};
struct FileClose {
    void operator()(FILE *file) const { std::fclose(file); }
};

// Adds one v3 extension in openssl.cnf syntax, e.g. "DNS:localhost,IP:127.0.0.1".
bool addExtension(X509 *certificate, int nid, const char *value)
{
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, certificate, certificate, nullptr, nullptr, 0);
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
    if (!extension)
        return false;
    const bool added = X509_add_ext(certificate, extension, -1) == 1;
    X509_EXTENSION_free(extension);
    return added;
}

template<typename Write> bool writePem(const QString &path, Write write)
{
    const std::unique_ptr<FILE, FileClose> file(std::fopen(QFile::encodeName(path).constData(), "wb"));
    return file && write(file.get()) == 1;
}

} // namespace

TestCertificate TestCertificate::create(const QString &dir, const QString &name)
{
    const std::unique_ptr<EVP_PKEY, KeyFree> key(EVP_EC_gen("P-256"));
    const std::unique_ptr<X509, CertificateFree> certificate(X509_new());
    if (!key || !certificate)
        return {};
    X509 *x509 = certificate.get();
    unsigned char serial[8];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7f; // positive
    BIGNUM *serialNumber = BN_bin2bn(serial, sizeof serial, nullptr);
    BN_to_ASN1_INTEGER(serialNumber, X509_get_serialNumber(x509));
    BN_free(serialNumber);
    X509_set_version(x509, X509_VERSION_3);
    X509_gmtime_adj(X509_getm_notBefore(x509), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x509), 24 * 3600);
    X509_set_pubkey(x509, key.get());
    X509_NAME *subject = X509_get_subject_name(x509);
    X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char *>("localhost"), -1, -1, 0);
    X509_set_issuer_name(x509, subject);
    // Like `openssl req -x509`: its own CA, so --ca-file can name it.
    if (!addExtension(x509, NID_basic_constraints, "critical,CA:TRUE") ||
        !addExtension(x509, NID_subject_key_identifier, "hash") ||
        !addExtension(x509, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1") ||
        X509_sign(x509, key.get(), EVP_sha256()) == 0)
        return {};

    TestCertificate result;
    result.certificateFile = QDir(dir).filePath(name + QStringLiteral(".crt"));
    result.keyFile = QDir(dir).filePath(name + QStringLiteral(".key"));
    if (!writePem(result.certificateFile, [x509](FILE *file) { return PEM_write_X509(file, x509); }) ||
        !writePem(result.keyFile, [&key](FILE *file) {
            return PEM_write_PrivateKey(file, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
        }))
        return {};
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (X509_digest(x509, EVP_sha256(), digest, &length) != 1)
        return {};
    result.sha256Hex =
        QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(digest), int(length)).toHex());
    return result;
}
