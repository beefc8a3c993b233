#include "ResumeJournal.h"
#include "SourceFile.h"

#include <QTest>

using namespace multilane;

// SourceFile keeps both paths in one UTF-8 array; what goes in must come out, whatever the script.
class TestSourceFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bothPathsComeBackAsGiven_data()
    {
        QTest::addColumn<QString>("local");
        QTest::addColumn<QString>("destination");
        QTest::newRow("ascii") << QStringLiteral("/home/a/f.bin") << QStringLiteral("up/f.bin");
        QTest::newRow("accents") << QStringLiteral("/données/été/ü.bin") << QStringLiteral("été/ü.bin");
        QTest::newRow("beyond the BMP")
            << QStringLiteral("/tmp/\U0001F600 x") << QStringLiteral("\U0001F600 x");
        QTest::newRow("no destination") << QStringLiteral("/tmp/x") << QString();
        QTest::newRow("no local path") << QString() << QStringLiteral("d/x");
    }

    void bothPathsComeBackAsGiven()
    {
        QFETCH(QString, local);
        QFETCH(QString, destination);
        const SourceFile file(local, destination, 7, 9);
        QCOMPARE(file.localPath(), local);
        QCOMPARE(file.destinationPath(), destination);
        QCOMPARE(file.localPathUtf8(), local.toUtf8());
        QCOMPARE(file.destinationPathUtf8(), destination.toUtf8());
        QCOMPARE(file.size, 7);
        QCOMPARE(file.mtimeMs, 9);
    }

    void settingOnePathKeepsTheOther()
    {
        SourceFile file(QStringLiteral("/a/été"), QStringLiteral("x/été"), 1, 2);
        file.setDestinationPath(QStringLiteral("renamed/été"));
        QCOMPARE(file.localPath(), QStringLiteral("/a/été"));
        QCOMPARE(file.destinationPath(), QStringLiteral("renamed/été"));
        file.setLocalPath(QStringLiteral("/b/longer/than/before"));
        QCOMPARE(file.localPath(), QStringLiteral("/b/longer/than/before"));
        QCOMPARE(file.destinationPath(), QStringLiteral("renamed/été"));
    }

    void anEmptyFileHasEmptyPaths()
    {
        const SourceFile file;
        QVERIFY(file.localPath().isEmpty());
        QVERIFY(file.destinationPath().isEmpty());
    }

    // Journals written before the paths were packed name their files by these keys: a resume
    // after an upgrade must find them (SHA-256 of "local\0destination", worked out by hand).
    void journalKeysAreThoseOfEarlierVersions()
    {
        QCOMPARE(
            ResumeJournal::keyFor(SourceFile(QStringLiteral("/data/a"), QStringLiteral("dest/a"), 1000, 0)),
            QStringLiteral("e50d740907b068f9"));
        QCOMPARE(ResumeJournal::keyFor(SourceFile(QStringLiteral("/données/été/ü.bin"),
                                                  QStringLiteral("dest/été/ü.bin"), 1, 0)),
                 QStringLiteral("e741b14aee804a71"));
    }
};

QTEST_GUILESS_MAIN(TestSourceFile)
#include "tst_sourcefile.moc"
