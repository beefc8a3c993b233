#include "UploadPath.h"

#include <QTest>

using namespace multilane;

// The destination-path rules: every hostile form is refused, ordinary names pass.
class TestUploadPath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void refuses_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("parent") << QByteArray("../x");
        QTest::newRow("parent inside") << QByteArray("a/../b");
        QTest::newRow("parent at end") << QByteArray("a/..");
        QTest::newRow("absolute") << QByteArray("/abs");
        QTest::newRow("backslash") << QByteArray("a\\b");
        QTest::newRow("windows parent") << QByteArray("..\\x");
        QTest::newRow("nul") << QByteArray("a\0b", 3);
        QTest::newRow("newline") << QByteArray("a\nb");
        QTest::newRow("delete char") << QByteArray("a\x7f");
        QTest::newRow("dot") << QByteArray(".");
        QTest::newRow("dot component") << QByteArray("a/./b");
        QTest::newRow("trailing slash") << QByteArray("inbox/");
        QTest::newRow("double slash") << QByteArray("a//b");
        QTest::newRow("component 256 bytes") << QByteArray(256, 'x');
        QTest::newRow("path over 4096 bytes") << QByteArray(QByteArray(200, 'x') + '/').repeated(21);
        QTest::newRow("invalid utf-8") << QByteArray("caf\xc3");
        QTest::newRow("overlong utf-8 slash") << QByteArray("a\xc0\xaf"
                                                            "b");
        QTest::newRow("private folder") << QByteArray(".multilane/x");
        QTest::newRow("private folder alone") << QByteArray(".multilane");
    }

    void refuses()
    {
        QFETCH(QByteArray, path);
        const auto problem = UploadPath::problem(path);
        QVERIFY2(problem.has_value(), path.toHex().constData());
        QVERIFY(!problem->isEmpty());
    }

    void accepts_data()
    {
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("plain") << QByteArray("a.txt");
        QTest::newRow("nested") << QByteArray("photos/2024/a.jpg");
        QTest::newRow("utf-8") << QByteArray("fotos/K\xc3\xb6ln/\xe6\x97\xa5\xe6\x9c\xac.jpg");
        QTest::newRow("dots inside names") << QByteArray("a..b/.hidden/x...");
        QTest::newRow("component 255 bytes") << QByteArray(255, 'x');
        QTest::newRow("private name deeper") << QByteArray("x/.multilane/y");
        QTest::newRow("spaces") << QByteArray("my file (1).txt");
    }

    void accepts()
    {
        QFETCH(QByteArray, path);
        const auto problem = UploadPath::problem(path);
        QVERIFY2(!problem.has_value(), qPrintable(problem.value_or(QString())));
    }

    void join()
    {
        QCOMPARE(UploadPath::join(QStringLiteral("inbox/"), QStringLiteral("/a.txt")),
                 QStringLiteral("inbox/a.txt"));
        QCOMPARE(UploadPath::join(QString(), QStringLiteral("a")), QStringLiteral("a"));
        QCOMPARE(UploadPath::join(QStringLiteral("a//b"), QString()), QStringLiteral("a/b"));
    }
};

QTEST_GUILESS_MAIN(TestUploadPath)
#include "tst_uploadpath.moc"
