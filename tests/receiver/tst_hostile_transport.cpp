#include "HostileReceiverTest.h"
#include "ServiceHarness.h"

#include "ChunkHash.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QTest>
#include <memory>
#include <vector>

using namespace multilane;

// Hostile bodies and transport: bodies that lie about their length, wrong checksums, races,
// garbage instead of HTTP, huge headers, slow and idle clients.
class TestHostileTransport : public HostileReceiverTest {
    Q_OBJECT

private Q_SLOTS:
    void bodyLongerThanAnnounced();
    void bodyShorterClientClosesEarly();
    void bodyInPiecesThenTheNextRequest();
    void wrongChecksums();
    void sameChunkToTwoPortsAtOnce();
    void completeBeforeAllChunksAndTwice();
    void garbageInsteadOfHttp_data();
    void garbageInsteadOfHttp();
    void megabyteOfHeaders();
    void oneBytePerSecondIsCutOff();
    void fiveHundredIdleConnections();
};

// ---- bodies ------------------------------------------------------------------------------------

void TestHostileTransport::bodyLongerThanAnnounced()
{
    const QByteArray data = ServiceHarness::testData(2000, 11);
    const QByteArray id = createUpload("bodies/long.bin", data.size(), 1000);
    QVERIFY(!id.isEmpty());
    // Content-Length longer than the chunk: 413 before any byte is written.
    const QByteArray longer = data.left(1000) + "extra";
    const QByteArray hash =
        ChunkHash::toHeader(ChunkHash::of(longer.constData(), std::size_t(longer.size())));
    Reply reply = RawHttpConnection::exchange(
        endpoint(), RawHttpConnection::request("PUT", "/v1/uploads/" + id + "/chunks/0", longer,
                                               "X-Chunk-Hash: " + hash + "\r\n"));
    QCOMPARE(reply.status, 413);
    QCOMPARE(reply.errorCode(), QByteArray("too_large"));
    // Content-Length right, but more bytes follow: the chunk is stored, the surplus is read as
    // the next request and refused as garbage.
    RawHttpConnection connection(endpoint());
    QVERIFY(
        connection.send(chunkRequest(id, 0, data.left(1000)) + "surplus bytes that are not HTTP\r\n\r\n"));
    reply = connection.readReply();
    QCOMPARE(reply.status, 200);
    QCOMPARE(reply.json().value(QStringLiteral("index")).toInt(), 0);
    const Reply surplus = connection.readReply();
    QVERIFY2(surplus.status == 400 || (surplus.status == 0 && surplus.closed), surplus.head.constData());
    // The same on PUT /v1/files: exactly Content-Length bytes are stored.
    RawHttpConnection whole(endpoint());
    QVERIFY(whole.send(RawHttpConnection::request("PUT", "/v1/files/bodies/whole.bin", "exactly") + "MORE"));
    QCOMPARE(whole.readReply().status, 201);
    QCOMPARE(readStored(QStringLiteral("bodies/whole.bin")), QByteArray("exactly"));
    QCOMPARE(RawHttpConnection::exchange(endpoint(), chunkRequest(id, 1, data.mid(1000))).status, 200);
    QCOMPARE(complete(id, ServiceHarness::sha256(data)).status, 200);
    QCOMPARE(readStored(QStringLiteral("bodies/long.bin")), data);
}

// The receiver waits for a body a read-ahead's worth at a time (SO_RCVLOWAT), not segment by
// segment. A body that comes in pieces apart in time must still arrive whole, its last piece below
// that mark too, and the next request on the connection (a head of a few dozen bytes) must be
// answered, not left waiting for a mark meant for the body.
void TestHostileTransport::bodyInPiecesThenTheNextRequest()
{
    const QByteArray data = ServiceHarness::testData(200 * 1024 + 123, 21);
    const QByteArray request = RawHttpConnection::request("PUT", "/v1/files/bodies/pieces.bin", data);
    RawHttpConnection connection(endpoint());
    QVERIFY(connection.send(request.left(request.size() - data.size())));
    constexpr qsizetype Piece = 10 * 1024;
    for (qsizetype at = 0; at < data.size(); at += Piece) {
        QVERIFY(connection.send(data.mid(at, Piece)));
        QTest::qWait(10); // pieces apart in time, as a shaped link delivers them
    }
    const Reply stored = connection.readReply(10000);
    QCOMPARE(stored.status, 201);
    QVERIFY(readStored(QStringLiteral("bodies/pieces.bin")) == data);
    QVERIFY(connection.send(RawHttpConnection::request("GET", "/v1/health")));
    QCOMPARE(connection.readReply(5000).status, 200);
}

void TestHostileTransport::bodyShorterClientClosesEarly()
{
    const QByteArray data = ServiceHarness::testData(4 << 20, 12);
    const QByteArray id = createUpload("bodies/short.bin", data.size(), 2 << 20);
    QVERIFY(!id.isEmpty());
    // Announced shorter than the chunk: 422 length_mismatch.
    const QByteArray half = data.left(1 << 20);
    Reply reply = RawHttpConnection::exchange(
        endpoint(),
        RawHttpConnection::request(
            "PUT", "/v1/uploads/" + id + "/chunks/0", half,
            "X-Chunk-Hash: " +
                ChunkHash::toHeader(ChunkHash::of(half.constData(), std::size_t(half.size()))) + "\r\n"));
    QCOMPARE(reply.status, 422);
    QCOMPARE(reply.errorCode(), QByteArray("length_mismatch"));
    // Announced right, but the client stops after half of the body. It only half-closes, so the
    // receiver's answer tells when it has dealt with the cut body (a full close looks the same to
    // the receiver, but leaves nothing to wait for but a clock).
    const auto cutShort = [this](const QByteArray &request) {
        RawHttpConnection connection(endpoint());
        if (!connection.send(request) || !connection.stopSending())
            return RawHttpConnection::Reply{};
        return connection.readReply(60000);
    };
    const QByteArray chunk = chunkRequest(id, 0, data.left(2 << 20));
    const Reply cutChunk = cutShort(chunk.left(chunk.size() - (1 << 20)));
    QCOMPARE(cutChunk.status, 422);
    QCOMPARE(cutChunk.errorCode(), QByteArray("length_mismatch"));
    const QByteArray whole = RawHttpConnection::request("PUT", "/v1/files/bodies/cut.bin", data);
    const Reply cutFile = cutShort(whole.left(whole.size() / 2));
    QCOMPARE(cutFile.status, 422);
    QCOMPARE(cutFile.errorCode(), QByteArray("length_mismatch"));
    // The receiver keeps nothing of those bodies: no chunk, no file, and no temporary .part of the
    // whole-file PUT.
    const QDir uploads(m_storage + QStringLiteral("/.multilane/uploads"));
    QCOMPARE(uploads.entryList({QStringLiteral("put*")}, QDir::Files), QStringList{});
    const Reply state =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("GET", "/v1/uploads/" + id));
    QCOMPARE(state.json().value(QStringLiteral("received")).toArray(), QJsonArray());
    QVERIFY(!QFile::exists(m_storage + QStringLiteral("/bodies/cut.bin")));
    // Sent properly afterwards, the upload completes.
    QCOMPARE(RawHttpConnection::exchange(endpoint(), chunkRequest(id, 0, data.left(2 << 20))).status, 200);
    QCOMPARE(RawHttpConnection::exchange(endpoint(1), chunkRequest(id, 1, data.mid(2 << 20))).status, 200);
    QCOMPARE(complete(id, ServiceHarness::sha256(data)).status, 200);
    QCOMPARE(readStored(QStringLiteral("bodies/short.bin")), data);
}

void TestHostileTransport::wrongChecksums()
{
    const QByteArray data = ServiceHarness::testData(3000, 13);
    const QByteArray id = createUpload("sums/file.bin", data.size(), 1500);
    QVERIFY(!id.isEmpty());
    const QByteArray chunk = data.left(1500);
    const QByteArray target = "/v1/uploads/" + id + "/chunks/0";
    const quint64 right = ChunkHash::of(chunk.constData(), std::size_t(chunk.size()));
    // A wrong XXH3: 422, nothing recorded.
    Reply reply = RawHttpConnection::exchange(
        endpoint(), RawHttpConnection::request("PUT", target, chunk,
                                               "X-Chunk-Hash: " + ChunkHash::toHeader(right ^ 1) + "\r\n"));
    QCOMPARE(reply.status, 422);
    QCOMPARE(reply.errorCode(), QByteArray("checksum_mismatch"));
    // Malformed or missing hash headers: 400.
    for (const QByteArray &header : {QByteArray(), QByteArray("X-Chunk-Hash: xxh3=zz\r\n"),
                                     QByteArray("X-Chunk-Hash: xxh3=0123456789abcde\r\n"),
                                     QByteArray("X-Chunk-Hash: sha1=0123456789abcdef\r\n"),
                                     QByteArray("X-Chunk-Hash: xxh3=0123456789abcdef0\r\n")}) {
        reply =
            RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("PUT", target, chunk, header));
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.errorCode(), QByteArray("bad_request"));
    }
    Reply state =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("GET", "/v1/uploads/" + id));
    QCOMPARE(state.json().value(QStringLiteral("received")).toArray(), QJsonArray());
    // All chunks right, the file's SHA-256 wrong: 422 and the upload starts over.
    QCOMPARE(RawHttpConnection::exchange(endpoint(), chunkRequest(id, 0, chunk)).status, 200);
    QCOMPARE(RawHttpConnection::exchange(endpoint(), chunkRequest(id, 1, data.mid(1500))).status, 200);
    reply = complete(id, QByteArray(64, '0'));
    QCOMPARE(reply.status, 422);
    QCOMPARE(reply.errorCode(), QByteArray("checksum_mismatch"));
    state = RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("GET", "/v1/uploads/" + id));
    QCOMPARE(state.json().value(QStringLiteral("received")).toArray(), QJsonArray());
    QVERIFY(!QFile::exists(m_storage + QStringLiteral("/sums/file.bin")));
    // A malformed sha256 in complete: 400.
    reply = RawHttpConnection::exchange(
        endpoint(),
        RawHttpConnection::request("POST", "/v1/uploads/" + id + "/complete", "{\"sha256\":\"../x\"}"));
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.errorCode(), QByteArray("bad_request"));
    // PUT /v1/files with a wrong X-Content-SHA256: 422 and no file.
    reply = RawHttpConnection::exchange(
        endpoint(), RawHttpConnection::request("PUT", "/v1/files/sums/whole.bin", data,
                                               "X-Content-SHA256: " + QByteArray(64, 'f') + "\r\n"));
    QCOMPARE(reply.status, 422);
    QCOMPARE(reply.errorCode(), QByteArray("checksum_mismatch"));
    QVERIFY(!QFile::exists(m_storage + QStringLiteral("/sums/whole.bin")));
}

void TestHostileTransport::sameChunkToTwoPortsAtOnce()
{
    // Two ports, the same chunk index at once: once with the same bytes (one write, one
    // duplicate), once with one of the two bodies corrupt (the good one wins, the bad one is 422).
    const QByteArray data = ServiceHarness::testData(4 << 20, 14);
    const qint64 chunkSize = 2 << 20;
    const QByteArray id = createUpload("race/file.bin", data.size(), chunkSize);
    QVERIFY(!id.isEmpty());
    const QByteArray first = chunkRequest(id, 0, data.left(chunkSize));
    RawHttpConnection a(endpoint(0));
    RawHttpConnection b(endpoint(1));
    QVERIFY(a.send(first.left(first.size() / 2)));
    QVERIFY(b.send(first.left(first.size() / 2)));
    QVERIFY(a.send(first.mid(first.size() / 2)));
    QVERIFY(b.send(first.mid(first.size() / 2)));
    const Reply ra = a.readReply(30000);
    const Reply rb = b.readReply(30000);
    QCOMPARE(ra.status, 200);
    QCOMPARE(rb.status, 200);
    QCOMPARE(int(ra.json().value(QStringLiteral("duplicate")).toBool()) +
                 int(rb.json().value(QStringLiteral("duplicate")).toBool()),
             1);

    QByteArray corrupt = chunkRequest(id, 1, data.mid(chunkSize));
    const QByteArray good = corrupt;
    corrupt[corrupt.size() - 100] = char(corrupt.at(corrupt.size() - 100) ^ 0x55);
    QVERIFY(a.send(good.left(good.size() / 2)));
    QVERIFY(b.send(corrupt.left(corrupt.size() / 2)));
    QVERIFY(b.send(corrupt.mid(corrupt.size() / 2)));
    QVERIFY(a.send(good.mid(good.size() / 2)));
    // Whichever gets the chunk's lock first decides: the corrupt body is either refused (422) or,
    // claiming the hash already held, drained as a duplicate. Never stored.
    QCOMPARE(a.readReply(30000).status, 200);
    const Reply corrupted = b.readReply(30000);
    QVERIFY2(corrupted.status == 422 || corrupted.json().value(QStringLiteral("duplicate")).toBool(),
             corrupted.body.constData());
    QCOMPARE(complete(id, ServiceHarness::sha256(data), 1).status, 200);
    QCOMPARE(readStored(QStringLiteral("race/file.bin")), data);
}

void TestHostileTransport::completeBeforeAllChunksAndTwice()
{
    const QByteArray data = ServiceHarness::testData(3000, 15);
    const QByteArray id = createUpload("order/file.bin", data.size(), 1000);
    QVERIFY(!id.isEmpty());
    QCOMPARE(RawHttpConnection::exchange(endpoint(), chunkRequest(id, 1, data.mid(1000, 1000))).status, 200);
    Reply reply = complete(id, ServiceHarness::sha256(data));
    QCOMPARE(reply.status, 409);
    QCOMPARE(reply.errorCode(), QByteArray("incomplete"));
    QCOMPARE(
        reply.json().value(QStringLiteral("error")).toObject().value(QStringLiteral("missing")).toArray(),
        (QJsonArray{0, 2}));
    // Complete with no body, or with something that is not JSON: 400.
    reply = RawHttpConnection::exchange(
        endpoint(), RawHttpConnection::request("POST", "/v1/uploads/" + id + "/complete"));
    QCOMPARE(reply.status, 400);
    reply = RawHttpConnection::exchange(
        endpoint(),
        RawHttpConnection::request("POST", "/v1/uploads/" + id + "/complete", QByteArray("\x00\xff{", 3)));
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.errorCode(), QByteArray("bad_request"));
    QCOMPARE(RawHttpConnection::exchange(endpoint(), chunkRequest(id, 0, data.left(1000))).status, 200);
    QCOMPARE(RawHttpConnection::exchange(endpoint(), chunkRequest(id, 2, data.mid(2000))).status, 200);
    const Reply done = complete(id, ServiceHarness::sha256(data));
    QCOMPARE(done.status, 200);
    const Reply again = complete(id, ServiceHarness::sha256(data), 1);
    QCOMPARE(again.status, 200);
    QCOMPARE(again.json(), done.json());
    // A chunk after the complete is drained as a duplicate; the file is untouched.
    reply = RawHttpConnection::exchange(endpoint(), chunkRequest(id, 0, QByteArray(1000, 'q')));
    QCOMPARE(reply.status, 200);
    QCOMPARE(reply.json().value(QStringLiteral("duplicate")).toBool(), true);
    QCOMPARE(readStored(QStringLiteral("order/file.bin")), data);
}

// ---- transport ---------------------------------------------------------------------------------

void TestHostileTransport::garbageInsteadOfHttp_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("halfClose"); // no line end: the client must end its side to be heard
    QByteArray random = ServiceHarness::testData(64 * 1024, 16);
    QTest::newRow("random-64k") << random << true;
    QTest::newRow("random-lines") << ba(random.left(4000) + "\r\n\r\n") << false;
    QTest::newRow("tls-hello") << ba(QByteArray::fromHex("16030100a5010000a10303") + QByteArray(160, '\0'))
                               << true;
    static constexpr char nulInRequestLine[] = "GET /v1/he\0alth HTTP/1.1\r\nHost: h\r\n\r\n";
    QTest::newRow("nul-in-request-line")
        << ba(QByteArray(nulInRequestLine, sizeof nulInRequestLine - 1)) << false; // the NUL kept
    QTest::newRow("bad-version") << QByteArray("GET /v1/health HTTP/9.9\r\nHost: h\r\n\r\n") << false;
    QTest::newRow("no-target") << QByteArray("GET\r\n\r\n") << false;
    QTest::newRow("bad-chunked-body")
        << ba(QByteArray("PUT /v1/discard HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: "
                         "chunked\r\n\r\nzz\r\nnot hex\r\n0\r\n\r\n"))
        << false;
    QTest::newRow("line-feeds-only") << ba(QByteArray(100000, '\n')) << true;
}

void TestHostileTransport::garbageInsteadOfHttp()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, halfClose);
    QElapsedTimer timer;
    timer.start();
    RawHttpConnection connection(endpoint());
    connection.send(bytes); // the receiver may close while bytes are still going out
    if (halfClose)
        connection.socket().disconnectFromHost();
    const Reply reply = connection.readReply(10000);
    // Either a 4xx in our JSON form or a closed connection; never a 2xx, never a hang.
    if (reply.status != 0) {
        QVERIFY2(reply.status >= 400 && reply.status < 500, reply.head.constData());
        QVERIFY2(!reply.errorCode().isEmpty(), reply.body.constData());
    } else {
        QVERIFY(reply.closed);
    }
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
}

void TestHostileTransport::megabyteOfHeaders()
{
    QByteArray request = "GET /v1/health HTTP/1.1\r\nHost: h\r\n";
    for (int i = 0; request.size() < (1 << 20); ++i)
        request += "X-Pad-" + QByteArray::number(i) + ": " + QByteArray(100, 'p') + "\r\n";
    request += "\r\n";
    QElapsedTimer timer;
    timer.start();
    RawHttpConnection connection(endpoint());
    connection.send(request);
    const Reply reply = connection.readReply(10000);
    // HeaderLimitedServer stops reading a head at its budget and answers 431 (cpp-httplib alone
    // would take any number of header lines).
    QCOMPARE(reply.status, 431);
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
}

void TestHostileTransport::oneBytePerSecondIsCutOff()
{
    // A client that trickles its request (slowloris) must lose its connection after the
    // receiver's timeouts, and others must be served all the while.
    const QByteArray request = RawHttpConnection::request("GET", "/v1/health") + QByteArray("X-Slow: ") +
                               QByteArray(200, 's') + "\r\n\r\n";
    RawHttpConnection slow(endpoint());
    QElapsedTimer timer;
    timer.start();
    bool cutOff = false;
    int sent = 0;
    while (timer.elapsed() < 8000 && sent < request.size()) {
        if (!slow.send(request.mid(sent, 1)))
            break;
        ++sent;
        const Reply health =
            RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("GET", "/v1/health"));
        QCOMPARE(health.status, 200);
        // Waiting for the close paces the client at one byte per second.
        if (slow.waitClosed(1000)) {
            cutOff = true;
            break;
        }
    }
    qInfo("slow client: %d bytes sent, %s after %lld ms", sent, cutOff ? "cut off" : "still open",
          qint64(timer.elapsed()));
    // cpp-httplib alone times out each read (60 s), so one byte a second would hold the thread
    // forever; HeaderLimitedServer gives the whole head the idle timeout and answers 408.
    QVERIFY2(cutOff || !slow.isConnected(), "a client sending one byte per second kept its connection");
    const Reply answer = slow.readReply(2000); // the reason came before the close
    QCOMPARE(answer.status, 408);
    QCOMPARE(answer.errorCode(), QByteArray("request_timeout"));
    QVERIFY(timer.elapsed() < 15000);
    slow.close();
}

void TestHostileTransport::fiveHundredIdleConnections()
{
    // A receiver of its own whose idle timeout outlasts the case, so all 500 stay open.
    ReceiverProcess receiver(m_storage);
    QVERIFY2(
        receiver.start(2, {QStringLiteral("--quiet"), QStringLiteral("--idle-timeout"), QStringLiteral("60s"),
                           QStringLiteral("--max-connections"), QStringLiteral("600")}),
        qPrintable(receiver.errorText()));
    std::vector<std::unique_ptr<QTcpSocket>> idle;
    for (int i = 0; i < 500; ++i) {
        idle.push_back(std::make_unique<QTcpSocket>());
        idle.back()->connectToHost(receiver.urls().constFirst().host(),
                                   quint16(receiver.urls().constFirst().port()));
    }
    for (const auto &socket : idle)
        QVERIFY(socket->state() == QAbstractSocket::ConnectedState || socket->waitForConnected(5000));
    // While they sit there, health answers promptly on the same port and on the other.
    QList<qint64> latencies;
    for (int i = 0; i < 20; ++i) {
        QElapsedTimer timer;
        timer.start();
        const Reply health = RawHttpConnection::exchange(receiver.urls().at(i % 2),
                                                         RawHttpConnection::request("GET", "/v1/health"));
        latencies.append(timer.nsecsElapsed() / 1000);
        QCOMPARE(health.status, 200);
    }
    std::sort(latencies.begin(), latencies.end());
    qInfo("health with 500 idle connections open: median %lld us, max %lld us", latencies.at(10),
          latencies.constLast());
    QVERIFY2(latencies.constLast() < 2000000, qPrintable(QString::number(latencies.constLast())));
    // And an upload goes through on the crowded port.
    const QByteArray data = ServiceHarness::testData(1 << 20, 17);
    const Reply stored = RawHttpConnection::exchange(
        receiver.urls().constFirst(), RawHttpConnection::request("PUT", "/v1/files/crowded/file.bin", data));
    QCOMPARE(stored.status, 201);
    QCOMPARE(readStored(QStringLiteral("crowded/file.bin")), data);
    for (const auto &socket : idle)
        QCOMPARE(socket->state(), QAbstractSocket::ConnectedState);
    idle.clear();
}

QTEST_GUILESS_MAIN(TestHostileTransport)
#include "tst_hostile_transport.moc"
