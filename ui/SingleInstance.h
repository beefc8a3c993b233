#pragma once

#include <QObject>
#include <QStringList>

class QLocalServer;

namespace multilane {

// One Multilane window per user, as qBittorrent and Transmission keep: a later `multilane FILE…`
// (a file manager's "Open with Multilane") hands its files to the running window over a local
// socket in the user's runtime folder, and exits. The headless commands are not affected.
class SingleInstance : public QObject {
    Q_OBJECT
public:
    // $XDG_RUNTIME_DIR/multilane.socket (the user's own folder, mode 0700).
    static QString defaultSocketName();

    explicit SingleInstance(const QString &socketName = defaultSocketName(), QObject *parent = nullptr);
    ~SingleInstance() override;

    // Hands absolute paths (none: just show the window) to a running instance; true when one took
    // them. Blocks up to timeoutMs: it runs before there is an event loop.
    bool sendToRunning(const QStringList &paths, int timeoutMs = 3000) const;
    // Becomes the running instance; false when another one answers on the socket meanwhile (a
    // launch racing this one) or the socket cannot be made (why says which).
    bool listen(QString *why = nullptr);

Q_SIGNALS:
    // A later launch's files (empty: it only asked for the window).
    void pathsReceived(const QStringList &paths);

private:
    void onConnection();

    QString m_name;
    QLocalServer *m_server = nullptr;
};

} // namespace multilane
