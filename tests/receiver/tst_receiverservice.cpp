#include "ForwardingStore.h"
#include "ServiceHarness.h"

#include "ChunkHash.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace multilane;

// The request handler without sockets: routes, validation of everything the client sends, the
// error bodies, and the whole-file route.
class TestProtocolService : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_harness = std::make_unique<ServiceHarness>();
        QVERIFY(m_harness->isValid());
    }

    void health()
    {
        const auto reply = m_harness->call("GET", "/v1/health");
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json.value(QStringLiteral("protocol")).toInt(), 1);
        QCOMPARE(reply.json.value(QStringLiteral("service")).toString(),
                 QStringLiteral("multilane-receiver"));
        // How many connections one client may open: a quarter of the default 256 unless told.
        QCOMPARE(reply.json.value(QStringLiteral("limits")).toObject(),
                 (QJsonObject{{QStringLiteral("connectionsPerClient"), 64}}));

        ProtocolService::Options options;
        options.limits.connectionsPerClient = 7;
        ServiceHarness told(options);
        QCOMPARE(told.call("GET", "/v1/health")
                     .json.value(QStringLiteral("limits"))
                     .toObject()
                     .value(QStringLiteral("connectionsPerClient")),
                 7);
    }

    void unknownRoutes_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("root") << QByteArray("GET") << QByteArray("/");
        QTest::newRow("v2") << QByteArray("GET") << QByteArray("/v2/health");
        QTest::newRow("wrong method") << QByteArray("POST") << QByteArray("/v1/health");
        QTest::newRow("files by GET") << QByteArray("GET") << QByteArray("/v1/files/a");
        QTest::newRow("chunks without index") << QByteArray("PUT") << QByteArray("/v1/uploads/x/chunks");
    }

    void unknownRoutes()
    {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        const auto reply = m_harness->call(method, path);
        QCOMPARE(reply.status, 404);
        QCOMPARE(reply.errorCode(), QByteArray("not_found"));
        QVERIFY(!reply.json.value(QStringLiteral("error"))
                     .toObject()
                     .value(QStringLiteral("message"))
                     .toString()
                     .isEmpty());
    }

    void probe()
    {
        ServiceRequest request;
        request.method = "GET";
        request.path = "/v1/probe";
        request.query.insert("bytes", "100000");
        const ServiceResponse response = m_harness->service().handle(request);
        QCOMPARE(response.status, 200);
        QCOMPARE(response.streamLength, qint64(100000));
        QByteArray first(4096, '\0'), second(4096, '\0');
        QCOMPARE(response.stream(first.data(), 4096), std::size_t(4096));
        QCOMPARE(response.stream(second.data(), 4096), std::size_t(4096));
        QVERIFY(first != second); // a stream, not a repeated block
        QVERIFY(first.count('\0') < 100);

        QCOMPARE(m_harness->call("GET", "/v1/probe?bytes=1073741825").errorCode(), QByteArray("too_large"));
        QCOMPARE(m_harness->call("GET", "/v1/probe?bytes=-1").errorCode(), QByteArray("bad_request"));
        QCOMPARE(m_harness->call("GET", "/v1/probe").errorCode(), QByteArray("bad_request"));
    }

    void createValidates_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("code");
        QTest::newRow("not json") << QByteArray("{") << QByteArray("bad_request");
        QTest::newRow("array") << QByteArray("[]") << QByteArray("bad_request");
        QTest::newRow("no path") << QByteArray(R"({"size":1,"mtime":1,"chunkSize":1})")
                                 << QByteArray("bad_request");
        QTest::newRow("negative size")
            << QByteArray(R"({"path":"a","size":-1,"mtime":1,"chunkSize":1})") << QByteArray("bad_request");
        QTest::newRow("fractional size")
            << QByteArray(R"({"path":"a","size":1.5,"mtime":1,"chunkSize":1})") << QByteArray("bad_request");
        QTest::newRow("huge size") << QByteArray(R"({"path":"a","size":1e300,"mtime":1,"chunkSize":1})")
                                   << QByteArray("bad_request");
        QTest::newRow("size as string")
            << QByteArray(R"({"path":"a","size":"5","mtime":1,"chunkSize":1})") << QByteArray("bad_request");
        QTest::newRow("zero chunk") << QByteArray(R"({"path":"a","size":5,"mtime":1,"chunkSize":0})")
                                    << QByteArray("bad_request");
        QTest::newRow("too many chunks")
            << QByteArray(R"({"path":"a","size":10000000,"mtime":1,"chunkSize":1})")
            << QByteArray("bad_request");
        QTest::newRow("bad policy")
            << QByteArray(R"({"path":"a","size":5,"mtime":1,"chunkSize":4,"onConflict":"x"})")
            << QByteArray("bad_request");
        QTest::newRow("bad sha") << QByteArray(
                                        R"({"path":"a","size":5,"mtime":1,"chunkSize":4,"sha256":"abc"})")
                                 << QByteArray("bad_request");
        QTest::newRow("traversal") << QByteArray(R"({"path":"../a","size":5,"mtime":1,"chunkSize":4})")
                                   << QByteArray("bad_path");
        QTest::newRow("nul") << QByteArray(R"({"path":"a\u0000b","size":5,"mtime":1,"chunkSize":4})")
                             << QByteArray("bad_path");
        QTest::newRow("private") << QByteArray(
                                        R"({"path":".multilane/uploads/x","size":5,"mtime":1,"chunkSize":4})")
                                 << QByteArray("bad_path");
    }

    void createValidates()
    {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, code);
        const auto reply = m_harness->call("POST", "/v1/uploads", body);
        QCOMPARE(reply.errorCode(), code);
        QCOMPARE(reply.status, 400);
    }

    void jsonBodyTooLarge()
    {
        const auto reply = m_harness->call("POST", "/v1/uploads", QByteArray(100000, ' '));
        QCOMPARE(reply.status, 413);
    }

    void chunkRequestValidation_data()
    {
        QTest::addColumn<QByteArray>("suffix"); // after /v1/uploads/
        QTest::addColumn<QByteArray>("hashHeader");
        QTest::addColumn<QByteArray>("contentLength"); // empty: none
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("code");
        const QByteArray hash = ChunkHash::toHeader(ChunkHash::of("abcd", 4));
        QTest::newRow("id not hex") << QByteArray("zz/chunks/0") << hash << QByteArray("4") << 404
                                    << QByteArray("no_such_upload");
        QTest::newRow("id upper case") << QByteArray("0123456789ABCDEF0123456789ABCDEF/chunks/0") << hash
                                       << QByteArray("4") << 404 << QByteArray("no_such_upload");
        QTest::newRow("negative index")
            << QByteArray("ID/chunks/-1") << hash << QByteArray("4") << 400 << QByteArray("bad_request");
        QTest::newRow("overflowing index") << QByteArray("ID/chunks/99999999999999999999") << hash
                                           << QByteArray("4") << 400 << QByteArray("bad_request");
        QTest::newRow("index out of range")
            << QByteArray("ID/chunks/3") << hash << QByteArray("4") << 400 << QByteArray("bad_request");
        QTest::newRow("no hash") << QByteArray("ID/chunks/0") << QByteArray() << QByteArray("4") << 400
                                 << QByteArray("bad_request");
        QTest::newRow("no length") << QByteArray("ID/chunks/0") << hash << QByteArray() << 411
                                   << QByteArray("length_required");
        QTest::newRow("negative length")
            << QByteArray("ID/chunks/0") << hash << QByteArray("-4") << 400 << QByteArray("bad_request");
        QTest::newRow("short") << QByteArray("ID/chunks/0") << hash << QByteArray("3") << 422
                               << QByteArray("length_mismatch");
        QTest::newRow("long") << QByteArray("ID/chunks/0") << hash << QByteArray("5") << 413
                              << QByteArray("too_large");
        QTest::newRow("unknown id") << QByteArray("0123456789abcdef0123456789abcdef/chunks/0") << hash
                                    << QByteArray("4") << 404 << QByteArray("no_such_upload");
    }

    void chunkRequestValidation()
    {
        QFETCH(QByteArray, suffix);
        QFETCH(QByteArray, hashHeader);
        QFETCH(QByteArray, contentLength);
        QFETCH(int, status);
        QFETCH(QByteArray, code);
        const auto created = m_harness->create(QStringLiteral("v.bin"), 10, 4); // chunks 4, 4, 2
        const QByteArray id = created.json.value(QStringLiteral("id")).toString().toLatin1();
        QHash<QByteArray, QByteArray> headers;
        if (!hashHeader.isEmpty())
            headers.insert("x-chunk-hash", hashHeader);
        if (!contentLength.isEmpty())
            headers.insert("content-length", contentLength);
        const QByteArray body = contentLength.isEmpty() ? QByteArray() : QByteArray("abcd");
        const auto reply = m_harness->call("PUT", "/v1/uploads/" + suffix.replace("ID", id), body, headers);
        QCOMPARE(reply.errorCode(), code);
        QCOMPARE(reply.status, status);
        QCOMPARE(m_harness->call("GET", "/v1/uploads/" + id)
                     .json.value(QStringLiteral("received"))
                     .toArray()
                     .size(),
                 0);
    }

    void uploadStateCarriesTheHashOfEveryHeldChunk()
    {
        const QByteArray data = ServiceHarness::testData(10, 7);
        const auto created = m_harness->create(QStringLiteral("hashes.bin"), 10, 4); // chunks 4, 4, 2
        const QByteArray id = created.json.value(QStringLiteral("id")).toString().toLatin1();
        QCOMPARE(m_harness->putChunk(id, 2, data.mid(8)).status, 200);
        QCOMPARE(m_harness->putChunk(id, 0, data.left(4)).status, 200);
        const auto hex = [](const QByteArray &bytes) {
            return QString::number(ChunkHash::of(bytes.constData(), std::size_t(bytes.size())), 16)
                .rightJustified(16, u'0');
        };
        // Both the GET and a create of the same key (what a resuming client sends) carry them.
        for (const QJsonObject &state : {m_harness->call("GET", "/v1/uploads/" + id).json,
                                         m_harness->create(QStringLiteral("hashes.bin"), 10, 4).json}) {
            QCOMPARE(state.value(QStringLiteral("received")).toArray(), (QJsonArray{0, 2}));
            QCOMPARE(state.value(QStringLiteral("receivedHashes")).toArray(),
                     (QJsonArray{hex(data.left(4)), hex(data.mid(8))}));
        }
    }

    void theChunkThatEndsLastCompletesWithTheHashAnotherBrought()
    {
        const QByteArray data = ServiceHarness::testData(10, 8);
        const QByteArray sha256 = ServiceHarness::sha256(data);
        const auto created = m_harness->create(QStringLiteral("last.bin"), 10, 4); // chunks 4, 4, 2
        const QByteArray id = created.json.value(QStringLiteral("id")).toString().toLatin1();
        const auto put = [&](qint64 index, const QByteArray &completeSha256) {
            const QByteArray chunk = data.mid(index * 4, 4);
            QHash<QByteArray, QByteArray> headers{
                {"x-chunk-hash",
                 ChunkHash::toHeader(ChunkHash::of(chunk.constData(), std::size_t(chunk.size())))}};
            if (!completeSha256.isEmpty())
                headers.insert("x-complete-sha256", completeSha256);
            return m_harness->call("PUT", "/v1/uploads/" + id + "/chunks/" + QByteArray::number(index), chunk,
                                   headers);
        };
        const QString completed = QStringLiteral("completed");
        // The last chunk sent arrives before another: it cannot complete, and leaves its hash.
        const auto early = put(2, sha256);
        QCOMPARE(early.status, 200);
        QVERIFY(!early.json.contains(completed));
        QVERIFY(!put(0, {}).json.contains(completed));
        QCOMPARE(m_harness->readStored(QStringLiteral("last.bin")), QByteArray());
        const auto last = put(1, {});
        QCOMPARE(last.status, 200);
        const QJsonObject finished = last.json.value(completed).toObject();
        QCOMPARE(finished.value(QStringLiteral("status")).toString(), QStringLiteral("stored"));
        QCOMPARE(finished.value(QStringLiteral("path")).toString(), QStringLiteral("last.bin"));
        QCOMPARE(finished.value(QStringLiteral("sha256")).toString().toLatin1(), sha256);
        QCOMPARE(m_harness->readStored(QStringLiteral("last.bin")), data);
        // A late duplicate is not completed twice; a complete answers as before.
        QVERIFY(!put(1, {}).json.contains(completed));
        QCOMPARE(m_harness->complete(id, sha256).status, 200);
    }

    void aWrongHashOnTheLastChunkLeavesTheFailureToTheComplete()
    {
        const QByteArray data = ServiceHarness::testData(8, 9);
        const auto created = m_harness->create(QStringLiteral("wrong.bin"), 8, 4);
        const QByteArray id = created.json.value(QStringLiteral("id")).toString().toLatin1();
        QCOMPARE(m_harness->putChunk(id, 0, data.left(4)).status, 200);
        const QByteArray chunk = data.mid(4);
        const auto last =
            m_harness->call("PUT", "/v1/uploads/" + id + "/chunks/1", chunk,
                            {{"x-chunk-hash", ChunkHash::toHeader(ChunkHash::of(chunk.constData(), 4))},
                             {"x-complete-sha256", ServiceHarness::sha256("something else")}});
        QCOMPARE(last.status, 200);
        QVERIFY(!last.json.contains(QStringLiteral("completed")));
        QCOMPARE(m_harness->readStored(QStringLiteral("wrong.bin")), QByteArray());
        // The damaged file was reset, as a complete would have: the client's complete hears it.
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(data)).errorCode(), QByteArray("incomplete"));
        QCOMPARE(m_harness
                     ->call("PUT", "/v1/uploads/" + id + "/chunks/1", chunk,
                            {{"x-chunk-hash", ChunkHash::toHeader(ChunkHash::of(chunk.constData(), 4))},
                             {"x-complete-sha256", "not-hex"}})
                     .errorCode(),
                 QByteArray("bad_request"));
    }

    void bodyEndingEarlyIsLengthMismatch()
    {
        const auto created = m_harness->create(QStringLiteral("early.bin"), 8192, 8192);
        const QByteArray id = created.json.value(QStringLiteral("id")).toString().toLatin1();
        const QByteArray data = ServiceHarness::testData(8192);
        ServiceRequest request;
        request.method = "PUT";
        request.path = "/v1/uploads/" + id + "/chunks/0";
        request.headers = {{"content-length", "8192"},
                           {"x-chunk-hash", ChunkHash::toHeader(ChunkHash::of(data.constData(), 8192))}};
        request.body = [&data](const BodySink &sink) {
            sink(data.constData(), 4096);
            return false; // the connection dropped
        };
        const ServiceResponse response = m_harness->service().handle(request);
        QCOMPARE(response.status, 422);
        QCOMPARE(m_harness->call("GET", "/v1/uploads/" + id)
                     .json.value(QStringLiteral("received"))
                     .toArray()
                     .size(),
                 0);
    }

    void wholeFilePut()
    {
        const QByteArray data = ServiceHarness::testData(300000);
        auto reply = m_harness->call("PUT", "/v1/files/inbox/report.pdf", data);
        QCOMPARE(reply.status, 201);
        QCOMPARE(reply.json.value(QStringLiteral("status")).toString(), QStringLiteral("stored"));
        QCOMPARE(reply.json.value(QStringLiteral("sha256")).toString().toLatin1(),
                 ServiceHarness::sha256(data));
        QCOMPARE(m_harness->readStored(QStringLiteral("inbox/report.pdf")), data);

        reply = m_harness->call("PUT", "/v1/files/inbox/report.pdf", data); // identical: skipped
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json.value(QStringLiteral("status")).toString(), QStringLiteral("skipped"));

        const QByteArray other = ServiceHarness::testData(1000, 2);
        reply = m_harness->call("PUT", "/v1/files/inbox/report.pdf", other);
        QCOMPARE(reply.status, 201);
        QCOMPARE(reply.json.value(QStringLiteral("path")).toString(), QStringLiteral("inbox/report (1).pdf"));

        reply = m_harness->call("PUT", "/v1/files/inbox/report.pdf?onConflict=overwrite", other);
        QCOMPARE(reply.status, 201);
        QCOMPARE(m_harness->readStored(QStringLiteral("inbox/report.pdf")), other);

        reply =
            m_harness->call("PUT", "/v1/files/inbox/report.pdf", data, {{"x-multilane-on-conflict", "fail"}});
        QCOMPARE(reply.status, 409);
        QCOMPARE(reply.errorCode(), QByteArray("conflict"));
    }

    void wholeFileChecksAndLengths()
    {
        const QByteArray data = ServiceHarness::testData(5000);
        auto reply =
            m_harness->call("PUT", "/v1/files/x.bin", data, {{"x-content-sha256", QByteArray(64, 'a')}});
        QCOMPARE(reply.errorCode(), QByteArray("checksum_mismatch"));
        QVERIFY(!QFile::exists(m_harness->storage() + QStringLiteral("/x.bin")));
        reply = m_harness->call("PUT", "/v1/files/x.bin", data,
                                {{"x-content-sha256", ServiceHarness::sha256(data).toUpper()}});
        QCOMPARE(reply.status, 201);
        reply = m_harness->call("PUT", "/v1/files/y.bin", data, {{"content-length", "4000"}});
        QCOMPARE(reply.errorCode(), QByteArray("too_large"));
        reply = m_harness->call("PUT", "/v1/files/y.bin", data, {{"content-length", "6000"}});
        QCOMPARE(reply.errorCode(), QByteArray("length_mismatch"));
        reply = m_harness->call("PUT", "/v1/files/y.bin", QByteArray());
        QCOMPARE(reply.errorCode(), QByteArray("length_required"));
        QVERIFY(!QFile::exists(m_harness->storage() + QStringLiteral("/y.bin")));
        // Nothing half-written stays behind in the private folder either.
        QCOMPARE(
            QDir(m_harness->storage() + QStringLiteral("/.multilane/uploads")).entryList(QDir::Files).size(),
            0);
    }

    // What a store declares it can hold, and the room it reports, decide; the service assumes
    // neither (a store on object storage has other limits than a folder).
    void storeLimitsAndSpaceComeFromTheStore()
    {
        ForwardingStore store(m_harness->store());
        store.storeLimits.minChunkSize = 1000;
        store.storeLimits.maxChunkSize = 4000;
        store.storeLimits.maxChunkCount = 10;
        store.storeLimits.maxFileSize = 30000;
        ProtocolService service(store); // no free-space override: it asks the store
        const auto create = [&service](qint64 size, qint64 chunkSize) {
            ServiceRequest request;
            request.method = "POST";
            request.path = "/v1/uploads";
            const QByteArray body =
                QJsonDocument(QJsonObject{{QStringLiteral("path"), QStringLiteral("f.bin")},
                                          {QStringLiteral("size"), size},
                                          {QStringLiteral("mtime"), 1},
                                          {QStringLiteral("chunkSize"), chunkSize}})
                    .toJson();
            request.headers.insert("content-length", QByteArray::number(body.size()));
            request.body = [body](const BodySink &sink) {
                return sink(body.constData(), std::size_t(body.size()));
            };
            const ServiceResponse response = service.handle(request);
            const QJsonObject error =
                QJsonDocument::fromJson(response.body).object().value(QStringLiteral("error")).toObject();
            return std::pair(response.status, error.value(QStringLiteral("code")).toString());
        };
        QCOMPARE(create(30001, 4000), std::pair(413, QStringLiteral("file_too_large")));
        QCOMPARE(create(8000, 4001), std::pair(413, QStringLiteral("chunk_too_large")));
        QCOMPARE(create(8000, 999), std::pair(400, QStringLiteral("bad_request")));
        QCOMPARE(create(30000, 2000), std::pair(400, QStringLiteral("bad_request"))); // 15 chunks
        QCOMPARE(create(999, 999).first, 201); // one chunk may be smaller than the minimum
        QCOMPARE(create(30000, 3000).first, 201);

        store.storageSpace = StorageSpace{100, 1000};
        QCOMPARE(create(20000, 2000), std::pair(507, QStringLiteral("insufficient_storage")));
    }

    void hostilePathsRefused_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("parent") << QByteArray("../escape.txt");
        QTest::newRow("parent deeper") << QByteArray("a/../../escape.txt");
        QTest::newRow("absolute") << QByteArray("/tmp/escape.txt");
        QTest::newRow("nul") << QByteArray("escape\0.txt", 11);
        QTest::newRow("backslash") << QByteArray("..\\escape.txt");
        QTest::newRow("trailing slash") << QByteArray("inbox/");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("private") << QByteArray(".multilane/uploads/x.json");
        QTest::newRow("invalid utf-8") << QByteArray("\xff\xfe.txt");
    }

    void hostilePathsRefused()
    {
        QFETCH(QByteArray, path);
        const QStringList before =
            QDir(m_harness->outside()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        const auto reply = m_harness->call("PUT", "/v1/files/" + path, QByteArray("evil"));
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.errorCode(), QByteArray("bad_path"));
        const QJsonObject body{{QStringLiteral("path"), QString::fromUtf8(path)},
                               {QStringLiteral("size"), 4},
                               {QStringLiteral("mtime"), 1},
                               {QStringLiteral("chunkSize"), 4}};
        if (QString::fromUtf8(path).toUtf8() == path) // JSON cannot carry invalid UTF-8
            QCOMPARE(m_harness->call("POST", "/v1/uploads", QJsonDocument(body).toJson()).status, 400);
        QCOMPARE(QDir(m_harness->outside()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 before);
        QCOMPARE(QDir(m_harness->storage()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral(".multilane")});
    }

private:
    std::unique_ptr<ServiceHarness> m_harness;
};

QTEST_GUILESS_MAIN(TestProtocolService)
#include "tst_receiverservice.moc"
