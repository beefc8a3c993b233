#include "ListenAddress.h"

namespace multilane {

namespace {

bool parsePort(const QString &text, quint16 &port)
{
    if (text.isEmpty() || text.size() > 5)
        return false;
    for (const QChar c : text) {
        if (!c.isDigit())
            return false;
    }
    const int value = text.toInt();
    if (value > 65535)
        return false;
    port = quint16(value);
    return true;
}

} // namespace

QString ListenAddress::toString() const
{
    const bool ipv6 = host.contains(QLatin1Char(':'));
    const QString shownHost = ipv6 ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return shownHost + QLatin1Char(':') + QString::number(port);
}

ListenAddress::ParsedList ListenAddress::parseList(const QString &spec, const QString &defaultHost)
{
    ParsedList result;
    QString host = defaultHost;
    const auto fail = [&result, &spec](const QString &why) {
        result.addresses.clear();
        result.error =
            QStringLiteral("--listen %1: %2 (expected [HOST:]PORT[,PORT…], e.g. 127.0.0.1:9101,9102)")
                .arg(spec, why);
        return result;
    };
    const QStringList items = spec.split(QLatin1Char(','));
    for (const QString &rawItem : items) {
        const QString item = rawItem.trimmed();
        QString portText = item;
        if (item.startsWith(QLatin1Char('['))) { // [IPv6]:port
            const qsizetype close = item.indexOf(QStringLiteral("]:"));
            if (close < 0)
                return fail(QStringLiteral("'%1' needs the form [ADDRESS]:PORT").arg(item));
            host = item.mid(1, close - 1);
            portText = item.mid(close + 2);
        } else if (const qsizetype colon = item.lastIndexOf(QLatin1Char(':')); colon >= 0) {
            host = item.left(colon);
            portText = item.mid(colon + 1);
        }
        if (host.isEmpty())
            return fail(QStringLiteral("'%1' has an empty host").arg(item));
        quint16 port = 0;
        if (!parsePort(portText, port))
            return fail(QStringLiteral("'%1' is not a port number between 0 and 65535").arg(portText));
        result.addresses.append({host, port});
    }
    return result;
}

} // namespace multilane
