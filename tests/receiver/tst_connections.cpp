#include "ReceiverProcess.h"
#include "ServiceHarness.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <memory>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

// Idle and kept-alive connections must not starve others (issue #6): the real receiver on a
// loopback port, flooded with raw TCP connections that send nothing.
class TestConnections : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_storage = std::make_unique<QTemporaryDir>();
        QVERIFY(m_storage->isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage->path());
    }

    void cleanup()
    {
        m_idle.clear();
        m_receiver.reset();
    }

    void idleConnectionsDoNotStarveAPort()
    {
        // 64 idle connections used to hold every thread of a port for 30 s.
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));
        openIdle(150, false);
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(request("GET", "/v1/health").status, 200);
        const QByteArray data = ServiceHarness::testData(3 << 20, 4);
        QCOMPARE(request("PUT", "/v1/files/under/load.bin", data).status, 201);
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    }

    void overTheCapIsAPromptBusy()
    {
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet"), QStringLiteral("--max-connections"),
                                       QStringLiteral("8")}),
                 qPrintable(m_receiver->errorText()));
        openIdle(8, true); // kept alive after one request each: they hold all 8 places
        QElapsedTimer timer;
        timer.start();
        const Reply busy = request("GET", "/v1/health");
        QCOMPARE(busy.status, 503);
        QCOMPARE(busy.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
                 QStringLiteral("busy"));
        QVERIFY(timer.elapsed() < 5000);
        m_idle.clear(); // the places free up as soon as those connections go
        QTRY_COMPARE_WITH_TIMEOUT(request("GET", "/v1/health").status, 200, 30000);
    }

    void idleTimeoutClosesQuietConnections()
    {
        QVERIFY2(m_receiver->start(
                     1, {QStringLiteral("--quiet"), QStringLiteral("--idle-timeout"), QStringLiteral("1s")}),
                 qPrintable(m_receiver->errorText()));
        openIdle(3, true);
        for (const auto &socket : m_idle) {
            if (socket->state() != QAbstractSocket::UnconnectedState)
                QVERIFY(socket->waitForDisconnected(5000));
        }
    }

    void pipelinedRequestsAreAllAnswered()
    {
        // A client may send its next request before the answer to the last one; the receiver
        // reads ahead, so those bytes can already be in its buffer rather than in the socket.
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));
        const QUrl url = m_receiver->urls().constFirst();
        QTcpSocket socket;
        socket.connectToHost(url.host(), quint16(url.port()));
        QVERIFY(socket.waitForConnected(5000));
        const QByteArray body(100 * 1024, 'p');
        socket.write(
            "PUT /v1/discard HTTP/1.1\r\nHost: test\r\nContent-Length: " + QByteArray::number(body.size()) +
            "\r\n\r\n" + body + "GET /v1/health HTTP/1.1\r\nHost: test\r\n\r\n");
        QByteArray answers;
        QElapsedTimer timer;
        timer.start();
        while (answers.count("HTTP/1.1 200") < 2 && timer.elapsed() < 10000 &&
               socket.state() == QAbstractSocket::ConnectedState) {
            if (socket.waitForReadyRead(int(10000 - timer.elapsed())))
                answers += socket.readAll();
        }
        QCOMPARE(answers.count("HTTP/1.1 200"), 2);
    }

    void aContinueGoesOutBeforeTheBody()
    {
        // curl asks with "Expect: 100-continue" before a body of more than a MiB and waits for
        // the interim answer; an answer's head that the receiver holds back for its body must
        // not hold this one. Then the real answer comes as one whole response.
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));
        const QUrl url = m_receiver->urls().constFirst();
        QTcpSocket socket;
        socket.connectToHost(url.host(), quint16(url.port()));
        QVERIFY(socket.waitForConnected(5000));
        const QByteArray body(5000, 'c');
        socket.write("PUT /v1/files/continued.bin HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\n"
                     "Content-Length: " +
                     QByteArray::number(body.size()) + "\r\n\r\n");
        QByteArray interim;
        QElapsedTimer timer;
        timer.start();
        while (!interim.contains("\r\n\r\n") && timer.elapsed() < 10000 && socket.waitForReadyRead(1000))
            interim += socket.readAll();
        QVERIFY2(interim.startsWith("HTTP/1.1 100 Continue\r\n"), interim.constData());
        socket.write(body);
        QByteArray answer = interim.mid(interim.indexOf("\r\n\r\n") + 4);
        while (!answer.contains("\"status\"") && timer.elapsed() < 10000 && socket.waitForReadyRead(1000))
            answer += socket.readAll();
        QVERIFY2(answer.startsWith("HTTP/1.1 201 Created\r\n"), answer.constData());
        QVERIFY2(answer.contains("\"path\":\"continued.bin\""), answer.constData());
    }

    void aBurstOfConnectionsWaitsToBeAccepted()
    {
        // A client opens its connections at once (64 a port by default). While the receiver is
        // not accepting (stopped here, busy in practice), the kernel must hold them: with
        // httplib's backlog of 5 it dropped the other handshakes, which waited a second for the
        // retransmission, and some failed mid-request on a rejected SYN cookie.
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));
        const QUrl url = m_receiver->urls().constFirst();
        const pid_t pid = pid_t(m_receiver->process().processId());
        QCOMPARE(::kill(pid, SIGSTOP), 0);
        bool stopped = true;
        const auto resume = qScopeGuard([&] {
            if (stopped)
                ::kill(pid, SIGCONT);
        });
        constexpr int Burst = 100;
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(quint16(url.port()));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        std::vector<int> fds;
        const auto closeAll = qScopeGuard([&fds] {
            for (const int fd : fds)
                ::close(fd);
        });
        std::vector<pollfd> waiting;
        for (int i = 0; i < Burst; ++i) {
            const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            QVERIFY(fd >= 0);
            fds.push_back(fd);
            waiting.push_back({fd, POLLOUT, 0});
            const int result = ::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address);
            QVERIFY(result == 0 || errno == EINPROGRESS);
        }
        // Loopback handshakes take microseconds; a dropped SYN is sent again only after 1 s.
        int connected = 0;
        QElapsedTimer timer;
        timer.start();
        while (!waiting.empty() && timer.elapsed() < 800) {
            if (::poll(waiting.data(), nfds_t(waiting.size()), int(800 - timer.elapsed())) <= 0)
                break;
            std::erase_if(waiting, [&connected](const pollfd &entry) {
                if (entry.revents == 0)
                    return false;
                int error = 0;
                socklen_t length = sizeof error;
                ::getsockopt(entry.fd, SOL_SOCKET, SO_ERROR, &error, &length);
                connected += error == 0 ? 1 : 0;
                return true;
            });
        }
        QCOMPARE(connected, Burst);
        ::kill(pid, SIGCONT);
        stopped = false;
        QCOMPARE(request("GET", "/v1/health").status, 200);
    }

    void threadsStartAsConnectionsCome()
    {
        // 256 connections allowed a port: a thread for each only once it comes.
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));
        const qint64 pid = m_receiver->process().processId();
        // Counted once a request was answered: the port's threads are there by then.
        QCOMPARE(request("GET", "/v1/health").status, 200);
        const int atStart = threadsOf(pid);
        QVERIFY2(atStart < 64, qPrintable(QString::number(atStart)));
        openIdle(40, true); // one of them takes the thread the request above left free
        QVERIFY2(threadsOf(pid) >= atStart + 39,
                 qPrintable(QStringLiteral("%1 -> %2").arg(atStart).arg(threadsOf(pid))));
    }

    void outOfThreadsNewConnectionsAreTurnedAwayBusy()
    {
        if (!useThreadLimits())
            QSKIP("needs prlimit (and setpriv as root): util-linux");
        // How many threads the receiver starts with, then a limit of three more.
        m_receiver->setLauncher(launcherLimitedTo(1000));
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));
        QCOMPARE(request("GET", "/v1/health").status, 200);
        const int atStart = threadsOf(m_receiver->process().processId());
        m_receiver->kill();
        m_receiver->setLauncher(launcherLimitedTo(atStart + 3));
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));

        // Kept-alive connections, each holding a thread once it has one.
        QList<QByteArray> answers;
        openIdle(8, true, &answers);
        int answered = 0;
        int busy = 0;
        for (qsizetype i = 0; i < answers.size(); ++i) {
            QByteArray answer = answers.at(i);
            answered += answer.startsWith("HTTP/1.1 200 ") ? 1 : 0;
            if (answer.startsWith("HTTP/1.1 503 ")) {
                ++busy;
                // Refused and closed: the answer says why.
                m_idle.at(std::size_t(i))->waitForDisconnected(5000);
                answer += m_idle.at(std::size_t(i))->readAll();
                QVERIFY2(answer.contains("out of threads"), answer.constData());
            }
        }
        QVERIFY2(answered >= 1 && busy >= 1 && answered + busy == 8,
                 qPrintable(QStringLiteral("%1 answered, %2 busy").arg(answered).arg(busy)));
        QCOMPARE(m_receiver->process().state(), QProcess::Running);
        m_idle.clear(); // their threads are free again
        QTRY_COMPARE_WITH_TIMEOUT(request("GET", "/v1/health").status, 200, 30000);
    }

    void aReceiverThatCannotStartItsThreadsSaysSo()
    {
        if (!useThreadLimits())
            QSKIP("needs prlimit (and setpriv as root): util-linux");
        m_receiver->setLauncher(launcherLimitedTo(4));
        QVERIFY(!m_receiver->start(1, {QStringLiteral("--quiet")}));
        QVERIFY2(
            m_receiver->errorText().contains(QStringLiteral("cannot start its 16 threads that answer busy")),
            qPrintable(m_receiver->errorText()));
        QCOMPARE(m_receiver->process().exitStatus(), QProcess::NormalExit); // no abort
    }

private:
    struct Reply {
        int status = 0;
        QJsonObject json;
    };

    Reply request(const QByteArray &method, const QByteArray &path, const QByteArray &body = {})
    {
        const QUrl url = m_receiver->urls().constFirst().resolved(QUrl::fromEncoded(path));
        QNetworkAccessManager network; // a fresh connection each time
        QNetworkReply *reply = network.sendCustomRequest(QNetworkRequest(url), method, body);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(20000))
            return {};
        Reply result{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                     QJsonDocument::fromJson(reply->readAll()).object()};
        delete reply;
        return result;
    }

    // Connections that send nothing (or one request, then nothing) and stay open; with
    // `answers`, what each was first answered.
    void openIdle(int count, bool afterOneRequest, QList<QByteArray> *answers = nullptr)
    {
        const QUrl url = m_receiver->urls().constFirst();
        for (int i = 0; i < count; ++i) {
            auto socket = std::make_unique<QTcpSocket>();
            socket->connectToHost(url.host(), quint16(url.port()));
            QVERIFY(socket->waitForConnected(5000));
            if (afterOneRequest) {
                socket->write("GET /v1/health HTTP/1.1\r\nHost: test\r\n\r\n");
                QVERIFY2(socket->waitForReadyRead(5000), "a connection got no answer");
                const QByteArray answer = socket->readAll();
                if (answers)
                    answers->append(answer);
            }
            m_idle.push_back(std::move(socket));
        }
    }

    static int threadsOf(qint64 pid)
    {
        return int(QDir(QStringLiteral("/proc/%1/task").arg(pid))
                       .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                       .size());
    }

    // A limit on threads binds only where it is not root's (root is exempt): as root, the
    // receiver runs as nobody, in a storage folder nobody may write.
    bool useThreadLimits()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("prlimit")).isEmpty())
            return false;
        if (::geteuid() != 0)
            return true;
        if (QStandardPaths::findExecutable(QStringLiteral("setpriv")).isEmpty())
            return false;
        // nobody must reach the receiver: every folder on its way searchable by others.
        for (QFileInfo step(QStringLiteral(MULTILANE_RECEIVER_BIN)); !step.isRoot();
             step = QFileInfo(step.path())) {
            if (!step.permission(QFileDevice::ExeOther))
                return false;
        }
        return QFile::setPermissions(m_storage->path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                            QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                                            QFileDevice::WriteOther | QFileDevice::ExeOther);
    }

    static QStringList launcherLimitedTo(int threads)
    {
        QStringList launcher{QStringLiteral("prlimit"), QStringLiteral("--nproc=%1").arg(threads)};
        if (::geteuid() == 0)
            launcher += {QStringLiteral("setpriv"), QStringLiteral("--reuid=65534"),
                         QStringLiteral("--regid=65534"), QStringLiteral("--clear-groups")};
        return launcher;
    }

    std::unique_ptr<QTemporaryDir> m_storage;
    std::unique_ptr<ReceiverProcess> m_receiver;
    std::vector<std::unique_ptr<QTcpSocket>> m_idle;
};

QTEST_GUILESS_MAIN(TestConnections)
#include "tst_connections.moc"
