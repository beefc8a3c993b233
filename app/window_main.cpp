// `multilane-window`: the desktop window, one per user. `multilane` runs it (with no arguments, or
// with files and folders, and a display), so the command line never loads Widgets and the
// libraries under them: a script's `multilane upload` starts in half the time.
#include "DesktopApp.h"
#include "LaunchCommon.h"
#include "SingleInstance.h"

#include <QApplication>
#include <openssl/crypto.h>

using namespace multilane;

int main(int argc, char *argv[])
{
    // Each thread frees its own OpenSSL state, not an atexit handler (multilane_main.cpp says why).
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr);
    QApplication app(argc, argv);
    launch::setIdentity();
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Multilane"));
    // The files and folders to open with.
    QStringList paths;
    for (const QString &argument : QCoreApplication::arguments().mid(1))
        paths.append(launch::launchedFile(argument).filePath());
    SingleInstance instance;
    // A window is already open: it takes the files (and comes to the front) and this launch ends.
    if (instance.sendToRunning(paths))
        return 0;
    if (!instance.listen() && instance.sendToRunning(paths))
        return 0; // another launch became the window a moment ago
    DesktopApp desktop;
    return desktop.run(app, instance, paths);
}
