#include "RawHttpConnection.h"
#include "ReceiverProcess.h"
#include "ServiceHarness.h"

#include "ChunkHash.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <memory>
#include <sys/resource.h>
#include <vector>

using namespace multilane;
using Reply = RawHttpConnection::Reply;

namespace {
// Test data rows must be real QByteArrays, not string literals or QStringBuilder expressions.
QByteArray ba(const QByteArray &bytes)
{
    return bytes;
}
} // namespace

// Hostile input against the real multilane-receiver on loopback (issue #6): every field that
// carries a name or a number, bodies that lie about their length, garbage instead of HTTP, huge
// headers, slow and idle clients. After each case the receiver must still store a normal upload
// byte for byte, and nothing may have appeared outside its storage folder.
class TestHostile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

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
    void bodyLongerThanAnnounced();
    void bodyShorterClientClosesEarly();
    void wrongChecksums();
    void sameChunkToTwoPortsAtOnce();
    void completeBeforeAllChunksAndTwice();
    void garbageInsteadOfHttp_data();
    void garbageInsteadOfHttp();
    void megabyteOfHeaders();
    void oneBytePerSecondIsCutOff();
    void fiveHundredIdleConnections();

private:
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

void TestHostile::initTestCase()
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

void TestHostile::init()
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

void TestHostile::cleanup()
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

// ---- bodies ------------------------------------------------------------------------------------

void TestHostile::bodyLongerThanAnnounced()
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

void TestHostile::bodyShorterClientClosesEarly()
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

void TestHostile::wrongChecksums()
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

void TestHostile::sameChunkToTwoPortsAtOnce()
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

void TestHostile::completeBeforeAllChunksAndTwice()
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

void TestHostile::garbageInsteadOfHttp_data()
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

void TestHostile::garbageInsteadOfHttp()
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

void TestHostile::megabyteOfHeaders()
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

void TestHostile::oneBytePerSecondIsCutOff()
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

void TestHostile::fiveHundredIdleConnections()
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

// ---- helpers -----------------------------------------------------------------------------------

QByteArray TestHostile::createBody(const QByteArray &path, qint64 size, qint64 chunkSize) const
{
    return QJsonDocument(QJsonObject{{QStringLiteral("path"), QString::fromUtf8(path)},
                                     {QStringLiteral("size"), size},
                                     {QStringLiteral("mtime"), qint64(1700000000000)},
                                     {QStringLiteral("chunkSize"), chunkSize}})
        .toJson(QJsonDocument::Compact);
}

QByteArray TestHostile::createUpload(const QByteArray &path, qint64 size, qint64 chunkSize)
{
    const Reply created = RawHttpConnection::exchange(
        endpoint(), RawHttpConnection::request("POST", "/v1/uploads", createBody(path, size, chunkSize)));
    if (created.status != 201 && created.status != 200)
        return {};
    return created.json().value(QStringLiteral("id")).toString().toLatin1();
}

QByteArray TestHostile::chunkRequest(const QByteArray &id, qint64 index, const QByteArray &data) const
{
    const QByteArray hash = ChunkHash::toHeader(ChunkHash::of(data.constData(), std::size_t(data.size())));
    return RawHttpConnection::request("PUT", "/v1/uploads/" + id + "/chunks/" + QByteArray::number(index),
                                      data, "X-Chunk-Hash: " + hash + "\r\n");
}

Reply TestHostile::complete(const QByteArray &id, const QByteArray &sha256, int port)
{
    return RawHttpConnection::exchange(endpoint(port),
                                       RawHttpConnection::request("POST", "/v1/uploads/" + id + "/complete",
                                                                  "{\"sha256\":\"" + sha256 + "\"}"));
}

bool TestHostile::normalUploadWorks(QString *why)
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

QStringList TestHostile::entriesOf(const QString &folder) const
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

QByteArray TestHostile::readStored(const QString &path) const
{
    QFile file(m_storage + QLatin1Char('/') + path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
