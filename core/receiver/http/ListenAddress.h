#pragma once

#include <QList>
#include <QString>
#include <QtGlobal>

namespace multilane {

// One address the receiver listens on; port 0 asks the system for a free port.
struct ListenAddress {
    QString host;
    quint16 port = 0;

    // "127.0.0.1:9101", "[::1]:9101"
    QString toString() const;
    QString url() const { return QStringLiteral("http://") + toString(); }

    struct ParsedList {
        QList<ListenAddress> addresses;
        QString error; // empty when parsing succeeded
    };
    // "[HOST:]PORT[,PORT…]": a bare port reuses the host before it (the first defaults to
    // defaultHost); "127.0.0.1:0,0,0" is three free ports on loopback.
    static ParsedList parseList(const QString &spec, const QString &defaultHost = QStringLiteral("0.0.0.0"));
};

} // namespace multilane
