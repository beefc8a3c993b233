#include "SourceScanner.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

static void writeFile(const QString &path, const QByteArray &data)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(data);
}

class TestSourceScanner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void filesAndFoldersLikeCpR()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("video.mov")), "v");
        writeFile(dir.filePath(QStringLiteral("photos/a.jpg")), "aa");
        writeFile(dir.filePath(QStringLiteral("photos/2024/b.jpg")), "bbb");
        writeFile(dir.filePath(QStringLiteral("photos/.hidden")), "");
        QDir().mkpath(dir.filePath(QStringLiteral("photos/empty")));

        const auto result = SourceScanner::scan({dir.filePath(QStringLiteral("video.mov")),
                                                 dir.filePath(QStringLiteral("photos")) + QLatin1Char('/')},
                                                QString());
        QVERIFY(result.errors.isEmpty());
        QStringList destinations;
        for (const SourceFile &file : result.files)
            destinations.append(file.destinationPath);
        QCOMPARE(destinations,
                 (QStringList{QStringLiteral("video.mov"), QStringLiteral("photos/.hidden"),
                              QStringLiteral("photos/2024/b.jpg"), QStringLiteral("photos/a.jpg")}));
        QCOMPARE(result.files.at(2).size, 3);
        QVERIFY(QFileInfo(result.files.at(2).localPath).isAbsolute());
    }

    void destinationPrefix()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("x/y.txt")), "y");
        const auto result =
            SourceScanner::scan({dir.filePath(QStringLiteral("x"))}, QStringLiteral("inbox/today/"));
        QCOMPARE(result.files.size(), 1);
        QCOMPARE(result.files.first().destinationPath, QStringLiteral("inbox/today/x/y.txt"));
    }

    void dotMeansTheFolderItself()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("proj/readme")), "r");
        const QString previous = QDir::currentPath();
        QDir::setCurrent(dir.filePath(QStringLiteral("proj")));
        const auto result = SourceScanner::scan({QStringLiteral(".")}, QString());
        QDir::setCurrent(previous);
        QCOMPARE(result.files.size(), 1);
        QCOMPARE(result.files.first().destinationPath, QStringLiteral("proj/readme"));
    }

    void missingPathIsAnErrorOthersContinue()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("ok")), "1");
        const auto result = SourceScanner::scan(
            {dir.filePath(QStringLiteral("nope")), dir.filePath(QStringLiteral("ok"))}, QString());
        QCOMPARE(result.files.size(), 1);
        QCOMPARE(result.errors.size(), 1);
        QVERIFY(result.errors.first().contains(QLatin1String("nope")));
    }
};

QTEST_GUILESS_MAIN(TestSourceScanner)
#include "tst_sourcescanner.moc"
