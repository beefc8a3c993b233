#include "UploadPath.h"

#include <QSet>
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

    void escapesWhatTheRulesRefuse_data()
    {
        QTest::addColumn<QString>("local");
        QTest::addColumn<QString>("sent");
        QTest::newRow("plain") << QStringLiteral("a.txt") << QStringLiteral("a.txt");
        QTest::newRow("backslash") << QStringLiteral("a\\b") << QStringLiteral("a%5Cb");
        QTest::newRow("newline") << QStringLiteral("new\nline") << QStringLiteral("new%0Aline");
        QTest::newRow("tab and DEL") << QStringLiteral("t\tx\x7f") << QStringLiteral("t%09x%7F");
        QTest::newRow("nul") << QString(QChar(u'\0')) << QStringLiteral("%00");
        QTest::newRow("percent alone") << QStringLiteral("50% off") << QStringLiteral("50% off");
        QTest::newRow("percent at end") << QStringLiteral("100%") << QStringLiteral("100%");
        QTest::newRow("percent one hex digit") << QStringLiteral("%4") << QStringLiteral("%4");
        QTest::newRow("percent before hex") << QStringLiteral("100%41") << QStringLiteral("100%2541");
        QTest::newRow("lowercase hex too") << QStringLiteral("%5c") << QStringLiteral("%255c");
        QTest::newRow("an escape lookalike") << QStringLiteral("a%5Cb") << QStringLiteral("a%255Cb");
        QTest::newRow("utf-8 kept") << QStringLiteral("K\u00f6ln\n") << QStringLiteral("K\u00f6ln%0A");
    }

    void escapesWhatTheRulesRefuse()
    {
        QFETCH(QString, local);
        QFETCH(QString, sent);
        QCOMPARE(UploadPath::escapeName(local), sent);
        QCOMPARE(UploadPath::unescapeName(sent), local);
        QVERIFY2(!UploadPath::problem(sent.toUtf8()), qPrintable(sent));
    }

    // Every name made of the characters that matter, up to four long: escaping is reversible, so
    // no two names share a stored name, and the protocol accepts each.
    void escapingIsReversibleAndCollisionFree()
    {
        const QList<QChar> alphabet{u'%', u'4', u'1', u'a', u'\\', u'\n', u'C'};
        QSet<QString> stored;
        int names = 0;
        QList<QString> level{QString()};
        for (int length = 1; length <= 4; ++length) {
            QList<QString> next;
            for (const QString &prefix : level) {
                for (QChar c : alphabet) {
                    const QString name = prefix + c;
                    next.append(name);
                    const QString escaped = UploadPath::escapeName(name);
                    QCOMPARE(UploadPath::unescapeName(escaped), name);
                    QVERIFY2(!UploadPath::problem(escaped.toUtf8()), qPrintable(escaped));
                    QVERIFY2(!stored.contains(escaped), qPrintable(escaped));
                    stored.insert(escaped);
                    ++names;
                }
            }
            level = next;
        }
        QCOMPARE(int(stored.size()), names);
        QCOMPARE(UploadPath::escapeComponents(QStringLiteral("a\\b/c\nd")), QStringLiteral("a%5Cb/c%0Ad"));
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
