#pragma once

#include <QByteArray>
#include <QtGlobal>

namespace multilane::launch {

// Qt's own event dispatcher instead of GLib's, for the programs with no window. GLib's wakes
// the loop with an eventfd write() for every event posted to it (each finished request's
// deleteLater, each queued hashing result), Qt's once until the loop has run: with many small
// files that is a system call or two a file. Call first in main(), before QCoreApplication and
// before any thread (setenv is not thread-safe); a QT_NO_GLIB the user set is left as it is.
inline void usePlainEventLoop()
{
    if (!qEnvironmentVariableIsSet("QT_NO_GLIB"))
        qputenv("QT_NO_GLIB", QByteArrayLiteral("1"));
}

} // namespace multilane::launch
