// s3://bucket/prefix/ targets: parsing, endpoints, addressing style, keys and their URLs.
#include "S3Target.h"
#include "SigV4Signer.h"

#include <QTest>

using namespace multilane;

namespace {

S3Target target(const char *s3Url,
                const QList<QUrl> &endpoints = {QUrl(QStringLiteral("http://127.0.0.1:7480"))},
                S3Addressing addressing = S3Addressing::Auto)
{
    auto parsed = S3Target::parse(QString::fromUtf8(s3Url), endpoints, {}, addressing);
    if (!parsed)
        qFatal("unexpected failure: %s", qPrintable(parsed.failure().userMessage));
    return parsed.value();
}

} // namespace

class TestS3Target : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesBucketAndPrefix_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("bucket");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("bucket") << "s3://media"
                                << "media"
                                << "";
        QTest::newRow("bucket slash") << "s3://media/"
                                      << "media"
                                      << "";
        QTest::newRow("prefix") << "s3://media/in/box/"
                                << "media"
                                << "in/box/";
        QTest::newRow("prefix without slash") << "s3://media/inbox"
                                              << "media"
                                              << "inbox/";
        QTest::newRow("doubled slashes") << "s3://media//a//b/"
                                         << "media"
                                         << "a/b/";
        QTest::newRow("case kept") << "S3://Legacy_Bucket/Dir"
                                   << "Legacy_Bucket"
                                   << "Dir/";
    }
    void parsesBucketAndPrefix()
    {
        QFETCH(QString, url);
        QFETCH(QString, bucket);
        QFETCH(QString, prefix);
        const auto parsed = S3Target::parse(url, {}, {});
        QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.failure().userMessage));
        QCOMPARE(parsed.value().bucket(), bucket);
        QCOMPARE(parsed.value().prefix(), prefix);
        QCOMPARE(parsed.value().displayName(), QStringLiteral("s3://") + bucket + QLatin1Char('/') + prefix);
    }

    void refusesBadTargets_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not s3") << "https://media/x"
                                << ""
                                << "s3://bucket/folder/";
        QTest::newRow("no bucket") << "s3://"
                                   << ""
                                   << "names no bucket";
        QTest::newRow("empty bucket") << "s3:///x"
                                      << ""
                                      << "names no bucket";
        QTest::newRow("short bucket") << "s3://ab"
                                      << ""
                                      << "3 to 63";
        QTest::newRow("space in bucket") << "s3://a b/"
                                         << ""
                                         << "' '";
        QTest::newRow("ftp endpoint") << "s3://media"
                                      << "ftp://gw"
                                      << "http:// or https://";
        QTest::newRow("endpoint path") << "s3://media"
                                       << "http://gw/media"
                                       << "no path";
        QTest::newRow("endpoint user") << "s3://media"
                                       << "http://me:pw@gw"
                                       << "AWS_ACCESS_KEY_ID";
        QTest::newRow("endpoint not url") << "s3://media"
                                          << "gw1:7480"
                                          << "https://gw1:7480";
    }
    void refusesBadTargets()
    {
        QFETCH(QString, url);
        QFETCH(QString, endpoint);
        QFETCH(QString, mentions);
        const QList<QUrl> endpoints =
            endpoint.isEmpty() ? QList<QUrl>{} : QList<QUrl>{QUrl(endpoint, QUrl::StrictMode)};
        const auto parsed = S3Target::parse(url, endpoints, {});
        QVERIFY(!parsed);
        QCOMPARE(parsed.failure().kind, S3Failure::Kind::InvalidInput);
        QVERIFY2(parsed.failure().userMessage.contains(mentions), qPrintable(parsed.failure().userMessage));
        QVERIFY(!parsed.failure().userMessage.contains(QLatin1String("pw@")));
    }

    void defaultsToAwsForTheRegion()
    {
        const auto parsed = S3Target::parse(QStringLiteral("s3://media"), {}, QStringLiteral("eu-west-3"));
        QVERIFY(parsed);
        QCOMPARE(parsed.value().endpoints(),
                 QList<QUrl>{QUrl(QStringLiteral("https://s3.eu-west-3.amazonaws.com"))});
        QCOMPARE(S3Target::parse(QStringLiteral("s3://media"), {}, {}).value().region(),
                 QStringLiteral("us-east-1"));
    }

    void addressingStyle_data()
    {
        QTest::addColumn<QString>("bucket");
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<int>("addressing");
        QTest::addColumn<QString>("expected");
        const int automatic = int(S3Addressing::Auto);
        QTest::newRow("ip and port") << "media"
                                     << "http://10.0.0.5:7480" << automatic << "http://10.0.0.5:7480/media/k";
        QTest::newRow("host and port") << "media"
                                       << "https://gw1:7480" << automatic << "https://gw1:7480/media/k";
        QTest::newRow("plain host") << "media"
                                    << "https://s3.example.org" << automatic
                                    << "https://s3.example.org/media/k";
        QTest::newRow("aws") << "media"
                             << "https://s3.eu-west-1.amazonaws.com" << automatic
                             << "https://media.s3.eu-west-1.amazonaws.com/k";
        QTest::newRow("aws dotted bucket https")
            << "my.media"
            << "https://s3.amazonaws.com" << automatic << "https://s3.amazonaws.com/my.media/k";
        QTest::newRow("aws uppercase bucket")
            << "Media"
            << "https://s3.amazonaws.com" << automatic << "https://s3.amazonaws.com/Media/k";
        QTest::newRow("forced path") << "media"
                                     << "https://s3.amazonaws.com" << int(S3Addressing::Path)
                                     << "https://s3.amazonaws.com/media/k";
        QTest::newRow("forced virtual host")
            << "media"
            << "http://gw:7480" << int(S3Addressing::VirtualHost) << "http://media.gw:7480/k";
    }
    void addressingStyle()
    {
        QFETCH(QString, bucket);
        QFETCH(QString, endpoint);
        QFETCH(int, addressing);
        QFETCH(QString, expected);
        const QUrl url(endpoint);
        const auto parsed =
            S3Target::parse(QStringLiteral("s3://") + bucket, {url}, {}, S3Addressing(addressing));
        QVERIFY(parsed);
        QCOMPARE(parsed.value().objectUrl(url, QStringLiteral("k")).toString(), expected);
    }

    void virtualHostNeedsADnsName()
    {
        const auto parsed =
            S3Target::parse(QStringLiteral("s3://Under_Score"), {QUrl(QStringLiteral("http://gw"))}, {},
                            S3Addressing::VirtualHost);
        QVERIFY(!parsed);
        QVERIFY(parsed.failure().userMessage.contains(QLatin1String("path-style")));
    }

    void keysAreEncodedOnceAndSurviveQUrl_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("plain") << "dir/file.txt" << QByteArray("/media/dir/file.txt");
        QTest::newRow("space plus unicode")
            << QStringLiteral("Fotos 2024/été + plage.jpg")
            << QByteArray("/media/Fotos%202024/%C3%A9t%C3%A9%20%2B%20plage.jpg");
        QTest::newRow("sub-delims") << "a!b*c'd(e)f$g&h,i;j=k:l@m"
                                    << QByteArray("/media/a%21b%2Ac%27d%28e%29f%24g%26h%2Ci%3Bj%3Dk%3Al%40m");
        QTest::newRow("url syntax") << "q?x#y%z[1]" << QByteArray("/media/q%3Fx%23y%25z%5B1%5D");
        QTest::newRow("unreserved kept") << "A-Z_a.z~0" << QByteArray("/media/A-Z_a.z~0");
        QTest::newRow("emoji") << QStringLiteral("\U0001F600.txt") << QByteArray("/media/%F0%9F%98%80.txt");
    }
    void keysAreEncodedOnceAndSurviveQUrl()
    {
        QFETCH(QString, key);
        QFETCH(QByteArray, path);
        const QUrl endpoint(QStringLiteral("http://127.0.0.1:7480"));
        const QUrl url = target("s3://media", {endpoint}).objectUrl(endpoint, key);
        // What Qt sends on the request line, and what the signature covers, are the same bytes.
        QCOMPARE(url.toEncoded(), "http://127.0.0.1:7480" + path);
        QCOMPARE(url.path(QUrl::FullyEncoded).toLatin1(), path);
        QCOMPARE(SigV4Signer::canonicalUri(url), path);
        QCOMPARE(url.path(), QStringLiteral("/media/") + key);
    }

    void objectKeys()
    {
        const S3Target inbox = target("s3://media/in/box");
        QCOMPARE(inbox.objectKey(QStringLiteral("photos/a.jpg")).value(),
                 QStringLiteral("in/box/photos/a.jpg"));
        QCOMPARE(inbox.objectKey(QStringLiteral("/photos//a.jpg")).value(),
                 QStringLiteral("in/box/photos/a.jpg"));
        QCOMPARE(target("s3://media").objectKey(QStringLiteral("a.jpg")).value(), QStringLiteral("a.jpg"));
        QVERIFY(!inbox.objectKey(QString()));
        const QString longName(S3Target::MaxKeyBytes - 7, QLatin1Char('x'));
        QVERIFY(inbox.objectKey(longName));                     // 7 + 1017 = 1024 bytes
        QVERIFY(!inbox.objectKey(longName + QLatin1Char('y'))); // 1025
        QVERIFY(!inbox.objectKey(QString(600, QChar(0x00e9)))); // 1200 bytes of UTF-8
        QVERIFY(inbox.objectKey(longName + QLatin1Char('y'))
                    .failure()
                    .userMessage.contains(QLatin1String("1024")));
    }

    void bucketUrlAndEndpointName()
    {
        const QUrl endpoint(QStringLiteral("http://127.0.0.1:7480"));
        QCOMPARE(target("s3://media").bucketUrl(endpoint).toString(),
                 QStringLiteral("http://127.0.0.1:7480/media/"));
        QCOMPARE(S3Target::endpointName(endpoint), QStringLiteral("127.0.0.1:7480"));
        QCOMPARE(S3Target::endpointName(QUrl(QStringLiteral("https://s3.amazonaws.com"))),
                 QStringLiteral("s3.amazonaws.com"));
        QCOMPARE(S3Target::endpointName(QUrl(QStringLiteral("http://[::1]:9000"))),
                 QStringLiteral("[::1]:9000"));
    }
};

QTEST_GUILESS_MAIN(TestS3Target)
#include "tst_s3_target.moc"
