// The desktop entry point: `multilane FILE…` (a file manager's "Open with Multilane") opens the
// window with those files, and while a window runs a later launch hands its files to it and
// ends, as qBittorrent and Transmission do; without a display it says why instead of "unknown
// command". The real binary, a real local socket.
#include "SingleInstance.h"
#include "TestFiles.h"

#include <QLocalSocket>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

class TestUiLaunch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_runtime.isValid() && m_source.isValid());
        m_file = m_source.filePath(QStringLiteral("holiday photo.jpg"));
        QVERIFY(TestFiles::write(m_file, 1000, 1));
    }

    void aSecondInstanceHandsItsFilesOver()
    {
        const QString name = m_runtime.filePath(QStringLiteral("unit.socket"));
        SingleInstance running(name);
        QVERIFY(running.listen());
        QSignalSpy received(&running, &SingleInstance::pathsReceived);
        // sendToRunning() blocks until the running one answers, which needs this thread's event
        // loop: the real launch below runs in a process of its own; here the later launch's side
        // is a plain socket.
        QLocalSocket later;
        later.connectToServer(name);
        QVERIFY(later.waitForConnected(5000));
        later.write(R"({"paths":["/data/a b.txt","/data/c"]})"
                    "\n");
        QVERIFY(received.wait(10000));
        QCOMPARE(received.first().first().toStringList(),
                 (QStringList{QStringLiteral("/data/a b.txt"), QStringLiteral("/data/c")}));
        QTRY_VERIFY(later.canReadLine());
        QCOMPARE(later.readLine(), QByteArray("ok\n")); // only then does the launch end
        // Nobody running: the launch becomes the window.
        QVERIFY(!SingleInstance(m_runtime.filePath(QStringLiteral("nobody.socket")))
                     .sendToRunning({m_file}, 500));
    }

    void staleSocketIsTakenOver()
    {
        const QString name = m_runtime.filePath(QStringLiteral("stale.socket"));
        {
            QFile leftover(name); // a crashed instance's socket file
            QVERIFY(leftover.open(QIODevice::WriteOnly));
        }
        SingleInstance instance(name);
        QString why;
        QVERIFY2(instance.listen(&why), qPrintable(why));
    }

    void launchWithFilesGoesToTheRunningWindow()
    {
        // The test is the running window: it listens where `multilane` looks, in the user's
        // runtime folder.
        SingleInstance running(m_runtime.filePath(QStringLiteral("multilane.socket")));
        QVERIFY(running.listen());
        QSignalSpy received(&running, &SingleInstance::pathsReceived);
        QProcess launch;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_runtime.path());
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        launch.setProcessEnvironment(env);
        launch.setWorkingDirectory(m_source.path());
        // Relative, as a shell passes it: the window gets it absolute.
        launch.start(QStringLiteral(MULTILANE_CLIENT_BIN), {QStringLiteral("holiday photo.jpg")});
        QVERIFY(received.wait(30000));
        QCOMPARE(received.first().first().toStringList(), QStringList{m_file});
        QVERIFY(launch.waitForFinished(30000));
        QCOMPARE(launch.exitCode(), 0);
        QVERIFY2(!launch.readAllStandardError().contains("unknown command"), "the files went to the window");
    }

    void withoutADisplayItSaysWhy()
    {
        QProcess launch;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(QString::fromLatin1(name));
        launch.setProcessEnvironment(env);
        launch.start(QStringLiteral(MULTILANE_CLIENT_BIN), {m_file});
        QVERIFY(launch.waitForFinished(30000));
        QCOMPARE(launch.exitCode(), 2);
        const QByteArray err = launch.readAllStandardError();
        QVERIFY2(err.contains("no display") && err.contains("multilane upload"), err.constData());
        // A mistyped command is still the command line's to explain.
        launch.start(QStringLiteral(MULTILANE_CLIENT_BIN), {QStringLiteral("uplaod")});
        QVERIFY(launch.waitForFinished(30000));
        QVERIFY(launch.readAllStandardError().contains("unknown command 'uplaod'"));
    }

    // The window is a program of its own beside `multilane`; without it (a broken install) the
    // launch says so, and how to upload without a window, instead of failing unexplained.
    void aMissingWindowProgramIsExplained()
    {
        QTemporaryDir alone;
        QVERIFY(alone.isValid());
        const QString copy = alone.filePath(QStringLiteral("multilane"));
        QVERIFY(QFile::copy(QStringLiteral(MULTILANE_CLIENT_BIN), copy));
        QProcess launch;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_runtime.path());
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        launch.setProcessEnvironment(env);
        launch.start(copy, {m_file});
        QVERIFY(launch.waitForFinished(30000));
        QCOMPARE(launch.exitCode(), 2);
        const QByteArray err = launch.readAllStandardError();
        QVERIFY2(err.contains("cannot open the window") && err.contains("multilane-window") &&
                     err.contains("multilane upload"),
                 err.constData());
    }

private:
    QTemporaryDir m_runtime;
    QTemporaryDir m_source;
    QString m_file;
};

QTEST_MAIN(TestUiLaunch)
#include "tst_ui_launch.moc"
