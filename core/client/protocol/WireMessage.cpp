#include "WireMessage.h"

namespace multilane {

static QByteArray findHeader(const QList<WireHeader> &headers, QByteArrayView name)
{
    for (const WireHeader &header : headers) {
        if (header.name.compare(name, Qt::CaseInsensitive) == 0)
            return header.value;
    }
    return {};
}

QByteArray WireRequest::header(QByteArrayView name) const
{
    return findHeader(headers, name);
}

void WireRequest::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (WireHeader &header : headers) {
        if (header.name.compare(name, Qt::CaseInsensitive) == 0) {
            header.value = value;
            return;
        }
    }
    headers.append({name, value});
}

QByteArray WireReply::header(QByteArrayView name) const
{
    return findHeader(headers, name);
}

} // namespace multilane
