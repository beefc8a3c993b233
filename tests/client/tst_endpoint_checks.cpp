// The transfer starts beside the endpoint checks (UploadRun against a real receiver and a server
// that accepts connections and never answers, as a stalled host would): work sent to an endpoint
// whose check has not answered goes elsewhere soon after another endpoint passed its own, not at
// the silent endpoint's check timeout.
#include "Endpoint.h"
#include "ReceiverProcess.h"
#include "TestFiles.h"
#include "TransferScheduler.h"
#include "UploadRun.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

class TestEndpointChecks : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aSilentEndpointHoldsNoWorkUntilItsCheckTimesOut()
    {
        QTemporaryDir storage;
        QTemporaryDir work;
        ReceiverProcess receiver(storage.path());
        QVERIFY2(receiver.start(1), qPrintable(receiver.errorText()));
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost));
        int silentConnections = 0;
        connect(&silent, &QTcpServer::newConnection, &silent, [&] {
            while (QTcpSocket *socket = silent.nextPendingConnection()) {
                ++silentConnections;
                socket->setParent(&silent); // held open, never answered
            }
        });
        QList<SourceFile> files;
        for (int i = 0; i < 8; ++i) {
            const QString path = work.filePath(QStringLiteral("f%1.bin").arg(i));
            QVERIFY(TestFiles::write(path, 200 * 1024, quint32(i)));
            files.append({path, QStringLiteral("checks/f%1.bin").arg(i), 200 * 1024,
                          QFileInfo(path).lastModified().toMSecsSinceEpoch()});
        }
        UploadPlan plan;
        plan.endpoints.append(*EndpointParser::fromUrl(receiver.urls().first().toString()).value);
        plan.endpoints.append(
            *EndpointParser::fromUrl(QStringLiteral("http://127.0.0.1:%1").arg(silent.serverPort())).value);
        UploadRun run(plan, nullptr, nullptr);
        run.addNewFiles(files);
        QSignalSpy checked(&run, &UploadRun::endpointsChecked);
        QSignalSpy finished(&run.scheduler(), &TransferScheduler::finished);
        run.start();
        QVERIFY(finished.wait(60000));
        for (int id = 0; id < run.scheduler().jobCount(); ++id)
            QVERIFY2(run.scheduler().job(id).state() == TransferState::Done,
                     qPrintable(run.scheduler().job(id).error()));
        // Files went to the silent endpoint (beside its check's connection), and came back from it
        // before its check gave up on it.
        QVERIFY2(silentConnections > 1, qPrintable(QString::number(silentConnections)));
        QVERIFY(checked.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestEndpointChecks)
#include "tst_endpoint_checks.moc"
