#pragma once
// What `multilane` and `multilane-window` must agree on: the name the settings, the journal and
// the single-instance socket are found under, and how a launched path or file:// URL is read.

#include <QCoreApplication>
#include <QFileInfo>
#include <QUrl>

namespace multilane::launch {

inline void setIdentity()
{
    QCoreApplication::setApplicationName(QStringLiteral("multilane"));
    QCoreApplication::setOrganizationName(QStringLiteral("Multilane"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MULTILANE_VERSION));
}

// A path or a file:// URL, as a file manager passes it; absolute, for a window that may run in
// another folder.
inline QFileInfo launchedFile(const QString &argument)
{
    const QUrl url(argument);
    return QFileInfo(QFileInfo(url.isLocalFile() ? url.toLocalFile() : argument).absoluteFilePath());
}

} // namespace multilane::launch
