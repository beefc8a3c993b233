#include "ReceiverProcess.h"
#include "ServiceHarness.h"

#include "AccessPolicy.h"
#include "Sha256.h"
#include "TokenFile.h"

#include <QFile>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

namespace {

const QByteArray AliceToken = "alice-0123456789abcdef";
const QByteArray BobToken = "bob-0123456789abcdef01";
const QByteArray AdminToken = "admin-0123456789abcdef";

QByteArray tokenFileText()
{
    return "# tokens for the test receiver\n"
           "\n" +
           AliceToken + "  id=alice  folder=alice  quota=50G\n" + BobToken + "\tid=bob folder=bob/\n" +
           AdminToken + "   # whole storage, default id\n";
}

AccessPolicy testPolicy()
{
    const TokenFile::Result parsed = TokenFile::parse(tokenFileText(), QStringLiteral("tokens.txt"));
    return AccessPolicy(parsed.tokens);
}

ProtocolService::Options withTokens()
{
    ProtocolService::Options options;
    options.access = testPolicy();
    return options;
}

QByteArray sha256Hex(const QByteArray &text)
{
    Sha256 hash;
    hash.addData(text);
    return hash.hexDigest();
}

bool hasBearerChallenge(const ServiceHarness::Reply &reply)
{
    for (const auto &[name, value] : reply.headers) {
        if (name.toLower() == "www-authenticate" && value.startsWith("Bearer"))
            return true;
    }
    return false;
}

} // namespace

// Tokens (--token-file): the file format and its errors, 401 on every route but health, 403
// outside a token's folder (by path and by upload id), and one real receiver process.
class TestAuth : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tokenFileParses()
    {
        const TokenFile::Result parsed = TokenFile::parse(tokenFileText(), QStringLiteral("tokens.txt"));
        QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
        QCOMPARE(parsed.tokens.size(), 3);
        const AccessToken &alice = parsed.tokens.at(0);
        QCOMPARE(alice.id, QStringLiteral("alice"));
        QCOMPARE(alice.folder, QStringLiteral("alice"));
        QCOMPARE(alice.quota, std::optional<qint64>(qint64(50) << 30));
        QCOMPARE(alice.line, 3);
        QCOMPARE(alice.sha256, sha256Hex(AliceToken));
        QCOMPARE(parsed.tokens.at(1).folder, QStringLiteral("bob")); // trailing slash dropped
        QVERIFY(!parsed.tokens.at(1).quota);
        // Without id=: 8 hex digits of the token's SHA-256, never the token or a part of it.
        const AccessToken &admin = parsed.tokens.at(2);
        QCOMPARE(admin.id, QString::fromLatin1(sha256Hex(AdminToken).left(8)));
        QVERIFY(!AdminToken.contains(admin.id.toLatin1()));
        QVERIFY(admin.folder.isEmpty());
    }

    void tokenFileErrors_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("what");
        const QByteArray good = AliceToken + " id=alice\n";
        QTest::newRow("short token") << QByteArray(good + "short-token\n") << QStringLiteral("t.txt:2:")
                                     << QStringLiteral("at least 16");
        QTest::newRow("bad character") << QByteArray("# c\nabcdefgh\"ijklmnopq\n")
                                       << QStringLiteral("t.txt:2:") << QStringLiteral("character");
        QTest::newRow("unknown key") << QByteArray(good + BobToken + " owner=bob\n")
                                     << QStringLiteral("t.txt:2:")
                                     << QStringLiteral("unknown setting 'owner'");
        QTest::newRow("not key=value") << QByteArray(good + BobToken + " bob\n") << QStringLiteral("t.txt:2:")
                                       << QStringLiteral("key=value");
        QTest::newRow("duplicate token")
            << QByteArray(good + "\n" + AliceToken + " id=other\n") << QStringLiteral("t.txt:3:")
            << QStringLiteral("same token is on line 1");
        QTest::newRow("duplicate id")
            << QByteArray(good + BobToken + " id=alice\n") << QStringLiteral("t.txt:2:")
            << QStringLiteral("id 'alice' is already used on line 1");
        QTest::newRow("bad size") << QByteArray(good + BobToken + " quota=lots\n")
                                  << QStringLiteral("t.txt:2:")
                                  << QStringLiteral("quota 'lots' is not a size");
        QTest::newRow("zero quota") << QByteArray(good + BobToken + " quota=0\n")
                                    << QStringLiteral("t.txt:2:") << QStringLiteral("quota '0'");
        QTest::newRow("folder escapes") << QByteArray(good + BobToken + " folder=../x\n")
                                        << QStringLiteral("t.txt:2:") << QStringLiteral("'..'");
        QTest::newRow("absolute folder") << QByteArray(good + BobToken + " folder=/srv\n")
                                         << QStringLiteral("t.txt:2:") << QStringLiteral("absolute");
        QTest::newRow("private folder") << QByteArray(good + BobToken + " folder=.multilane\n")
                                        << QStringLiteral("t.txt:2:") << QStringLiteral("private folder");
        QTest::newRow("setting twice") << QByteArray(good + BobToken + " id=b id=c\n")
                                       << QStringLiteral("t.txt:2:") << QStringLiteral("set twice");
        QTest::newRow("bad id") << QByteArray(good + BobToken + " id=b/c\n") << QStringLiteral("t.txt:2:")
                                << QStringLiteral("id 'b/c'");
        QTest::newRow("no tokens") << QByteArray("# nothing yet\n\n") << QStringLiteral("t.txt:")
                                   << QStringLiteral("no tokens");
    }

    void tokenFileErrors()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, where);
        QFETCH(QString, what);
        const TokenFile::Result parsed = TokenFile::parse(content, QStringLiteral("t.txt"));
        QVERIFY(parsed.tokens.isEmpty());
        QVERIFY2(parsed.error.startsWith(where), qPrintable(parsed.error));
        QVERIFY2(parsed.error.contains(what), qPrintable(parsed.error));
        // A message may end up in a log: it never repeats a token.
        QVERIFY(!parsed.error.contains(QString::fromLatin1(AliceToken)));
        QVERIFY(!parsed.error.contains(QString::fromLatin1(BobToken)));
    }

    void healthStaysOpen()
    {
        ServiceHarness harness(withTokens());
        QVERIFY(harness.isValid());
        const auto reply = harness.call("GET", "/v1/health");
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    }

    void everyOtherRouteNeedsAToken_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QByteArray>("body");
        const QByteArray id(32, 'a');
        QTest::newRow("probe") << QByteArray("GET") << QByteArray("/v1/probe?bytes=1000") << QByteArray();
        QTest::newRow("discard") << QByteArray("PUT") << QByteArray("/v1/discard") << QByteArray(1000, 'x');
        QTest::newRow("create") << QByteArray("POST") << QByteArray("/v1/uploads") << QByteArray("{}");
        QTest::newRow("get upload") << QByteArray("GET") << QByteArray("/v1/uploads/" + id) << QByteArray();
        QTest::newRow("abort") << QByteArray("DELETE") << QByteArray("/v1/uploads/" + id) << QByteArray();
        QTest::newRow("chunk") << QByteArray("PUT") << QByteArray("/v1/uploads/" + id + "/chunks/0")
                               << QByteArray("x");
        QTest::newRow("complete") << QByteArray("POST") << QByteArray("/v1/uploads/" + id + "/complete")
                                  << QByteArray("{}");
        QTest::newRow("put file") << QByteArray("PUT") << QByteArray("/v1/files/alice/a.txt")
                                  << QByteArray("x");
        QTest::newRow("unknown route") << QByteArray("GET") << QByteArray("/v1/secret") << QByteArray();
    }

    void everyOtherRouteNeedsAToken()
    {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        QFETCH(QByteArray, body);
        ServiceHarness harness(withTokens());
        QVERIFY(harness.isValid());
        const QByteArray sent = body.isEmpty() ? QByteArray() : body;

        const auto missing = harness.call(method, path, sent);
        QCOMPARE(missing.status, 401);
        QCOMPARE(missing.errorCode(), QByteArray("unauthorized"));
        QVERIFY(missing.errorMessage().contains(QStringLiteral("Authorization: Bearer")));
        QVERIFY(hasBearerChallenge(missing));

        const QList<QByteArray> wrongHeaders{QByteArray("Bearer wrong-token-0123456789"),
                                             QByteArray("Basic " + AliceToken),
                                             QByteArray("Bearer " + AliceToken.chopped(1)),
                                             QByteArray("Bearer " + AliceToken + "x"),
                                             QByteArray("Bearer"),
                                             AliceToken};
        for (const QByteArray &wrong : wrongHeaders) {
            const auto refused = harness.call(method, path, sent, {{"authorization", wrong}});
            QCOMPARE(refused.status, 401);
            QCOMPARE(refused.errorCode(), QByteArray("unauthorized"));
            QVERIFY(hasBearerChallenge(refused));
        }

        // The right token gets past the door: whatever comes next, it is not 401.
        harness.useToken(AliceToken);
        const auto admitted = harness.call(method, path, sent);
        QVERIFY2(admitted.status != 401 && admitted.status != 0, qPrintable(admitted.errorMessage()));
        // The scheme name is case-insensitive (RFC 6750), surrounding spaces do not matter.
        const auto lowerCase =
            harness.call(method, path, sent, {{"authorization", "bearer  " + AliceToken + " "}});
        QVERIFY2(lowerCase.status != 401, qPrintable(lowerCase.errorMessage()));
    }

    void tokenIdsForTheAccessLog()
    {
        const AccessPolicy policy = testPolicy();
        QCOMPARE(policy.tokenId("Bearer " + AliceToken), QStringLiteral("alice"));
        QCOMPARE(policy.tokenId("Bearer " + BobToken), QStringLiteral("bob"));
        QCOMPARE(policy.tokenId("Bearer " + AdminToken), QString::fromLatin1(sha256Hex(AdminToken).left(8)));
        QCOMPARE(policy.tokenId({}), QStringLiteral("-"));
        QCOMPARE(policy.tokenId("Bearer " + AliceToken.left(AliceToken.size() - 1) + "g"),
                 QStringLiteral("-"));
        QCOMPARE(AccessPolicy().tokenId("Bearer " + AliceToken), QStringLiteral("-")); // open receiver
        // The service exposes the same mapping for the HTTP layer's log.
        ServiceHarness harness(withTokens());
        QCOMPARE(harness.service().tokenId("Bearer " + BobToken), QStringLiteral("bob"));
    }

    void tokensDifferingInOneCharacterAreDifferent()
    {
        // Compared as whole SHA-256 digests: a shared prefix, a prefix of a token, a token with
        // more after it all fail, and each token finds its own entry however many there are.
        QByteArray content;
        QList<QByteArray> secrets;
        for (int i = 0; i < 20; ++i) {
            secrets.append("shared-prefix-0123456789-" + QByteArray::number(i));
            content += secrets.last() + " id=t" + QByteArray::number(i) + "\n";
        }
        const TokenFile::Result parsed = TokenFile::parse(content, QStringLiteral("many.txt"));
        QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
        const AccessPolicy policy(parsed.tokens);
        for (int i = 0; i < 20; ++i) {
            const auto found = policy.authenticate("Bearer " + secrets.at(i));
            QVERIFY(found.ok());
            QCOMPARE(found.value().id, QStringLiteral("t%1").arg(i));
        }
        QVERIFY(!policy.authenticate("Bearer shared-prefix-0123456789-").ok());
        QVERIFY(!policy.authenticate("Bearer shared-prefix-0123456789-20").ok());
        QVERIFY(!policy.authenticate("Bearer shared-prefix-0123456789-1x").ok());
    }

    void pathsOutsideTheFolderAreForbidden_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("other folder") << QStringLiteral("bob/a.bin");
        QTest::newRow("same prefix, other folder") << QStringLiteral("alice2/a.bin");
        QTest::newRow("the folder itself") << QStringLiteral("alice");
        QTest::newRow("top level") << QStringLiteral("a.bin");
    }

    void pathsOutsideTheFolderAreForbidden()
    {
        QFETCH(QString, path);
        ServiceHarness harness(withTokens());
        QVERIFY(harness.isValid());
        harness.useToken(AliceToken);
        const auto created = harness.create(path, 100, 100);
        QCOMPARE(created.status, 403);
        QCOMPARE(created.errorCode(), QByteArray("forbidden"));
        QVERIFY2(created.errorMessage().contains(QStringLiteral("'alice/'")),
                 qPrintable(created.errorMessage()));
        const auto put = harness.call("PUT", "/v1/files/" + path.toUtf8(), QByteArray(100, 'x'));
        QCOMPARE(put.status, 403);
        QCOMPARE(put.errorCode(), QByteArray("forbidden"));
        QVERIFY(!QFile::exists(harness.storage() + u'/' + path));

        // Inside the folder both work.
        QCOMPARE(harness.call("PUT", "/v1/files/alice/put.bin", QByteArray(100, 'x')).status, 201);
        const QByteArray data = ServiceHarness::testData(1000);
        QCOMPARE(harness.upload(QStringLiteral("alice/deep/up.bin"), data, 300).status, 200);
        QCOMPARE(harness.readStored(QStringLiteral("alice/deep/up.bin")), data);
    }

    void uploadsOfAnotherFolderAreForbiddenById()
    {
        ServiceHarness harness(withTokens());
        QVERIFY(harness.isValid());
        harness.useToken(BobToken);
        const auto created = harness.create(QStringLiteral("bob/secret.bin"), 200, 100);
        QCOMPARE(created.status, 201);
        const QByteArray id = created.json.value(QStringLiteral("id")).toString().toLatin1();
        const QByteArray data = ServiceHarness::testData(200);
        QCOMPARE(harness.putChunk(id, 0, data.left(100)).status, 200);

        harness.useToken(AliceToken);
        const QList<ServiceHarness::Reply> refused{
            harness.call("GET", "/v1/uploads/" + id), harness.putChunk(id, 1, data.mid(100)),
            harness.complete(id, ServiceHarness::sha256(data)), harness.call("DELETE", "/v1/uploads/" + id)};
        for (const auto &reply : refused) {
            QCOMPARE(reply.status, 403);
            QCOMPARE(reply.errorCode(), QByteArray("forbidden"));
            QVERIFY2(!reply.errorMessage().contains(QStringLiteral("secret")),
                     qPrintable(reply.errorMessage()));
        }
        // An id that does not exist is simply not there.
        QCOMPARE(harness.call("GET", "/v1/uploads/" + QByteArray(32, 'b')).errorCode(),
                 QByteArray("no_such_upload"));

        // Bob's upload is untouched; the whole-storage token may see it; once finished, its id
        // (now only a completion record) is still Bob's.
        harness.useToken(AdminToken);
        const auto state = harness.call("GET", "/v1/uploads/" + id);
        QCOMPARE(state.status, 200);
        harness.useToken(BobToken);
        QCOMPARE(harness.putChunk(id, 1, data.mid(100)).status, 200);
        QCOMPARE(harness.complete(id, ServiceHarness::sha256(data)).status, 200);
        QCOMPARE(harness.readStored(QStringLiteral("bob/secret.bin")), data);
        harness.useToken(AliceToken);
        const auto afterwards = harness.complete(id, ServiceHarness::sha256(data));
        QCOMPARE(afterwards.status, 403);
        QVERIFY(
            !afterwards.json.value(QStringLiteral("error")).toObject().contains(QStringLiteral("sha256")));
    }

    void openReceiverNeedsNoToken()
    {
        ServiceHarness harness;
        QVERIFY(harness.isValid());
        QCOMPARE(harness.call("PUT", "/v1/files/any/where.bin", QByteArray(10, 'x')).status, 201);
        QCOMPARE(harness.call("GET", "/v1/probe?bytes=10").status, 200);
    }

    void realReceiverChecksTokens()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString tokens = dir.path() + QStringLiteral("/tokens.txt");
        QFile file(tokens);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(tokenFileText());
        file.close();
        ReceiverProcess receiver(dir.path() + QStringLiteral("/storage"));
        QVERIFY2(receiver.start(1, {QStringLiteral("--quiet"), QStringLiteral("--token-file"), tokens}),
                 qPrintable(receiver.errorText()));
        const QUrl base = receiver.urls().constFirst();
        const auto url = [&base](const char *path) { return base.resolved(QUrl(QString::fromLatin1(path))); };

        QCOMPARE(send("GET", url("/v1/health"), {}).status, 200);
        const Result anonymous = send("PUT", url("/v1/files/alice/a.txt"), "hello");
        QCOMPARE(anonymous.status, 401);
        QVERIFY(anonymous.challenge.startsWith("Bearer"));
        QCOMPARE(anonymous.errorCode(), QByteArray("unauthorized"));
        QCOMPARE(send("GET", url("/v1/probe?bytes=100000"), {}).status, 401);
        QCOMPARE(send("PUT", url("/v1/files/alice/a.txt"), "hello", "Bearer nope-nope-nope-nope").status,
                 401);

        const Result stored = send("PUT", url("/v1/files/alice/a.txt"), "hello", "Bearer " + AliceToken);
        QCOMPARE(stored.status, 201);
        QCOMPARE(readFile(dir.path() + QStringLiteral("/storage/alice/a.txt")), QByteArray("hello"));
        const Result outside = send("PUT", url("/v1/files/bob/a.txt"), "hello", "Bearer " + AliceToken);
        QCOMPARE(outside.status, 403);
        QCOMPARE(outside.errorCode(), QByteArray("forbidden"));
        QVERIFY(!QFile::exists(dir.path() + QStringLiteral("/storage/bob/a.txt")));
        // A chunk-sized body with a wrong token: the client still reads the 401, not a reset.
        const Result bigRefused = send("PUT", url("/v1/files/alice/big.bin"), QByteArray(64 << 20, 'b'),
                                       "Bearer nope-nope-nope-nope");
        QCOMPARE(bigRefused.status, 401);
        QCOMPARE(bigRefused.errorCode(), QByteArray("unauthorized"));
        const Result probe = send("GET", url("/v1/probe?bytes=100000"), {}, "Bearer " + BobToken);
        QCOMPARE(probe.status, 200);
        QCOMPARE(probe.body.size(), 100000);
    }

    void realReceiverRefusesABadTokenFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString tokens = dir.path() + QStringLiteral("/tokens.txt");
        QFile file(tokens);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("# ok so far\n" + AliceToken + " id=alice\n" + BobToken + " colour=blue\n");
        file.close();
        QProcess process;
        process.start(QStringLiteral(MULTILANE_RECEIVER_BIN),
                      {QStringLiteral("--storage"), dir.path() + QStringLiteral("/s"),
                       QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                       QStringLiteral("--token-file"), tokens});
        QVERIFY(process.waitForFinished(15000));
        QCOMPARE(process.exitCode(), 2);
        const QString errors = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(errors.contains(tokens + QStringLiteral(":3: unknown setting 'colour'")),
                 qPrintable(errors));
        QVERIFY(!errors.contains(QString::fromLatin1(BobToken)));
        QVERIFY(process.readAllStandardOutput().isEmpty()); // never started listening
    }

private:
    struct Result {
        int status = 0;
        QByteArray body;
        QByteArray challenge;
        QByteArray errorCode() const
        {
            return QJsonDocument::fromJson(body)
                .object()
                .value(QStringLiteral("error"))
                .toObject()
                .value(QStringLiteral("code"))
                .toString()
                .toLatin1();
        }
    };

    Result send(const QByteArray &method, const QUrl &url, const QByteArray &body,
                const QByteArray &authorization = {})
    {
        QNetworkRequest request(url);
        if (!authorization.isEmpty())
            request.setRawHeader("Authorization", authorization);
        QNetworkReply *reply = method == "GET" ? m_network.get(request) : m_network.put(request, body);
        if (!reply->isFinished()) {
            QSignalSpy finished(reply, &QNetworkReply::finished);
            finished.wait(30000);
        }
        Result result{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll(),
                      reply->rawHeader("WWW-Authenticate")};
        reply->deleteLater();
        return result;
    }

    static QByteArray readFile(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    QNetworkAccessManager m_network;
};

QTEST_GUILESS_MAIN(TestAuth)
#include "tst_auth.moc"
