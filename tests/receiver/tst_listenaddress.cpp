#include "ListenAddress.h"

#include <QTest>

using namespace multilane;

class TestListenAddress : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parses()
    {
        auto parsed = ListenAddress::parseList(QStringLiteral("127.0.0.1:0,0,0"));
        QVERIFY(parsed.error.isEmpty());
        QCOMPARE(parsed.addresses.size(), 3);
        for (const ListenAddress &address : parsed.addresses) {
            QCOMPARE(address.host, QStringLiteral("127.0.0.1"));
            QCOMPARE(address.port, quint16(0));
        }
        parsed = ListenAddress::parseList(QStringLiteral("9101,10.0.0.1:9102,9103"));
        QCOMPARE(parsed.addresses.size(), 3);
        QCOMPARE(parsed.addresses.at(0).toString(), QStringLiteral("0.0.0.0:9101"));
        QCOMPARE(parsed.addresses.at(1).toString(), QStringLiteral("10.0.0.1:9102"));
        QCOMPARE(parsed.addresses.at(2).toString(), QStringLiteral("10.0.0.1:9103"));
        parsed = ListenAddress::parseList(QStringLiteral("[::1]:9101,9102"));
        QCOMPARE(parsed.addresses.at(1).host, QStringLiteral("::1"));
        QCOMPARE(parsed.addresses.at(1).url(), QStringLiteral("http://[::1]:9102"));
    }

    void refuses_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("empty") << QString();
        QTest::newRow("trailing comma") << QStringLiteral("9101,");
        QTest::newRow("too big") << QStringLiteral("65536");
        QTest::newRow("negative") << QStringLiteral("-1");
        QTest::newRow("no port") << QStringLiteral("localhost:");
        QTest::newRow("no host") << QStringLiteral(":9101");
        QTest::newRow("words") << QStringLiteral("http");
        QTest::newRow("bad ipv6") << QStringLiteral("[::1:9101");
    }

    void refuses()
    {
        QFETCH(QString, spec);
        const auto parsed = ListenAddress::parseList(spec);
        QVERIFY(!parsed.error.isEmpty());
        QVERIFY(parsed.addresses.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestListenAddress)
#include "tst_listenaddress.moc"
