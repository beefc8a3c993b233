#include "Md5Digest.h"

#include <openssl/evp.h>

namespace multilane {

struct Md5Digest::State {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    ~State() { EVP_MD_CTX_free(ctx); }
};

Md5Digest::Md5Digest()
    : m_state(std::make_unique<State>())
{
    EVP_DigestInit_ex(m_state->ctx, EVP_md5(), nullptr);
}

Md5Digest::~Md5Digest() = default;

void Md5Digest::addData(const char *data, std::size_t length)
{
    EVP_DigestUpdate(m_state->ctx, data, length);
}

QByteArray Md5Digest::result()
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(m_state->ctx, digest, &length);
    return QByteArray(reinterpret_cast<const char *>(digest), int(length));
}

QByteArray Md5Digest::of(const QByteArray &data)
{
    Md5Digest digest;
    digest.addData(data);
    return digest.result();
}

} // namespace multilane
