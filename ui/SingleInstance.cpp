#include "SingleInstance.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QStandardPaths>

namespace multilane {

// One line of JSON each way: {"paths": [...]} from the new launch, "ok" from the running one.
static QByteArray encode(const QStringList &paths)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("paths"), QJsonArray::fromStringList(paths)}})
               .toJson(QJsonDocument::Compact) +
           '\n';
}

QString SingleInstance::defaultSocketName()
{
    // Qt falls back to a private folder of its own (/tmp/runtime-USER, 0700) without XDG_RUNTIME_DIR.
    return QDir(QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation))
        .filePath(QStringLiteral("multilane.socket"));
}

SingleInstance::SingleInstance(const QString &socketName, QObject *parent)
    : QObject(parent)
    , m_name(socketName)
{}

SingleInstance::~SingleInstance() = default;

bool SingleInstance::sendToRunning(const QStringList &paths, int timeoutMs) const
{
    QLocalSocket socket;
    socket.connectToServer(m_name);
    if (!socket.waitForConnected(timeoutMs))
        return false;
    socket.write(encode(paths));
    if (!socket.waitForBytesWritten(timeoutMs))
        return false;
    // Taken only once the running window says so: a dying one must not swallow the files.
    while (!socket.canReadLine()) {
        if (!socket.waitForReadyRead(timeoutMs))
            return false;
    }
    return socket.readLine().trimmed() == "ok";
}

bool SingleInstance::listen(QString *why)
{
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    connect(m_server, &QLocalServer::newConnection, this, &SingleInstance::onConnection);
    if (m_server->listen(m_name))
        return true;
    if (m_server->serverError() == QAbstractSocket::AddressInUseError) {
        // Someone answers: another launch won the race. Nobody: a crashed instance's leftover.
        QLocalSocket probe;
        probe.connectToServer(m_name);
        if (probe.waitForConnected(500))
            return false;
        QLocalServer::removeServer(m_name);
        if (m_server->listen(m_name))
            return true;
    }
    if (why)
        *why = m_server->errorString();
    return false;
}

void SingleInstance::onConnection()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
            if (!socket->canReadLine())
                return;
            const QJsonObject message = QJsonDocument::fromJson(socket->readLine()).object();
            socket->write("ok\n");
            socket->flush();
            QStringList paths;
            for (const QJsonValue &path : message.value(QLatin1String("paths")).toArray())
                paths.append(path.toString());
            Q_EMIT pathsReceived(paths);
        });
    }
}

} // namespace multilane
