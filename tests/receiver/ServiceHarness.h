#pragma once

#include "LocalFolderStore.h"
#include "ProtocolService.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <memory>

// A ProtocolService over a LocalFolderStore in a temporary folder, with helpers that build
// requests the way the HTTP layer would (bodies streamed in 4 KiB pieces). No sockets.
class ServiceHarness {
public:
    ServiceHarness();
    // With tokens, limits or a free-space source of the test's choosing.
    explicit ServiceHarness(multilane::ProtocolService::Options options);

    bool isValid() const { return m_ok; }
    QString storage() const { return m_root.path() + QStringLiteral("/storage"); }
    QString outside() const { return m_root.path(); }
    multilane::LocalFolderStore &store() { return *m_store; }
    multilane::ProtocolService &service() { return *m_service; }

    struct Reply {
        int status = 0;
        QJsonObject json;
        QList<std::pair<QByteArray, QByteArray>> headers;
        QByteArray errorCode() const;
        QString errorMessage() const;
    };

    // Every later call sends `Authorization: Bearer <token>` (none when empty).
    void useToken(const QByteArray &token) { m_token = token; }

    // headers: lower-case names; a non-null body gets a Content-Length unless one is given.
    Reply call(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
               QHash<QByteArray, QByteArray> headers = {});
    Reply create(const QString &path, qint64 size, qint64 chunkSize, const QByteArray &onConflict = "rename",
                 qint64 mtime = 1732950000123);
    Reply putChunk(const QByteArray &id, qint64 index, const QByteArray &data);
    Reply complete(const QByteArray &id, const QByteArray &sha256);
    // Creates, sends every chunk and completes; returns the complete's reply.
    Reply upload(const QString &path, const QByteArray &data, qint64 chunkSize,
                 const QByteArray &onConflict = "rename", qint64 mtime = 1732950000123);

    QByteArray readStored(const QString &path) const;

    static QByteArray testData(qint64 size, int seed = 1);
    // A request body handed over in 4 KiB pieces, as the HTTP layer does.
    static multilane::BodyReader bodyOf(const QByteArray &data);
    static QByteArray sha256(const QByteArray &data);

private:
    QTemporaryDir m_root;
    std::unique_ptr<multilane::LocalFolderStore> m_store;
    std::unique_ptr<multilane::ProtocolService> m_service;
    QByteArray m_token;
    bool m_ok = false;
};
