#include "ReceiverProcess.h"
#include "ServiceHarness.h"

#include "ChunkHash.h"
#include "DiskSpace.h"
#include "TokenFile.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <future>
#include <memory>
#include <thread>
#include <unistd.h>

using namespace multilane;

namespace {

const QByteArray QuotaToken = "quota-0123456789abcdef";
const QByteArray OtherToken = "other-0123456789abcdef";

qint64 figure(const ServiceHarness::Reply &reply, const char *name)
{
    return qint64(
        reply.json.value(QStringLiteral("error")).toObject().value(QLatin1String(name)).toDouble(-1));
}

QByteArray idOf(const ServiceHarness::Reply &reply)
{
    return reply.json.value(QStringLiteral("id")).toString().toLatin1();
}

// Peak resident memory of a process in KiB (VmHWM), or -1.
qint64 peakMemoryKiB(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').constFirst().toLongLong();
    }
    return -1;
}

} // namespace

// The receiver's limits: file and chunk size (413), quota (507 with the figures), unfinished
// uploads per token (429), the free-space reserve (507, the upload stays resumable) and header
// size (431), through the service and against a real receiver process.
class TestLimits : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fileAndChunkSize()
    {
        ProtocolService::Options options;
        options.limits.maxFileSize = 1000;
        options.limits.maxChunkSize = 4096;
        ServiceHarness harness(options);
        QVERIFY(harness.isValid());

        const auto tooLarge = harness.create(QStringLiteral("big.bin"), 1001, 500);
        QCOMPARE(tooLarge.status, 413);
        QCOMPARE(tooLarge.errorCode(), QByteArray("file_too_large"));
        QCOMPARE(figure(tooLarge, "maxFileSize"), qint64(1000));
        QVERIFY2(tooLarge.errorMessage().contains(QStringLiteral("--max-file-size")),
                 qPrintable(tooLarge.errorMessage()));
        const auto put = harness.call("PUT", "/v1/files/big.bin", QByteArray(1001, 'x'));
        QCOMPARE(put.status, 413);
        QCOMPARE(put.errorCode(), QByteArray("file_too_large"));
        QVERIFY(!QFile::exists(harness.storage() + QStringLiteral("/big.bin")));
        QCOMPARE(harness.call("PUT", "/v1/files/fits.bin", QByteArray(1000, 'x')).status, 201);

        const auto bigChunks = harness.create(QStringLiteral("chunks.bin"), 900, 8192);
        QCOMPARE(bigChunks.status, 413);
        QCOMPARE(bigChunks.errorCode(), QByteArray("chunk_too_large"));
        QCOMPARE(figure(bigChunks, "maxChunkSize"), qint64(4096));

        // A chunk request longer than the limit is refused from its Content-Length, before its body.
        const auto created = harness.create(QStringLiteral("chunks.bin"), 900, 300);
        QCOMPARE(created.status, 201);
        const QByteArray body(5000, 'y');
        const auto chunk =
            harness.call("PUT", "/v1/uploads/" + idOf(created) + "/chunks/0", body,
                         {{"x-chunk-hash", ChunkHash::toHeader(ChunkHash::of(body.constData(), 5000))}});
        QCOMPARE(chunk.status, 413);
        QCOMPARE(chunk.errorCode(), QByteArray("chunk_too_large"));
    }

    void quotaCountsFinishedAndUnfinished()
    {
        ProtocolService::Options options;
        options.access = AccessPolicy(TokenFile::parse(QuotaToken + " id=q folder=q quota=1000\n" +
                                                           OtherToken + " id=o folder=o quota=1000\n",
                                                       QStringLiteral("t"))
                                          .tokens);
        ServiceHarness harness(options);
        QVERIFY(harness.isValid());
        harness.useToken(QuotaToken);

        QCOMPARE(harness.call("PUT", "/v1/files/q/a.bin", QByteArray(600, 'a')).status, 201);
        const auto over = harness.create(QStringLiteral("q/b.bin"), 500, 100);
        QCOMPARE(over.status, 507);
        QCOMPARE(over.errorCode(), QByteArray("quota_exceeded"));
        QCOMPARE(figure(over, "quotaBytes"), qint64(1000));
        QCOMPARE(figure(over, "usedBytes"), qint64(600));
        QCOMPARE(figure(over, "requestedBytes"), qint64(500));
        QVERIFY2(over.errorMessage().contains(QStringLiteral("400 B are left")),
                 qPrintable(over.errorMessage()));

        // An unfinished upload counts at its full size from its create on.
        const auto started = harness.create(QStringLiteral("q/c.bin"), 300, 100);
        QCOMPARE(started.status, 201);
        const auto put = harness.call("PUT", "/v1/files/q/d.bin", QByteArray(200, 'd'));
        QCOMPARE(put.status, 507);
        QCOMPARE(figure(put, "usedBytes"), qint64(900));
        QVERIFY(!QFile::exists(harness.storage() + QStringLiteral("/q/d.bin")));
        // Resuming what was admitted is never refused, and finishing it changes nothing.
        const QByteArray data = ServiceHarness::testData(300);
        QCOMPARE(harness.upload(QStringLiteral("q/c.bin"), data, 100).status, 200);
        QCOMPARE(harness.readStored(QStringLiteral("q/c.bin")), data);
        QCOMPARE(figure(harness.create(QStringLiteral("q/e.bin"), 101, 100), "usedBytes"), qint64(900));
        QCOMPARE(harness.create(QStringLiteral("q/e.bin"), 100, 100).status, 201); // exactly full

        // Another token's folder has its own quota.
        harness.useToken(OtherToken);
        QCOMPARE(harness.call("PUT", "/v1/files/o/a.bin", QByteArray(1000, 'o')).status, 201);
    }

    void quotaCountsWholeFilesWhileTheyArrive()
    {
        // A whole-file PUT has no record on the receiver until it is placed, and the usage measured
        // from the disk is reused only for UploadAdmission::UsageReuse. Its bytes must count
        // against the quota for as long as its body takes to arrive.
        const auto start = std::chrono::steady_clock::now();
        std::atomic<int> agedSeconds{0};
        ProtocolService::Options options;
        options.access = AccessPolicy(
            TokenFile::parse(QuotaToken + " id=q folder=q quota=1000\n", QStringLiteral("t")).tokens);
        options.clock = [&] { return start + std::chrono::seconds(agedSeconds.load()); };
        ServiceHarness harness(options);
        QVERIFY(harness.isValid());
        harness.useToken(QuotaToken);

        // 600 bytes, of which 300 arrive, then the sender stalls until told to go on.
        std::promise<void> halfway;
        std::promise<void> goOn;
        std::shared_future<void> goOnSignal = goOn.get_future().share();
        ServiceRequest slow;
        slow.method = "PUT";
        slow.path = "/v1/files/q/slow.bin";
        slow.headers = {{"content-length", "600"}, {"authorization", "Bearer " + QuotaToken}};
        slow.body = [&halfway, goOnSignal](const BodySink &sink) {
            const QByteArray half(300, 's');
            if (!sink(half.constData(), std::size_t(half.size())))
                return false;
            halfway.set_value();
            goOnSignal.wait();
            return sink(half.constData(), std::size_t(half.size()));
        };
        int slowStatus = 0;
        std::thread sender([&] { slowStatus = harness.service().handle(slow).status; });
        halfway.get_future().wait();

        // Long after the usage was measured, the arriving 600 still count: 600 more do not fit.
        agedSeconds = 60;
        const auto whileArriving = harness.call("PUT", "/v1/files/q/other.bin", QByteArray(600, 'o'));
        goOn.set_value();
        sender.join();
        QCOMPARE(whileArriving.status, 507);
        QCOMPARE(figure(whileArriving, "usedBytes"), qint64(600));
        QCOMPARE(slowStatus, 201);
        QCOMPARE(harness.readStored(QStringLiteral("q/slow.bin")), QByteArray(600, 's'));

        // Stored, it counts from the disk (before and after the next measurement), once.
        QCOMPARE(figure(harness.call("PUT", "/v1/files/q/other.bin", QByteArray(401, 'o')), "usedBytes"),
                 qint64(600));
        agedSeconds = 120;
        QCOMPARE(figure(harness.call("PUT", "/v1/files/q/other.bin", QByteArray(401, 'o')), "usedBytes"),
                 qint64(600));
        // A body that ends early stores nothing and gives its room back.
        const auto cut =
            harness.call("PUT", "/v1/files/q/cut.bin", QByteArray(100, 'c'), {{"content-length", "400"}});
        QCOMPARE(cut.status, 422);
        QCOMPARE(harness.call("PUT", "/v1/files/q/fits.bin", QByteArray(400, 'f')).status, 201);
    }

    void unfinishedUploadsPerToken()
    {
        ProtocolService::Options options;
        options.limits.maxUnfinished = 2;
        options.access =
            AccessPolicy(TokenFile::parse(QuotaToken + " id=q folder=q\n" + OtherToken + " id=o folder=o\n",
                                          QStringLiteral("t"))
                             .tokens);
        ServiceHarness harness(options);
        QVERIFY(harness.isValid());
        harness.useToken(QuotaToken);
        const auto first = harness.create(QStringLiteral("q/1.bin"), 100, 100);
        QCOMPARE(first.status, 201);
        QCOMPARE(harness.create(QStringLiteral("q/2.bin"), 100, 100).status, 201);
        const auto third = harness.create(QStringLiteral("q/3.bin"), 100, 100);
        QCOMPARE(third.status, 429);
        QCOMPARE(third.errorCode(), QByteArray("too_many_uploads"));
        QCOMPARE(figure(third, "maxUnfinished"), qint64(2));
        QVERIFY2(third.errorMessage().contains(QStringLiteral("2 unfinished uploads")),
                 qPrintable(third.errorMessage()));
        QCOMPARE(harness.create(QStringLiteral("q/1.bin"), 100, 100).status, 200); // resume is fine
        // Whole-file PUTs are not unfinished uploads.
        QCOMPARE(harness.call("PUT", "/v1/files/q/whole.bin", QByteArray(10, 'w')).status, 201);

        harness.useToken(OtherToken);
        QCOMPARE(harness.create(QStringLiteral("o/1.bin"), 100, 100).status, 201);

        harness.useToken(QuotaToken);
        QCOMPARE(harness.call("DELETE", "/v1/uploads/" + idOf(first)).status, 200);
        QCOMPARE(harness.create(QStringLiteral("q/3.bin"), 100, 100).status, 201);
    }

    void diskReserveInjected()
    {
        auto available = std::make_shared<std::atomic<qint64>>(10000);
        ProtocolService::Options options;
        options.limits.diskReserve = 1000;
        options.freeSpace = [available] { return std::optional<qint64>(available->load()); };
        ServiceHarness harness(options);
        QVERIFY(harness.isValid());

        const auto noRoom = harness.create(QStringLiteral("big.bin"), 9500, 1000);
        QCOMPARE(noRoom.status, 507);
        QCOMPARE(noRoom.errorCode(), QByteArray("insufficient_storage"));
        QCOMPARE(figure(noRoom, "freeBytes"), qint64(10000));
        QCOMPARE(figure(noRoom, "reserveBytes"), qint64(1000));
        QCOMPARE(harness.call("PUT", "/v1/files/big.bin", QByteArray(9500, 'b')).errorCode(),
                 QByteArray("insufficient_storage"));

        const QByteArray data = ServiceHarness::testData(3000);
        const auto created = harness.create(QStringLiteral("fits.bin"), 3000, 1000);
        QCOMPARE(created.status, 201);
        const QByteArray id = idOf(created);
        QCOMPARE(harness.putChunk(id, 0, data.left(1000)).status, 200);
        available->store(999); // something else filled the disk
        const auto refused = harness.putChunk(id, 1, data.mid(1000, 1000));
        QCOMPARE(refused.status, 507);
        QCOMPARE(refused.errorCode(), QByteArray("insufficient_storage"));
        QVERIFY(refused.errorMessage().contains(QStringLiteral("chunk 1 was not written")));
        const auto state = harness.call("GET", "/v1/uploads/" + id);
        QCOMPARE(state.json.value(QStringLiteral("received")).toArray(), QJsonArray{0});
        QVERIFY(!QFile::exists(harness.storage() + QStringLiteral("/fits.bin")));

        available->store(10000);
        QCOMPARE(harness.putChunk(id, 1, data.mid(1000, 1000)).status, 200);
        QCOMPARE(harness.putChunk(id, 2, data.mid(2000)).status, 200);
        QCOMPARE(harness.complete(id, ServiceHarness::sha256(data)).status, 200);
        QCOMPARE(harness.readStored(QStringLiteral("fits.bin")), data);
    }

    void tooManyHeaders()
    {
        ServiceHarness harness;
        QVERIFY(harness.isValid());
        QHash<QByteArray, QByteArray> many;
        for (int i = 0; i < 101; ++i)
            many.insert("x-pad-" + QByteArray::number(i), "1");
        const auto counted = harness.call("GET", "/v1/health", {}, many);
        QCOMPARE(counted.status, 431);
        QCOMPARE(counted.errorCode(), QByteArray("headers_too_large"));
        const auto sized = harness.call("GET", "/v1/health", {}, {{"x-pad", QByteArray(70000, 'p')}});
        QCOMPARE(sized.status, 431);
        QVERIFY2(sized.errorMessage().contains(QStringLiteral("at most 100 fields and 65536 bytes")),
                 qPrintable(sized.errorMessage()));
        QCOMPARE(harness.call("GET", "/v1/health", {}, {{"x-pad", QByteArray(60000, 'p')}}).status, 200);
    }

    void realReceiverKeepsItsDiskReserve()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString storage = dir.path() + QStringLiteral("/storage");
        const auto freeNow = DiskSpace::availableBytes(dir.path());
        QVERIFY(freeNow);
        constexpr qint64 MiB = 1 << 20;
        if (*freeNow < 4096 * MiB)
            QSKIP("needs 4 GiB of free disk");
        // Wide margins on either side (900 MiB above the reserve after the create, 1.1 GiB below it
        // after the filler), for whatever else writes to or frees this disk meanwhile.
        const qint64 reserve = *freeNow - 1024 * MiB;
        ReceiverProcess receiver(storage);
        QVERIFY2(receiver.start(1, {QStringLiteral("--quiet"), QStringLiteral("--disk-reserve"),
                                    QString::number(reserve)}),
                 qPrintable(receiver.errorText()));
        const QUrl base = receiver.urls().constFirst();

        constexpr qint64 Size = 100 * MiB, ChunkSize = 8 * MiB;
        const QByteArray data = ServiceHarness::testData(Size, 7);
        const auto created =
            post(base, "/v1/uploads",
                 QJsonDocument(QJsonObject{{QStringLiteral("path"), QStringLiteral("big.bin")},
                                           {QStringLiteral("size"), Size},
                                           {QStringLiteral("mtime"), qint64(1700000000000)},
                                           {QStringLiteral("chunkSize"), ChunkSize}})
                     .toJson());
        QVERIFY2(created.status == 201, created.body.constData());
        const QByteArray id = created.json().value(QStringLiteral("id")).toString().toLatin1();
        for (qint64 index = 0; index < 5; ++index)
            QCOMPARE(putChunk(base, id, index, data.mid(index * ChunkSize, ChunkSize)).status, 200);

        // Something else takes 2 GiB (allocated, not written: fast): free space is now below the reserve.
        const QString fillerPath = dir.path() + QStringLiteral("/filler");
        {
            const int filler = ::open(QFile::encodeName(fillerPath).constData(), O_WRONLY | O_CREAT, 0600);
            QVERIFY(filler >= 0);
            QCOMPARE(::posix_fallocate(filler, 0, 2048 * MiB), 0);
            ::close(filler);
        }
        const auto refused = putChunk(base, id, 5, data.mid(5 * ChunkSize, ChunkSize));
        QVERIFY2(refused.status == 507, refused.body.constData());
        QCOMPARE(refused.errorCode(), QByteArray("insufficient_storage"));
        QCOMPARE(qint64(refused.error().value(QStringLiteral("reserveBytes")).toDouble()), reserve);
        const auto another =
            post(base, "/v1/uploads",
                 QJsonDocument(QJsonObject{{QStringLiteral("path"), QStringLiteral("small.bin")},
                                           {QStringLiteral("size"), 1000},
                                           {QStringLiteral("mtime"), 1},
                                           {QStringLiteral("chunkSize"), 1000}})
                     .toJson());
        QCOMPARE(another.status, 507);
        QVERIFY(!QFile::exists(storage + QStringLiteral("/big.bin")));
        // The data that arrived is intact and the upload resumes where it stopped.
        const auto state = get(base, "/v1/uploads/" + id);
        QCOMPARE(state.json().value(QStringLiteral("received")).toArray(), (QJsonArray{0, 1, 2, 3, 4}));
        QFile part(storage + QStringLiteral("/.multilane/uploads/") + QString::fromLatin1(id) +
                   QStringLiteral(".part"));
        QVERIFY(part.open(QIODevice::ReadOnly));
        QCOMPARE(part.size(), Size);
        QVERIFY(part.read(5 * ChunkSize) == data.left(5 * ChunkSize));
        part.close();

        QVERIFY(QFile::remove(fillerPath));
        for (qint64 index = 5; index * ChunkSize < Size; ++index)
            QCOMPARE(putChunk(base, id, index, data.mid(index * ChunkSize, ChunkSize)).status, 200);
        const auto done = post(base, "/v1/uploads/" + id + "/complete",
                               QJsonDocument(QJsonObject{{QStringLiteral("sha256"),
                                                          QString::fromLatin1(ServiceHarness::sha256(data))}})
                                   .toJson());
        QCOMPARE(done.status, 200);
        QFile stored(storage + QStringLiteral("/big.bin"));
        QVERIFY(stored.open(QIODevice::ReadOnly));
        QVERIFY(stored.readAll() == data);
    }

    void realReceiverRefusesAMegabyteOfHeaders()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ReceiverProcess receiver(dir.path());
        QVERIFY2(receiver.start(1, {QStringLiteral("--quiet")}), qPrintable(receiver.errorText()));
        const QUrl base = receiver.urls().constFirst();
        const qint64 memoryBefore = peakMemoryKiB(receiver.process().processId());

        // 1 MB in 128 fields of 8000 bytes: each line is under httplib's 8 KiB line limit, but the
        // connection stops reading after its head budget and answers 431.
        QByteArray request = "PUT /v1/files/h.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n";
        for (int i = 0; i < 128; ++i)
            request += "X-Pad-" + QByteArray::number(i) + ": " + QByteArray(8000, 'p') + "\r\n";
        request += "\r\nhello";
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(statusLineOf(base, request), QByteArray("HTTP/1.1 431 Request Header Fields Too Large"));
        const qint64 manyFieldsMs = timer.restart();

        // One 1 MiB field, which httplib alone would read whole: the same.
        const QByteArray oneLine =
            "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + QByteArray(1 << 20, 'p') + "\r\n\r\n";
        QCOMPARE(statusLineOf(base, oneLine), QByteArray("HTTP/1.1 431 Request Header Fields Too Large"));
        // An endless head, never finished: refused all the same, without waiting for its end.
        QCOMPARE(statusLineOf(base, "GET /v1/health HTTP/1.1\r\nX-Big: " + QByteArray(4 << 20, 'p')),
                 QByteArray("HTTP/1.1 431 Request Header Fields Too Large"));
        // A request line over the budget, which httplib would read whole before its 414.
        QCOMPARE(statusLineOf(base, "GET /v1/health?" + QByteArray(200000, 'q') + " HTTP/1.1\r\n\r\n"),
                 QByteArray("HTTP/1.1 431 Request Header Fields Too Large"));
        const qint64 oneLineMs = timer.elapsed();
        const qint64 memoryAfter = peakMemoryKiB(receiver.process().processId());
        qInfo("431 after %lld ms (128 fields), %lld ms (one line, then an endless head); receiver peak RSS "
              "%lld KiB -> %lld KiB",
              manyFieldsMs, oneLineMs, memoryBefore, memoryAfter);
        // Just under the limits is fine, on the same receiver: 7 fields of 8000 bytes (a single line
        // over 8 KiB is httplib's own 400).
        QByteArray nearlyFull = "GET /v1/health HTTP/1.1\r\nHost: x\r\n";
        for (int i = 0; i < 7; ++i)
            nearlyFull += "X-Pad-" + QByteArray::number(i) + ": " + QByteArray(8000, 'p') + "\r\n";
        QCOMPARE(statusLineOf(base, nearlyFull + "\r\n"), QByteArray("HTTP/1.1 200 OK"));
        QVERIFY(QFile::exists(dir.path()) && !QFile::exists(dir.path() + QStringLiteral("/h.txt")));

        // The receiver still serves an ordinary upload.
        QNetworkRequest put(base.resolved(QUrl(QStringLiteral("/v1/files/after.bin"))));
        const QByteArray data = ServiceHarness::testData(300000);
        QCOMPARE(finish(m_network.put(put, data)).status, 201);
        QFile stored(dir.path() + QStringLiteral("/after.bin"));
        QVERIFY(stored.open(QIODevice::ReadOnly));
        QVERIFY(stored.readAll() == data);
    }

private:
    struct Result {
        int status = 0;
        QByteArray body;
        QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
        QJsonObject error() const { return json().value(QStringLiteral("error")).toObject(); }
        QByteArray errorCode() const { return error().value(QStringLiteral("code")).toString().toLatin1(); }
    };

    Result finish(QNetworkReply *reply)
    {
        if (!reply->isFinished()) {
            QSignalSpy finished(reply, &QNetworkReply::finished);
            finished.wait(30000);
        }
        Result result{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
        reply->deleteLater();
        return result;
    }

    Result get(const QUrl &base, const QByteArray &path)
    {
        return finish(m_network.get(QNetworkRequest(base.resolved(QUrl::fromEncoded(path)))));
    }

    Result post(const QUrl &base, const QByteArray &path, const QByteArray &json)
    {
        QNetworkRequest request(base.resolved(QUrl::fromEncoded(path)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        return finish(m_network.post(request, json));
    }

    Result putChunk(const QUrl &base, const QByteArray &id, qint64 index, const QByteArray &chunk)
    {
        QNetworkRequest request(
            base.resolved(QUrl::fromEncoded("/v1/uploads/" + id + "/chunks/" + QByteArray::number(index))));
        request.setRawHeader(
            "X-Chunk-Hash", ChunkHash::toHeader(ChunkHash::of(chunk.constData(), std::size_t(chunk.size()))));
        return finish(m_network.put(request, chunk));
    }

    // Sends raw bytes on a new connection and returns the first line of the answer.
    static QByteArray statusLineOf(const QUrl &base, const QByteArray &raw)
    {
        QTcpSocket socket;
        socket.connectToHost(base.host(), quint16(base.port()));
        if (!socket.waitForConnected(10000))
            return "no connection";
        socket.write(raw);
        QByteArray answer;
        QDeadlineTimer deadline(30000);
        while (!answer.contains("\r\n") && !deadline.hasExpired()) {
            if (socket.bytesToWrite() > 0)
                socket.waitForBytesWritten(100);
            if (socket.waitForReadyRead(100))
                answer += socket.readAll();
            if (socket.state() != QAbstractSocket::ConnectedState && socket.bytesAvailable() == 0)
                break;
        }
        answer += socket.readAll();
        return answer.left(answer.indexOf("\r\n"));
    }

    QNetworkAccessManager m_network;
};

QTEST_GUILESS_MAIN(TestLimits)
#include "tst_limits.moc"
