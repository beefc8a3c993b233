#include "SourceScanner.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalServer>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace multilane;

static void writeFile(const QString &path, const QByteArray &data)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(data);
}

static QStringList destinationsOf(const SourceScanner::Result &result)
{
    QStringList destinations;
    for (const SourceFile &file : result.files)
        destinations.append(file.destinationPath());
    return destinations;
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
        QCOMPARE(destinationsOf(result),
                 (QStringList{QStringLiteral("video.mov"), QStringLiteral("photos/.hidden"),
                              QStringLiteral("photos/2024/b.jpg"), QStringLiteral("photos/a.jpg")}));
        QCOMPARE(result.files.at(2).size, 3);
        QVERIFY(QFileInfo(result.files.at(2).localPath()).isAbsolute());
    }

    void destinationPrefix()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("x/y.txt")), "y");
        const auto result =
            SourceScanner::scan({dir.filePath(QStringLiteral("x"))}, QStringLiteral("inbox/today/"));
        QCOMPARE(result.files.size(), 1);
        QCOMPARE(result.files.first().destinationPath(), QStringLiteral("inbox/today/x/y.txt"));
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
        QCOMPARE(result.files.first().destinationPath(), QStringLiteral("proj/readme"));
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

    // Legal on Linux, refused raw by the protocol: sent under the escaped name, not refused.
    void namesTheProtocolRefusesAreSentEscaped()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("odd/back\\slash.txt")), "b");
        writeFile(dir.filePath(QStringLiteral("odd/new\nline.txt")), "n");
        writeFile(dir.filePath(QStringLiteral("odd/tab\there")), "t");
        writeFile(dir.filePath(QStringLiteral("top\\file")), "f");
        const auto result = SourceScanner::scan(
            {dir.filePath(QStringLiteral("odd")), dir.filePath(QStringLiteral("top\\file"))}, QString());
        QVERIFY2(result.errors.isEmpty(), qPrintable(result.errors.join(u'\n')));
        QCOMPARE(destinationsOf(result),
                 (QStringList{QStringLiteral("odd/back%5Cslash.txt"), QStringLiteral("odd/new%0Aline.txt"),
                              QStringLiteral("odd/tab%09here"), QStringLiteral("top%5Cfile")}));
        QVERIFY(QFileInfo::exists(result.files.at(1).localPath()));
    }

    void whatIsNotARegularFileIsNamedWithItsReason()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("f"));
        writeFile(folder + QStringLiteral("/ok.txt"), "ok");
        QVERIFY(::mkfifo(QFile::encodeName(folder + QStringLiteral("/pipe")).constData(), 0600) == 0);
        QVERIFY(QFile::link(folder + QStringLiteral("/nowhere"), folder + QStringLiteral("/dangling")));
        QVERIFY(QFile::link(folder + QStringLiteral("/loop-b"), folder + QStringLiteral("/loop-a")));
        QVERIFY(QFile::link(folder + QStringLiteral("/loop-a"), folder + QStringLiteral("/loop-b")));
        QVERIFY(QFile::link(dir.path(), folder + QStringLiteral("/up")));
        QVERIFY(QFile::link(folder + QStringLiteral("/ok.txt"), folder + QStringLiteral("/alias.txt")));
        QVERIFY(QFile::link(QStringLiteral("/dev/null"), folder + QStringLiteral("/device")));
        {
            QLocalServer socket;
            QVERIFY(socket.listen(folder + QStringLiteral("/socket")));
            const auto result = SourceScanner::scan({folder}, QString());
            QVERIFY2(result.errors.isEmpty(), qPrintable(result.errors.join(u'\n')));
            // A link to a file is the file, as cp -r -L would send it.
            QCOMPARE(destinationsOf(result),
                     (QStringList{QStringLiteral("f/alias.txt"), QStringLiteral("f/ok.txt")}));
            QMap<QString, QString> reasons;
            for (const SourceScanner::Skipped &entry : result.skipped)
                reasons.insert(QFileInfo(entry.path).fileName(), entry.reason);
            QCOMPARE(reasons.keys(),
                     (QStringList{QStringLiteral("dangling"), QStringLiteral("device"),
                                  QStringLiteral("loop-a"), QStringLiteral("loop-b"), QStringLiteral("pipe"),
                                  QStringLiteral("socket"), QStringLiteral("up")}));
            QVERIFY2(
                reasons.value(QStringLiteral("dangling")).contains(QLatin1String("dangling symbolic link")),
                qPrintable(reasons.value(QStringLiteral("dangling"))));
            QCOMPARE(reasons.value(QStringLiteral("loop-a")), QStringLiteral("a symbolic link loop"));
            QCOMPARE(reasons.value(QStringLiteral("pipe")), QStringLiteral("a FIFO (named pipe)"));
            QCOMPARE(reasons.value(QStringLiteral("socket")), QStringLiteral("a socket"));
            QCOMPARE(reasons.value(QStringLiteral("device")),
                     QStringLiteral("a symbolic link to a character device"));
            QCOMPARE(reasons.value(QStringLiteral("up")),
                     QStringLiteral("a symbolic link to a folder (not followed)"));
        }
    }

    void sizesAndTimesAreWhatQFileInfoSays()
    {
        // The journal compares these with what a later scan sees: they must stay QFileInfo's
        // figures (milliseconds, truncated), whichever call reads them.
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("t"));
        const auto stamp = [](const QString &path, time_t seconds, long nanoseconds, int flags = 0) {
            const timespec times[2] = {{seconds, nanoseconds}, {seconds, nanoseconds}};
            return ::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, flags) == 0;
        };
        writeFile(folder + QStringLiteral("/recent"), QByteArray(1234, 'r'));
        QVERIFY(stamp(folder + QStringLiteral("/recent"), 1700000000, 123999999));
        writeFile(folder + QStringLiteral("/old"), "o");
        QVERIFY(stamp(folder + QStringLiteral("/old"), -2, 500000000));
        QVERIFY(QFile::link(folder + QStringLiteral("/recent"), folder + QStringLiteral("/link")));
        QVERIFY(stamp(folder + QStringLiteral("/link"), 1600000000, 0, AT_SYMLINK_NOFOLLOW));

        const auto result = SourceScanner::scan({folder, folder + QStringLiteral("/recent")}, QString());
        QVERIFY2(result.errors.isEmpty(), qPrintable(result.errors.join(u'\n')));
        QCOMPARE(result.files.size(), 4);
        for (const SourceFile &file : result.files) {
            const QFileInfo info(file.localPath());
            QCOMPARE(file.size, info.size());
            QCOMPARE(file.mtimeMs, info.lastModified().toMSecsSinceEpoch());
            const QString name = info.fileName();
            if (name == QLatin1String("recent") || name == QLatin1String("link")) {
                QCOMPARE(file.size, qint64(1234));
                QCOMPARE(file.mtimeMs, qint64(1700000000123)); // the link's own time is not the file's
            }
        }
    }

    void aFifoNamedOnTheCommandLineIsAnErrorWithItsKind()
    {
        QTemporaryDir dir;
        const QString pipe = dir.filePath(QStringLiteral("pipe"));
        QVERIFY(::mkfifo(QFile::encodeName(pipe).constData(), 0600) == 0);
        const auto result = SourceScanner::scan({pipe}, QString());
        QCOMPARE(result.errors, QStringList{QStringLiteral("not sent: %1: a FIFO (named pipe)").arg(pipe)});
    }

    void anUnreadableFolderIsAnError()
    {
        if (::geteuid() == 0)
            QSKIP("root reads every folder");
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("top/closed/secret")), "s");
        writeFile(dir.filePath(QStringLiteral("top/open")), "o");
        QFile::setPermissions(dir.filePath(QStringLiteral("top/closed")), QFileDevice::WriteOwner);
        const auto result = SourceScanner::scan({dir.filePath(QStringLiteral("top"))}, QString());
        QFile::setPermissions(dir.filePath(QStringLiteral("top/closed")),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QCOMPARE(result.files.size(), 1);
        QCOMPARE(result.errors.size(), 1);
        QVERIFY(result.errors.first().contains(QLatin1String("cannot read the folder")));
    }
};

QTEST_GUILESS_MAIN(TestSourceScanner)
#include "tst_sourcescanner.moc"
