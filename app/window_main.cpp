// `multilane-window`: the desktop window, one per user. `multilane` runs it (with no arguments, or
// with files and folders, and a display), so the command line never loads Widgets and the
// libraries under them: a script's `multilane upload` starts in half the time.
#include "DesktopApp.h"
#include "SingleInstance.h"

#include <QApplication>
#include <QFileInfo>
#include <QUrl>
#include <openssl/crypto.h>

using namespace multilane;

// The files and folders to open with (paths or file:// URLs), made absolute for a window that may
// run in another folder.
static QStringList pathsFrom(const QStringList &arguments)
{
    QStringList paths;
    for (const QString &argument : arguments) {
        const QUrl url(argument);
        paths.append(QFileInfo(url.isLocalFile() ? url.toLocalFile() : argument).absoluteFilePath());
    }
    return paths;
}

int main(int argc, char *argv[])
{
    // Each thread frees its own OpenSSL state, not an atexit handler (multilane_main.cpp says why).
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr);
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("multilane"));
    QCoreApplication::setOrganizationName(QStringLiteral("Multilane"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MULTILANE_VERSION));
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Multilane"));
    const QStringList paths = pathsFrom(QCoreApplication::arguments().mid(1));
    SingleInstance instance;
    // A window is already open: it takes the files (and comes to the front) and this launch ends.
    if (instance.sendToRunning(paths))
        return 0;
    if (!instance.listen() && instance.sendToRunning(paths))
        return 0; // another launch became the window a moment ago
    DesktopApp desktop;
    return desktop.run(app, instance, paths);
}
