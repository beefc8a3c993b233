#include "HostileReceiverTest.h"

#include "ServiceHarness.h"

#include "ChunkHash.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTest>
#include <algorithm>
#include <sys/resource.h>

using namespace multilane;

void HostileReceiverTest::initTestCase()
{
    QVERIFY(m_root.isValid());
    m_outer = m_root.path() + QStringLiteral("/outer");
    m_storage = m_outer + QStringLiteral("/storage");
    QVERIFY(QDir().mkpath(m_storage));
    m_marker = "mlhostile-" + QByteArray::number(QCoreApplication::applicationPid());
    // 500 idle connections plus the test's own need more descriptors than the usual soft limit;
    // the receiver inherits the raised limit.
    rlimit files{};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &files), 0);
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 4096);
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &files), 0);
}

void HostileReceiverTest::init()
{
    // One receiver takes case after case (hostility may pile up); a new one only after a failure.
    if (m_receiver && m_receiver->process().state() == QProcess::Running)
        return;
    // A short idle timeout keeps the slow-client case short; --max-connections leaves room for
    // the 500 idle connections on one port.
    m_receiver = std::make_unique<ReceiverProcess>(m_storage);
    QVERIFY2(m_receiver->start(2, {QStringLiteral("--quiet"), QStringLiteral("--idle-timeout"),
                                   QStringLiteral("2s"), QStringLiteral("--max-connections"),
                                   QStringLiteral("600")}),
             qPrintable(m_receiver->errorText()));
}

void HostileReceiverTest::cleanup()
{
    const auto restartAfterFailure = qScopeGuard([this] {
        if (QTest::currentTestFailed())
            m_receiver.reset();
    });
    QVERIFY2(m_receiver->process().state() == QProcess::Running, "the receiver died");
    QString why;
    QVERIFY2(normalUploadWorks(&why), qPrintable(why));
    QCOMPARE(entriesOf(m_root.path()), QStringList{QStringLiteral("outer")});
    QCOMPARE(entriesOf(m_outer), QStringList{QStringLiteral("storage")});
    // The absolute paths the cases tried all start with the marker, in /tmp and at /.
    const QStringList nameFilter{QString::fromLatin1(m_marker) + QLatin1Char('*')};
    QCOMPARE(QDir(QStringLiteral("/tmp")).entryList(nameFilter, QDir::AllEntries | QDir::Hidden),
             QStringList{});
    QCOMPARE(QDir(QStringLiteral("/")).entryList(nameFilter, QDir::AllEntries | QDir::Hidden), QStringList{});
}

// ---- helpers -----------------------------------------------------------------------------------

QByteArray HostileReceiverTest::createBody(const QByteArray &path, qint64 size, qint64 chunkSize) const
{
    return QJsonDocument(QJsonObject{{QStringLiteral("path"), QString::fromUtf8(path)},
                                     {QStringLiteral("size"), size},
                                     {QStringLiteral("mtime"), qint64(1700000000000)},
                                     {QStringLiteral("chunkSize"), chunkSize}})
        .toJson(QJsonDocument::Compact);
}

QByteArray HostileReceiverTest::createUpload(const QByteArray &path, qint64 size, qint64 chunkSize)
{
    const Reply created = RawHttpConnection::exchange(
        endpoint(), RawHttpConnection::request("POST", "/v1/uploads", createBody(path, size, chunkSize)));
    if (created.status != 201 && created.status != 200)
        return {};
    return created.json().value(QStringLiteral("id")).toString().toLatin1();
}

QByteArray HostileReceiverTest::chunkRequest(const QByteArray &id, qint64 index, const QByteArray &data) const
{
    const QByteArray hash = ChunkHash::toHeader(ChunkHash::of(data.constData(), std::size_t(data.size())));
    return RawHttpConnection::request("PUT", "/v1/uploads/" + id + "/chunks/" + QByteArray::number(index),
                                      data, "X-Chunk-Hash: " + hash + "\r\n");
}

HostileReceiverTest::Reply HostileReceiverTest::complete(const QByteArray &id, const QByteArray &sha256,
                                                         int port)
{
    return RawHttpConnection::exchange(endpoint(port),
                                       RawHttpConnection::request("POST", "/v1/uploads/" + id + "/complete",
                                                                  "{\"sha256\":\"" + sha256 + "\"}"));
}

bool HostileReceiverTest::normalUploadWorks(QString *why)
{
    const QByteArray path = "normal/after-" + QByteArray::number(++m_normalUploads) + ".bin";
    const QByteArray data = ServiceHarness::testData(300000, m_normalUploads);
    const QByteArray id = createUpload(path, data.size(), 200000);
    if (id.isEmpty()) {
        *why = QStringLiteral("create failed");
        return false;
    }
    for (qint64 index = 0; index < 2; ++index) {
        const Reply sent = RawHttpConnection::exchange(
            endpoint(int(index)), chunkRequest(id, index, data.mid(index * 200000, 200000)));
        if (sent.status != 200) {
            *why = QStringLiteral("chunk %1: %2 %3")
                       .arg(index)
                       .arg(sent.status)
                       .arg(QString::fromUtf8(sent.body));
            return false;
        }
    }
    const Reply done = complete(id, ServiceHarness::sha256(data));
    if (done.status != 200) {
        *why = QStringLiteral("complete: %1 %2").arg(done.status).arg(QString::fromUtf8(done.body));
        return false;
    }
    if (readStored(QString::fromLatin1(path)) != data) {
        *why = QStringLiteral("the stored bytes differ");
        return false;
    }
    return true;
}

QStringList HostileReceiverTest::entriesOf(const QString &folder) const
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

QByteArray HostileReceiverTest::readStored(const QString &path) const
{
    QFile file(m_storage + QLatin1Char('/') + path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
