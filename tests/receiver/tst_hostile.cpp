#include "HostileReceiverTest.h"

#include "ChunkHash.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QTest>

using namespace multilane;

// Hostile names and numbers: paths, ids, JSON fields, chunk indexes, lengths and query values.
class TestHostile : public HostileReceiverTest {
    Q_OBJECT

private Q_SLOTS:
    void pathInFilesUrl_data();
    void pathInFilesUrl();
    void uriLongerThanTheLibraryTakes();
    void doubleEncodedPathStaysInside();
    void pathInCreateJson_data();
    void pathInCreateJson();
    void uploadIdInUrl_data();
    void uploadIdInUrl();
    void numbersInCreateJson_data();
    void numbersInCreateJson();
    void chunkIndexInUrl_data();
    void chunkIndexInUrl();
    void contentLengthHeader_data();
    void contentLengthHeader();
    void duplicateContentLengthIsRefused();
    void probeBytesInQuery_data();
    void probeBytesInQuery();
};

// ---- names -------------------------------------------------------------------------------------

void TestHostile::pathInFilesUrl_data()
{
    QTest::addColumn<QByteArray>("target");
    const QByteArray m = m_marker;
    QTest::newRow("dotdot") << ba("/v1/files/../" + m);
    QTest::newRow("dotdot-deep") << ba("/v1/files/a/../../../" + m);
    QTest::newRow("dotdot-last") << ba("/v1/files/a/..");
    QTest::newRow("backslash") << ba("/v1/files/..\\" + m);
    QTest::newRow("pct-dotdot") << ba("/v1/files/%2e%2e/" + m);
    QTest::newRow("pct-dotdot-upper") << ba("/v1/files/%2E%2E%2F" + m);
    QTest::newRow("pct-slash") << ba("/v1/files/..%2f" + m);
    QTest::newRow("pct-backslash") << ba("/v1/files/..%5c" + m);
    QTest::newRow("absolute") << ba("/v1/files//tmp/" + m);
    QTest::newRow("pct-absolute") << ba("/v1/files/%2ftmp%2f" + m);
    QTest::newRow("nul") << ba("/v1/files/" + m + "%00.txt");
    QTest::newRow("crlf") << ba("/v1/files/a%0d%0aX-Injected:%201");
    QTest::newRow("tab") << ba("/v1/files/a%09b");
    QTest::newRow("del") << ba("/v1/files/a%7fb");
    QTest::newRow("empty") << QByteArray("/v1/files/");
    QTest::newRow("dot") << QByteArray("/v1/files/.");
    QTest::newRow("dot-component") << QByteArray("/v1/files/a/./b");
    QTest::newRow("empty-component") << QByteArray("/v1/files/a//b");
    QTest::newRow("trailing-slash") << QByteArray("/v1/files/a/");
    QTest::newRow("private-folder") << QByteArray("/v1/files/.multilane/uploads/x.json");
    QTest::newRow("pct-private-folder") << QByteArray("/v1/files/%2emultilane/x");
    QTest::newRow("component-256") << ba("/v1/files/" + QByteArray(256, 'a'));
    QByteArray longPath = "/v1/files";
    for (int i = 0; i < 17; ++i)
        longPath += '/' + QByteArray(250, 'b'); // 4267 bytes: over 4096, under the URI limit
    QTest::newRow("path-4267") << longPath;
    QTest::newRow("invalid-utf8") << QByteArray("/v1/files/%ff%fe.txt");
    QTest::newRow("overlong-dots") << ba("/v1/files/%c0%ae%c0%ae/" + m);
    QTest::newRow("overlong-slash") << ba("/v1/files/..%c0%af" + m);
    QTest::newRow("surrogate") << QByteArray("/v1/files/%ed%a0%80.txt");
    QTest::newRow("truncated-utf8") << QByteArray("/v1/files/a%e2%82");
}

void TestHostile::pathInFilesUrl()
{
    QFETCH(QByteArray, target);
    const Reply reply =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("PUT", target, "evil"));
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.errorCode(), QByteArray("bad_path"));
    QVERIFY2(reply.json()
                 .value(QStringLiteral("error"))
                 .toObject()
                 .value(QStringLiteral("message"))
                 .toString()
                 .contains(QStringLiteral("relative path")),
             reply.body.constData());
}

void TestHostile::uriLongerThanTheLibraryTakes()
{
    // cpp-httplib refuses a request line over 8 KiB before routing; the answer is still ours.
    const QByteArray target = "/v1/files/" + QByteArray(9000, 'c');
    const Reply reply =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("PUT", target, "evil"));
    QCOMPARE(reply.status, 414);
    QCOMPARE(reply.errorCode(), QByteArray("too_large"));
    const QString message =
        reply.json().value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString();
    QVERIFY2(message.contains(QStringLiteral("at most 8 KiB")), qPrintable(message));
}

void TestHostile::doubleEncodedPathStaysInside()
{
    // The URL is decoded exactly once: %252e%252e is the harmless name "%2e%2e".
    const QByteArray target = "/v1/files/%252e%252e/" + m_marker;
    const Reply reply =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("PUT", target, "inside"));
    QCOMPARE(reply.status, 201);
    QCOMPARE(readStored(QStringLiteral("%2e%2e/") + QString::fromLatin1(m_marker)), QByteArray("inside"));
    QVERIFY(QDir(m_storage + QStringLiteral("/%2e%2e")).removeRecursively());
}

void TestHostile::pathInCreateJson_data()
{
    QTest::addColumn<QByteArray>("path"); // the JSON text of the "path" value, raw
    QTest::addColumn<QByteArray>("code");
    const QByteArray m = m_marker;
    QTest::newRow("dotdot") << ba("\"../" + m + "\"") << QByteArray("bad_path");
    QTest::newRow("dotdot-deep") << ba("\"a/../../" + m + "\"") << QByteArray("bad_path");
    QTest::newRow("backslash") << ba("\"..\\\\" + m + "\"") << QByteArray("bad_path");
    QTest::newRow("absolute") << ba("\"/tmp/" + m + "\"") << QByteArray("bad_path");
    QTest::newRow("escaped-dots") << ba("\"\\u002e\\u002e/" + m + "\"") << QByteArray("bad_path");
    QTest::newRow("escaped-slash") << ba("\"..\\/" + m + "\"") << QByteArray("bad_path");
    QTest::newRow("nul") << ba("\"" + m + "\\u0000.txt\"") << QByteArray("bad_path");
    QTest::newRow("newline") << QByteArray("\"a\\nb\"") << QByteArray("bad_path");
    QTest::newRow("empty") << QByteArray("\"\"") << QByteArray("bad_path");
    QTest::newRow("dot") << QByteArray("\".\"") << QByteArray("bad_path");
    QTest::newRow("dot-component") << QByteArray("\"a/./b\"") << QByteArray("bad_path");
    QTest::newRow("empty-component") << QByteArray("\"a//b\"") << QByteArray("bad_path");
    QTest::newRow("private-folder") << QByteArray("\".multilane/uploads/x.json\"") << QByteArray("bad_path");
    QTest::newRow("component-256") << ba("\"" + QByteArray(256, 'a') + "\"") << QByteArray("bad_path");
    QTest::newRow("path-5000") << ba("\"" + QByteArray(2000, 'a') + '/' + QByteArray(2000, 'b') + '/' +
                                     QByteArray(999, 'c') + "\"")
                               << QByteArray("bad_path");
    // 255 three-byte characters: 765 bytes in one component, though only 255 characters.
    QByteArray wide;
    for (int i = 0; i < 255; ++i)
        wide += "\xe2\x82\xac";
    QTest::newRow("component-765-bytes") << ba("\"" + wide + "\"") << QByteArray("bad_path");
    // Invalid UTF-8 inside the JSON text is a malformed body, refused by the JSON parser.
    QTest::newRow("invalid-utf8") << QByteArray("\"a\xff\xfe.txt\"") << QByteArray("bad_request");
    QTest::newRow("overlong-dots") << ba("\"\xc0\xae\xc0\xae/" + m + "\"") << QByteArray("bad_request");
    // A lone surrogate escape decodes to U+FFFD: a harmless one-component name.
    QTest::newRow("lone-surrogate") << QByteArray("\"a\\ud800b\"") << QByteArray("accepted");
    QTest::newRow("number") << QByteArray("5") << QByteArray("bad_request");
    QTest::newRow("null") << QByteArray("null") << QByteArray("bad_request");
    QTest::newRow("array") << ba("[\"../" + m + "\"]") << QByteArray("bad_request");
    QTest::newRow("object") << QByteArray("{\"path\":\"x\"}") << QByteArray("bad_request");
}

void TestHostile::pathInCreateJson()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, code);
    const QByteArray body = "{\"path\":" + path + ",\"size\":10,\"mtime\":1,\"chunkSize\":5}";
    const Reply reply =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("POST", "/v1/uploads", body));
    if (code == "accepted") {
        QCOMPARE(reply.status, 201);
        const QString stored = reply.json().value(QStringLiteral("path")).toString();
        QVERIFY2(!stored.contains(QLatin1Char('/')) && !stored.contains(QStringLiteral("..")),
                 qPrintable(stored));
        return;
    }
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.errorCode(), code);
}

void TestHostile::uploadIdInUrl_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("code");
    const QByteArray hex32 = "0123456789abcdef0123456789abcdef";
    QTest::newRow("dotdot-id") << QByteArray("GET") << QByteArray("/v1/uploads/..") << 404
                               << QByteArray("no_such_upload");
    QTest::newRow("pct-dotdot-id") << QByteArray("DELETE") << QByteArray("/v1/uploads/%2e%2e") << 404
                                   << QByteArray("no_such_upload");
    QTest::newRow("traversal-in-id") << QByteArray("POST")
                                     << ba("/v1/uploads/..%2f..%2f" + m_marker + "/complete") << 404
                                     << QByteArray("not_found");
    QTest::newRow("uppercase-id") << QByteArray("GET") << ba("/v1/uploads/" + hex32.toUpper()) << 404
                                  << QByteArray("no_such_upload");
    QTest::newRow("short-id") << QByteArray("GET") << ba("/v1/uploads/" + hex32.left(31)) << 404
                              << QByteArray("no_such_upload");
    QTest::newRow("long-id") << QByteArray("GET") << ba("/v1/uploads/" + hex32 + '0') << 404
                             << QByteArray("no_such_upload");
    QTest::newRow("nul-in-id") << QByteArray("GET") << ba("/v1/uploads/" + hex32.left(31) + "%00") << 404
                               << QByteArray("no_such_upload");
    QTest::newRow("unknown-id") << QByteArray("GET") << ba("/v1/uploads/" + hex32) << 404
                                << QByteArray("no_such_upload");
    QTest::newRow("unknown-id-abort")
        << QByteArray("DELETE") << ba("/v1/uploads/" + hex32) << 404 << QByteArray("no_such_upload");
    QTest::newRow("unknown-id-complete") << QByteArray("POST") << ba("/v1/uploads/" + hex32 + "/complete")
                                         << 404 << QByteArray("no_such_upload");
    QTest::newRow("unknown-route") << QByteArray("GET") << QByteArray("/v1/%2e%2e/health") << 404
                                   << QByteArray("not_found");
    QTest::newRow("odd-method") << QByteArray("BREW") << QByteArray("/v1/health") << 400
                                << QByteArray("bad_request");
}

void TestHostile::uploadIdInUrl()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, target);
    QFETCH(int, status);
    QFETCH(QByteArray, code);
    const QByteArray body =
        method == "POST" ? QByteArray("{\"sha256\":\"") + QByteArray(64, 'a') + "\"}" : QByteArray();
    const Reply reply =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request(method, target, body));
    QCOMPARE(reply.status, status);
    QCOMPARE(reply.errorCode(), code);
}

// ---- numbers -----------------------------------------------------------------------------------

void TestHostile::numbersInCreateJson_data()
{
    QTest::addColumn<QByteArray>("size");
    QTest::addColumn<QByteArray>("chunkSize");
    QTest::addColumn<QByteArray>("mtime");
    QTest::newRow("negative-size") << QByteArray("-1") << QByteArray("5") << QByteArray("1");
    QTest::newRow("size-2^63") << QByteArray("9223372036854775808") << QByteArray("1048576")
                               << QByteArray("1");
    QTest::newRow("size-2^64") << QByteArray("18446744073709551616") << QByteArray("1048576")
                               << QByteArray("1");
    QTest::newRow("size-1e300") << QByteArray("1e300") << QByteArray("1048576") << QByteArray("1");
    QTest::newRow("size-fraction") << QByteArray("10.5") << QByteArray("5") << QByteArray("1");
    QTest::newRow("size-string") << QByteArray("\"10\"") << QByteArray("5") << QByteArray("1");
    QTest::newRow("size-plus") << QByteArray("+10") << QByteArray("5") << QByteArray("1");
    QTest::newRow("size-hex") << QByteArray("0x10") << QByteArray("5") << QByteArray("1");
    QTest::newRow("size-nan") << QByteArray("NaN") << QByteArray("5") << QByteArray("1");
    QTest::newRow("size-true") << QByteArray("true") << QByteArray("5") << QByteArray("1");
    QTest::newRow("chunk-zero") << QByteArray("10") << QByteArray("0") << QByteArray("1");
    QTest::newRow("chunk-negative") << QByteArray("10") << QByteArray("-5") << QByteArray("1");
    QTest::newRow("chunk-over-1GiB") << QByteArray("10") << QByteArray("1073741825") << QByteArray("1");
    QTest::newRow("chunk-2^64") << QByteArray("10") << QByteArray("18446744073709551616") << QByteArray("1");
    QTest::newRow("too-many-chunks") << QByteArray("1099511627776") << QByteArray("1") << QByteArray("1");
    QTest::newRow("mtime-1e300") << QByteArray("10") << QByteArray("5") << QByteArray("1e300");
    QTest::newRow("mtime-fraction") << QByteArray("10") << QByteArray("5") << QByteArray("0.25");
}

void TestHostile::numbersInCreateJson()
{
    QFETCH(QByteArray, size);
    QFETCH(QByteArray, chunkSize);
    QFETCH(QByteArray, mtime);
    const QByteArray body = "{\"path\":\"" + m_marker + "\",\"size\":" + size + ",\"mtime\":" + mtime +
                            ",\"chunkSize\":" + chunkSize + "}";
    const Reply reply =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("POST", "/v1/uploads", body));
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.errorCode(), QByteArray("bad_request"));
}

void TestHostile::chunkIndexInUrl_data()
{
    QTest::addColumn<QByteArray>("index");
    QTest::newRow("negative") << QByteArray("-1");
    QTest::newRow("plus") << QByteArray("+1");
    QTest::newRow("pct-plus") << QByteArray("%2b1");
    QTest::newRow("leading-space") << QByteArray("%201");
    QTest::newRow("trailing-space") << QByteArray("1%20");
    QTest::newRow("hex") << QByteArray("0x1");
    QTest::newRow("exponent") << QByteArray("1e0");
    QTest::newRow("empty") << QByteArray("");
    QTest::newRow("chunk-count") << QByteArray("2");
    QTest::newRow("17-digits") << QByteArray("99999999999999999");
    QTest::newRow("int64-max") << QByteArray("9223372036854775807");
    QTest::newRow("2^63") << QByteArray("9223372036854775808");
    QTest::newRow("2^64") << QByteArray("18446744073709551616");
    QTest::newRow("2^64+1") << QByteArray("18446744073709551617");
    QTest::newRow("nul") << QByteArray("1%00");
}

void TestHostile::chunkIndexInUrl()
{
    QFETCH(QByteArray, index);
    const QByteArray id = createUpload("numbers/index.bin", 2000, 1000);
    QVERIFY(!id.isEmpty());
    const QByteArray data(1000, 'x');
    const QByteArray hash = ChunkHash::toHeader(ChunkHash::of(data.constData(), std::size_t(data.size())));
    const Reply reply = RawHttpConnection::exchange(
        endpoint(), RawHttpConnection::request("PUT", "/v1/uploads/" + id + "/chunks/" + index, data,
                                               "X-Chunk-Hash: " + hash + "\r\n"));
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.errorCode(), QByteArray("bad_request"));
}

void TestHostile::contentLengthHeader_data()
{
    QTest::addColumn<QByteArray>("length");
    QTest::addColumn<int>("status");
    QTest::newRow("negative") << QByteArray("-1") << 400;
    QTest::newRow("plus") << QByteArray("+1000") << 400;
    QTest::newRow("hex") << QByteArray("0x3e8") << 400;
    QTest::newRow("exponent") << QByteArray("1e3") << 400;
    QTest::newRow("inner-space") << QByteArray("10 00") << 400;
    QTest::newRow("list") << QByteArray("1000, 1000") << 400;
    QTest::newRow("2^63") << QByteArray("9223372036854775808") << 400;
    QTest::newRow("2^64") << QByteArray("18446744073709551616") << 400;
    QTest::newRow("2^64+1000") << QByteArray("18446744073709552616") << 400;
    // httplib drops a header without a value: as if there were no Content-Length.
    QTest::newRow("empty") << QByteArray("") << 411;
}

void TestHostile::contentLengthHeader()
{
    // A Content-Length that is not a plain decimal is refused before the body; the receiver must
    // answer at once (not wait for a body of a length it cannot know) and close the connection.
    QFETCH(QByteArray, length);
    QFETCH(int, status);
    const QByteArray id = createUpload("numbers/length.bin", 2000, 1000);
    QVERIFY(!id.isEmpty());
    const QByteArray data(1000, 'y');
    const QByteArray hash = ChunkHash::toHeader(ChunkHash::of(data.constData(), std::size_t(data.size())));
    QElapsedTimer timer;
    timer.start();
    RawHttpConnection connection(endpoint());
    QVERIFY(connection.send("PUT /v1/uploads/" + id + "/chunks/0 HTTP/1.1\r\nHost: h\r\nX-Chunk-Hash: " +
                            hash + "\r\nContent-Length: " + length + "\r\n\r\n" + data));
    const Reply reply = connection.readReply(10000);
    QCOMPARE(reply.status, status);
    QCOMPARE(reply.errorCode(), status == 411 ? QByteArray("length_required") : QByteArray("bad_request"));
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    // The connection goes (within the idle timeout); checked on two rows to keep the case short.
    if (QByteArray(QTest::currentDataTag()) == "negative" || QByteArray(QTest::currentDataTag()) == "2^64")
        QVERIFY(connection.waitClosed(5000));
    // Nothing was stored for the chunk.
    const Reply state =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("GET", "/v1/uploads/" + id));
    QCOMPARE(state.json().value(QStringLiteral("received")).toArray(), QJsonArray());
}

void TestHostile::duplicateContentLengthIsRefused()
{
    // Two lengths let a body hide a second request (request smuggling behind a proxy that reads
    // the other one); the receiver refuses the request and closes the connection.
    const QByteArray id = createUpload("numbers/twice.bin", 1000, 1000);
    QVERIFY(!id.isEmpty());
    const QByteArray smuggled = RawHttpConnection::request("DELETE", "/v1/uploads/" + id);
    const QByteArray data = smuggled + QByteArray(1000 - smuggled.size(), 'z');
    const QByteArray hash = ChunkHash::toHeader(ChunkHash::of(data.constData(), std::size_t(data.size())));
    RawHttpConnection connection(endpoint());
    QVERIFY(connection.send("PUT /v1/uploads/" + id + "/chunks/0 HTTP/1.1\r\nHost: h\r\nX-Chunk-Hash: " +
                            hash + "\r\nContent-Length: 0\r\nContent-Length: 1000\r\n\r\n" + data));
    const Reply reply = connection.readReply(10000);
    QCOMPARE(reply.status, 400);
    QCOMPARE(reply.errorCode(), QByteArray("bad_request"));
    QVERIFY(connection.waitClosed(5000));
    // The upload is still there: the hidden DELETE was never run.
    const Reply state =
        RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("GET", "/v1/uploads/" + id));
    QCOMPARE(state.status, 200);
}

void TestHostile::probeBytesInQuery_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("status");
    QTest::newRow("negative") << QByteArray("-1") << 400;
    QTest::newRow("plus") << QByteArray("%2b5") << 400;
    QTest::newRow("space") << QByteArray("%205") << 400;
    QTest::newRow("hex") << QByteArray("0x10") << 400;
    QTest::newRow("empty") << QByteArray("") << 400;
    QTest::newRow("2^63") << QByteArray("9223372036854775808") << 400;
    QTest::newRow("2^64") << QByteArray("18446744073709551616") << 400;
    QTest::newRow("over-1GiB") << QByteArray("1073741825") << 413;
    QTest::newRow("zero") << QByteArray("0") << 200; // the client's token check: answered at once
}

void TestHostile::probeBytesInQuery()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);
    QElapsedTimer clock;
    clock.start();
    const Reply reply = RawHttpConnection::exchange(
        endpoint(), RawHttpConnection::request("GET", "/v1/probe?bytes=" + bytes));
    QCOMPARE(reply.status, status);
    QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));
    if (status == 200) {
        QCOMPARE(reply.body, QByteArray());
        return;
    }
    QCOMPARE(reply.errorCode(), status == 413 ? QByteArray("too_large") : QByteArray("bad_request"));
}

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
