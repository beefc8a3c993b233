#include "CommandLine.h"

#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

static CommandLine::Result parse(QStringList words)
{
    words.prepend(QStringLiteral("multilane"));
    return CommandLine::parse(words);
}

class TestCommandLine : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fullUpload()
    {
        const auto r = parse(
            {QStringLiteral("upload"), QStringLiteral("--endpoint"), QStringLiteral("http://recv:9101"),
             QStringLiteral("--endpoint"), QStringLiteral("recv:9102"), QStringLiteral("--connections"),
             QStringLiteral("12"), QStringLiteral("--chunk-size"), QStringLiteral("4M"),
             QStringLiteral("--dest"), QStringLiteral("/inbox/"), QStringLiteral("--on-conflict"),
             QStringLiteral("skip"), QStringLiteral("--json"), QStringLiteral("a"), QStringLiteral("b/")});
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(r.command, CommandLine::Command::Upload);
        QCOMPARE(r.upload.endpoints.size(), 2);
        QCOMPARE(r.upload.endpoints.at(1).url, QUrl(QStringLiteral("http://recv:9102")));
        QCOMPARE(r.upload.transfer.connections, 12);
        QCOMPARE(r.upload.transfer.chunkSize, 4 * 1024 * 1024);
        QCOMPARE(r.upload.destination, QStringLiteral("inbox"));
        QCOMPARE(r.upload.transfer.onConflict, ConflictPolicy::Skip);
        QVERIFY(r.upload.json);
        QCOMPARE(r.upload.paths, (QStringList{QStringLiteral("a"), QStringLiteral("b/")}));
    }

    void defaultsAreSelfTuned()
    {
        const auto r = parse({QStringLiteral("upload"), QStringLiteral("--endpoint"), QStringLiteral("h:1"),
                              QStringLiteral("--endpoint"), QStringLiteral("h:2"), QStringLiteral("x")});
        QVERIFY(r.error.isEmpty());
        QCOMPARE(r.upload.transfer.onConflict, ConflictPolicy::Rename);
        // The count is found by measuring, up to what the receivers allow (UploadRun).
        QVERIFY(!r.upload.connectionsFixed);
        QCOMPARE(r.upload.endpoints.at(0).maxConnections, 0); // automatic
    }

    void badUsageSaysWhatToDo_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QString>("mentions");
        const QString e = QStringLiteral("--endpoint");
        const QString h = QStringLiteral("http://h:1");
        QTest::newRow("no endpoint") << QStringList{QStringLiteral("upload"), QStringLiteral("x")} << e;
        QTest::newRow("no path") << QStringList{QStringLiteral("upload"), e, h}
                                 << QStringLiteral("nothing to send");
        QTest::newRow("bad connections") << QStringList{QStringLiteral("upload"),
                                                        e,
                                                        h,
                                                        QStringLiteral("--connections"),
                                                        QStringLiteral("0"),
                                                        QStringLiteral("x")}
                                         << QStringLiteral("--connections");
        QTest::newRow("bad chunk") << QStringList{QStringLiteral("upload"),
                                                  e,
                                                  h,
                                                  QStringLiteral("--chunk-size"),
                                                  QStringLiteral("12 parsecs"),
                                                  QStringLiteral("x")}
                                   << QStringLiteral("--chunk-size");
        QTest::newRow("tiny chunk") << QStringList{QStringLiteral("upload"),
                                                   e,
                                                   h,
                                                   QStringLiteral("--chunk-size"),
                                                   QStringLiteral("1K"),
                                                   QStringLiteral("x")}
                                    << QStringLiteral("64K");
        QTest::newRow("bad policy") << QStringList{QStringLiteral("upload"),
                                                   e,
                                                   h,
                                                   QStringLiteral("--on-conflict"),
                                                   QStringLiteral("merge"),
                                                   QStringLiteral("x")}
                                    << QStringLiteral("rename, overwrite");
        QTest::newRow("escaping dest")
            << QStringList{QStringLiteral("upload"), e, h, QStringLiteral("--dest"), QStringLiteral("../etc"),
                           QStringLiteral("x")}
            << QStringLiteral("--dest");
        QTest::newRow("bad scheme") << QStringList{QStringLiteral("upload"), e, QStringLiteral("ftp://h"),
                                                   QStringLiteral("x")}
                                    << QStringLiteral("http://");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("upload"), QStringLiteral("--frobnicate")}
            << QStringLiteral("frobnicate");
        QTest::newRow("unknown command") << QStringList{QStringLiteral("uplaod")} << QStringLiteral("uplaod");
    }
    void badUsageSaysWhatToDo()
    {
        QFETCH(QStringList, words);
        QFETCH(QString, mentions);
        const auto r = parse(words);
        QVERIFY(!r.error.isEmpty());
        QVERIFY2(r.error.contains(mentions), qPrintable(r.error));
    }

    void tuningAndNetworkOptions()
    {
        const auto r = parse({QStringLiteral("upload"), QStringLiteral("--endpoint"), QStringLiteral("h:1"),
                              QStringLiteral("--limit-rate"), QStringLiteral("5M"), QStringLiteral("--order"),
                              QStringLiteral("files"), QStringLiteral("--max-offline"), QStringLiteral("10m"),
                              QStringLiteral("--stall-timeout"), QStringLiteral("30s"), QStringLiteral("x")});
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(r.upload.transfer.limitBytesPerSecond, 5.0 * 1024 * 1024);
        QVERIFY(r.upload.transfer.filesInOrder);
        QCOMPARE(r.upload.transfer.maxOfflineMs, 600000);
        QCOMPARE(r.upload.transfer.transferTimeoutMs, 30000);
        QVERIFY(r.upload.autoChunkSize);

        QCOMPARE(CommandLine::parseDuration(QStringLiteral("90")), 90000);
        QCOMPARE(CommandLine::parseDuration(QStringLiteral("1.5h")), 5400000);
        QCOMPARE(CommandLine::parseDuration(QStringLiteral("250ms")), 250);
        QVERIFY(!CommandLine::parseDuration(QStringLiteral("soon")));

        const auto bad = parse({QStringLiteral("upload"), QStringLiteral("--endpoint"), QStringLiteral("h:1"),
                                QStringLiteral("--order"), QStringLiteral("random"), QStringLiteral("x")});
        QVERIFY(bad.error.contains(QLatin1String("--order")));
        const auto probe =
            parse({QStringLiteral("probe"), QStringLiteral("--endpoint"), QStringLiteral("h:1")});
        QVERIFY2(probe.error.isEmpty(), qPrintable(probe.error));
        QCOMPARE(probe.command, CommandLine::Command::Probe);
        const auto resume =
            parse({QStringLiteral("resume"), QStringLiteral("--on-change"), QStringLiteral("fail")});
        QCOMPARE(resume.command, CommandLine::Command::Resume);
        QVERIFY(!resume.upload.restartChangedFiles);
    }

    void s3Target()
    {
        qputenv("MULTILANE_TOKEN", "receiver-token");
        const auto r =
            parse({QStringLiteral("upload"), QStringLiteral("--s3"), QStringLiteral("s3://bucket/backups"),
                   QStringLiteral("--endpoint"), QStringLiteral("https://gw1:7480"),
                   QStringLiteral("--endpoint"), QStringLiteral("https://gw2:7480/"),
                   QStringLiteral("--region"), QStringLiteral("eu-west-1"), QStringLiteral("--addressing"),
                   QStringLiteral("path"), QStringLiteral("--profile"), QStringLiteral("backup"),
                   QStringLiteral("--dest"), QStringLiteral("2024"), QStringLiteral("x")});
        qunsetenv("MULTILANE_TOKEN");
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(r.upload.s3.url, QStringLiteral("s3://bucket/backups"));
        QCOMPARE(r.upload.s3.region, QStringLiteral("eu-west-1"));
        QCOMPARE(r.upload.s3.addressing, S3Addressing::Path);
        QCOMPARE(r.upload.s3.profile, QStringLiteral("backup"));
        QCOMPARE(r.upload.endpoints.size(), 2);
        QCOMPARE(r.upload.endpoints.at(1).url.authority(), QStringLiteral("gw2:7480"));
        QVERIFY(r.upload.endpoints.at(0).token.isEmpty()); // gateways take signatures, not tokens
        QCOMPARE(r.upload.destination, QStringLiteral("2024"));

        // Without --endpoint: AWS's endpoint for the region, found when the run starts.
        const auto aws = parse({QStringLiteral("upload"), QStringLiteral("--s3"),
                                QStringLiteral("s3://bucket/"), QStringLiteral("x")});
        QVERIFY2(aws.error.isEmpty(), qPrintable(aws.error));
        QVERIFY(aws.upload.endpoints.isEmpty());
        QCOMPARE(aws.upload.s3.addressing, S3Addressing::Auto);
    }

    void s3BadUsageSaysWhatToDo_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QString>("mentions");
        const QString s3 = QStringLiteral("--s3");
        const QString bucket = QStringLiteral("s3://bucket/");
        const QString upload = QStringLiteral("upload");
        const QString x = QStringLiteral("x");
        QTest::newRow("not s3://") << QStringList{upload, s3, QStringLiteral("https://bucket/"), x}
                                   << QStringLiteral("s3://bucket/folder/");
        QTest::newRow("no bucket") << QStringList{upload, s3, QStringLiteral("s3:///x"), x}
                                   << QStringLiteral("names no bucket");
        QTest::newRow("gateway with a path") << QStringList{upload,
                                                            s3,
                                                            bucket,
                                                            QStringLiteral("--endpoint"),
                                                            QStringLiteral("https://gw/bucket"),
                                                            x}
                                             << QStringLiteral("no path");
        QTest::newRow("bad addressing")
            << QStringList{upload, s3, bucket, QStringLiteral("--addressing"), QStringLiteral("dns"), x}
            << QStringLiteral("path, virtual or auto");
        QTest::newRow("region without --s3") << QStringList{upload,
                                                            QStringLiteral("--endpoint"),
                                                            QStringLiteral("h:1"),
                                                            QStringLiteral("--region"),
                                                            QStringLiteral("eu-west-1"),
                                                            x}
                                             << QStringLiteral("add --s3");
        QTest::newRow("token with --s3")
            << QStringList{upload, s3, bucket, QStringLiteral("--token"), QStringLiteral("t"), x}
            << QStringLiteral("AWS_ACCESS_KEY_ID");
        QTest::newRow("probe") << QStringList{QStringLiteral("probe"), s3, bucket}
                               << QStringLiteral("S3 gateway");
        QTest::newRow("speedtest") << QStringList{QStringLiteral("speedtest"), s3, bucket}
                                   << QStringLiteral("S3 gateway");
    }
    void s3BadUsageSaysWhatToDo() { badUsageSaysWhatToDo(); }

    void endpointsFileFormats()
    {
        const auto lines = EndpointParser::fromFileContents("# receivers\nhttp://a:1\n\n  b:2  \n");
        QVERIFY2(lines.value, qPrintable(lines.error));
        QCOMPARE(lines.value->size(), 2);
        QCOMPARE(lines.value->at(1).url, QUrl(QStringLiteral("http://b:2")));

        const auto json = EndpointParser::fromFileContents(
            "{\"endpoints\":[{\"url\":\"http://a:1\",\"token\":\"t\",\"weight\":3,\"maxConnections\":12},"
            "{\"url\":\"http://b:2\"}]}");
        QVERIFY2(json.value, qPrintable(json.error));
        QCOMPARE(json.value->at(0).token, QByteArray("t"));
        QCOMPARE(json.value->at(0).weight, 3);
        QCOMPARE(json.value->at(0).maxConnections, 12);
        QCOMPARE(json.value->at(1).maxConnections, 0); // automatic: what the receiver allows
        QCOMPARE(EndpointParser::fromFileContents(
                     "{\"endpoints\":[{\"url\":\"http://a:1\",\"maxConnections\":\"auto\"}]}")
                     .value->at(0)
                     .maxConnections,
                 0);
        const auto negative = EndpointParser::fromFileContents(
            "{\"endpoints\":[{\"url\":\"http://a:1\",\"maxConnections\":-2}]}");
        QVERIFY(!negative.value);
        QVERIFY2(negative.error.contains(QLatin1String("maxConnections")), qPrintable(negative.error));

        QVERIFY(!EndpointParser::fromFileContents("{\"endpoints\": [").value);
        const auto badLine = EndpointParser::fromFileContents("http://a:1\nmailto:x@y\n");
        QVERIFY(!badLine.value);
        QVERIFY2(badLine.error.contains(QLatin1String("line 2")), qPrintable(badLine.error));
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
