#include "S3Redaction.h"

#include <QRegularExpression>
#include <QUrlQuery>

namespace multilane::S3Redaction {

namespace {

const QByteArray Hidden = QByteArrayLiteral("<redacted>");

bool isSecretQueryItem(const QString &name)
{
    return name.compare(QLatin1String("X-Amz-Signature"), Qt::CaseInsensitive) == 0 ||
           name.compare(QLatin1String("X-Amz-Security-Token"), Qt::CaseInsensitive) == 0 ||
           name.compare(QLatin1String("X-Amz-Credential"), Qt::CaseInsensitive) == 0;
}

} // namespace

QString maskedAccessKeyId(const QString &accessKeyId)
{
    if (accessKeyId.size() <= 4)
        return QStringLiteral("…");
    return accessKeyId.left(4) + QStringLiteral("…");
}

QByteArray shownHeaderValue(const QByteArray &name, const QByteArray &value)
{
    if (name.compare("x-amz-security-token", Qt::CaseInsensitive) == 0)
        return Hidden;
    if (name.compare("Authorization", Qt::CaseInsensitive) != 0)
        return value;
    // Keep the scope and the signed headers (they explain a SignatureDoesNotMatch); drop the rest.
    static const QRegularExpression credential(QStringLiteral("Credential=([^/,\\s]*)"));
    static const QRegularExpression signature(QStringLiteral("Signature=[0-9a-fA-F]*"));
    QString text = QString::fromLatin1(value);
    const QRegularExpressionMatch key = credential.match(text);
    if (key.hasMatch())
        text.replace(key.capturedStart(1), key.capturedLength(1), maskedAccessKeyId(key.captured(1)));
    text.replace(signature, QStringLiteral("Signature=<redacted>"));
    return text.toUtf8();
}

QString describe(const S3Request &request)
{
    QUrl url = request.url;
    QUrlQuery query(url);
    for (const auto &[name, value] : query.queryItems()) {
        if (isSecretQueryItem(name)) {
            query.removeAllQueryItems(name);
            query.addQueryItem(name, QString::fromLatin1(Hidden));
        }
    }
    url.setQuery(query);
    QStringList headers;
    for (const HttpHeader &header : request.headers)
        headers.append(QString::fromLatin1(header.name) + QStringLiteral(": ") +
                       QString::fromUtf8(shownHeaderValue(header.name, header.value)));
    QString text = QString::fromLatin1(request.method) + QLatin1Char(' ') + url.toString(QUrl::FullyEncoded);
    if (request.fileRange)
        text += QStringLiteral(" (body: %1 bytes of the file from %2)")
                    .arg(request.fileRange->length)
                    .arg(request.fileRange->offset);
    else if (!request.body.isEmpty())
        text += QStringLiteral(" (body: %1 bytes)").arg(request.body.size());
    return text + QStringLiteral(" [") + headers.join(QStringLiteral("; ")) + QLatin1Char(']');
}

QString scrub(const QString &text, const S3Credentials &credentials)
{
    QString scrubbed = text;
    for (const QString &secret : {credentials.secretAccessKey, credentials.sessionToken}) {
        if (!secret.isEmpty())
            scrubbed.replace(secret, QString::fromLatin1(Hidden));
    }
    return scrubbed;
}

} // namespace multilane::S3Redaction
