#include "HttpDate.h"

#include <QLocale>
#include <QTimeZone>

namespace multilane::HttpDate {

QDateTime parse(const QByteArray &text)
{
    const QString trimmed = QString::fromLatin1(text).trimmed();
    QDateTime time = QLocale::c().toDateTime(trimmed, QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
    if (time.isValid()) {
        time.setTimeZone(QTimeZone::utc());
        return time;
    }
    return QDateTime::fromString(trimmed, Qt::RFC2822Date);
}

} // namespace multilane::HttpDate
