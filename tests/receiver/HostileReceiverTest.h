#pragma once

#include "RawHttpConnection.h"
#include "ReceiverProcess.h"

#include <QByteArray>
#include <QObject>
#include <QStringList>
#include <QTemporaryDir>
#include <QUrl>
#include <memory>

// Hostile input against the real multilane-receiver on loopback (issue #6), the fixture its two
// suites share (tst_hostile: names and numbers; tst_hostile_transport: bodies and transport). One
// receiver takes case after case, since hostility may pile up; after each case it must still
// store a normal upload byte for byte, and nothing may have appeared outside its storage folder.
class HostileReceiverTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

protected:
    using Reply = RawHttpConnection::Reply;

    // Test data rows must be real QByteArrays, not string literals or QStringBuilder expressions.
    static QByteArray ba(const QByteArray &bytes) { return bytes; }

    QUrl endpoint(int port = 0) const { return m_receiver->urls().at(port); }
    QByteArray createBody(const QByteArray &path, qint64 size, qint64 chunkSize) const;
    // Creates an upload and returns its id (empty on failure).
    QByteArray createUpload(const QByteArray &path, qint64 size, qint64 chunkSize);
    QByteArray chunkRequest(const QByteArray &id, qint64 index, const QByteArray &data) const;
    Reply complete(const QByteArray &id, const QByteArray &sha256, int port = 0);
    // A normal chunked upload (create, two chunks, complete) on fresh connections; true when the
    // stored bytes equal what was sent.
    bool normalUploadWorks(QString *why);
    QStringList entriesOf(const QString &folder) const;
    QByteArray readStored(const QString &path) const;

    QTemporaryDir m_root; // <tmp>
    QString m_outer;      // <tmp>/outer: must hold only `storage`
    QString m_storage;    // <tmp>/outer/storage
    QByteArray m_marker;  // a unique file name used in every escape attempt
    std::unique_ptr<ReceiverProcess> m_receiver;
    int m_normalUploads = 0;
};
