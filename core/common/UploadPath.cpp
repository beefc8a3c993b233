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

static bool isHexDigit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool startsEscape(const QByteArray &bytes, qsizetype at)
{
    return bytes.at(at) == '%' && at + 2 < bytes.size() && isHexDigit(bytes.at(at + 1)) &&
           isHexDigit(bytes.at(at + 2));
}

QString escapeName(const QString &localName)
{
    const QByteArray bytes = localName.toUtf8();
    QByteArray escaped;
    escaped.reserve(bytes.size());
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const auto byte = static_cast<unsigned char>(bytes.at(i));
        if (byte < 0x20 || byte == 0x7f || byte == '\\' || startsEscape(bytes, i)) {
            escaped += '%';
            escaped += QByteArray::number(byte, 16).toUpper().rightJustified(2, '0');
        } else {
            escaped += char(byte);
        }
    }
    return QString::fromUtf8(escaped);
}

QString unescapeName(const QString &destinationName)
{
    const QByteArray bytes = destinationName.toUtf8();
    QByteArray plain;
    plain.reserve(bytes.size());
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        if (startsEscape(bytes, i)) {
            plain += char(bytes.mid(i + 1, 2).toInt(nullptr, 16));
            i += 2;
        } else {
            plain += bytes.at(i);
        }
    }
    return QString::fromUtf8(plain);
}

QString escapeComponents(const QString &relativePath)
{
    QStringList parts = relativePath.split(QLatin1Char('/'));
    for (QString &part : parts)
        part = escapeName(part);
    return parts.join(QLatin1Char('/'));
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
