#include "MetricsAccess.h"

#include "Sha256.h"

namespace multilane {

namespace {

QByteArray digestOf(const QByteArray &text)
{
    Sha256 hash;
    hash.addData(text);
    return hash.hexDigest();
}

// Time independent of where the first difference is, so a client cannot find the token byte by
// byte from response times. Both sides are digests of equal length.
bool sameDigest(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char difference = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    return difference == 0;
}

} // namespace

MetricsAccess::MetricsAccess(QByteArray token)
    : m_tokenDigest(token.isEmpty() ? QByteArray() : digestOf(token))
{}

bool MetricsAccess::allows(const QByteArray &authorization) const
{
    if (!requiresToken())
        return true;
    static const QByteArray Scheme = QByteArrayLiteral("bearer ");
    if (!authorization.left(Scheme.size()).toLower().startsWith(Scheme))
        return false;
    return sameDigest(digestOf(authorization.mid(Scheme.size()).trimmed()), m_tokenDigest);
}

} // namespace multilane
