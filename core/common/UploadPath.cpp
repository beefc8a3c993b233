#include "UploadPath.h"

#include <QStringDecoder>
#include <QStringList>

namespace multilane::UploadPath {

std::optional<QString> problem(const QByteArray &utf8Path)
{
    if (utf8Path.isEmpty())
        return QStringLiteral("the path is empty");
    if (utf8Path.size() > MaxPathBytes)
        return QStringLiteral("the path is longer than %1 bytes").arg(MaxPathBytes);
    if (utf8Path.startsWith('/'))
        return QStringLiteral("the path is absolute; it must be relative to the storage folder");
    for (const char c : utf8Path) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f)
            return QStringLiteral("the path contains a control character (or NUL)");
        if (c == '\\')
            return QStringLiteral("the path contains a backslash");
    }
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString decoded = decoder.decode(utf8Path);
    if (decoder.hasError())
        return QStringLiteral("the path is not valid UTF-8");
    Q_UNUSED(decoded);

    const QList<QByteArray> parts = utf8Path.split('/');
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QByteArray &part = parts.at(i);
        if (part.isEmpty())
            return QStringLiteral("the path has an empty component (a doubled or trailing '/')");
        if (part == "." || part == "..")
            return QStringLiteral("the path contains a '%1' component").arg(QString::fromLatin1(part));
        if (part.size() > MaxComponentBytes)
            return QStringLiteral("a path component is longer than %1 bytes").arg(MaxComponentBytes);
        if (i == 0 && part == PrivateFolder)
            return QStringLiteral("'%1' is the receiver's private folder").arg(QLatin1String(PrivateFolder));
    }
    return std::nullopt;
}

QString join(const QString &left, const QString &right)
{
    QStringList parts;
    for (const QString &side : {left, right}) {
        for (const QString &part : side.split(QLatin1Char('/'), Qt::SkipEmptyParts))
            parts.append(part);
    }
    return parts.join(QLatin1Char('/'));
}

} // namespace multilane::UploadPath
