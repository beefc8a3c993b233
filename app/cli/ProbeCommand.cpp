#include "ProbeCommand.h"

#include "BandwidthProbe.h"
#include "ByteSize.h"
#include "SpeedTest.h"
#include "TlsTrust.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace multilane {

ProbeCommand::ProbeCommand(const UploadRequest &request, QFile &out, QFile &err, QObject *parent)
    : QObject(parent)
    , m_request(request)
    , m_out(out)
    , m_err(err)
{}

ProbeCommand::~ProbeCommand() = default;

QString ProbeCommand::describe(const LinkEstimate &estimate)
{
    return QStringLiteral("upload: %1 over %2 connections, round trip %3 ms\nchunk size: %4 (%5)")
        .arg(ByteSize::formatRate(estimate.bytesPerSecond))
        .arg(estimate.connections)
        .arg(estimate.rttMs, 0, 'f', 1)
        .arg(ByteSize::format(estimate.chunkSize), estimate.reason);
}

void ProbeCommand::start()
{
    const QList<QNetworkAccessManager *> managers = m_managers.list();
    if (m_request.speedTest) {
        startSpeedTest(managers);
        return;
    }
    m_probe = std::make_unique<BandwidthProbe>(managers, m_request.endpoints, BandwidthProbe::Options{});
    connect(m_probe.get(), &BandwidthProbe::finished, this, &ProbeCommand::measureDownload);
    connect(m_probe.get(), &BandwidthProbe::failed, this, [this](const QString &why) {
        m_err.write(QStringLiteral("multilane: cannot measure the link: %1\n").arg(why).toUtf8());
        Q_EMIT finished(1);
    });
    m_probe->start();
}

void ProbeCommand::measureDownload(const LinkEstimate &upload)
{
    BandwidthProbe::Options options;
    options.direction = BandwidthProbe::Direction::Download;
    m_probe.release()->deleteLater(); // its signal is being delivered
    m_probe = std::make_unique<BandwidthProbe>(m_managers.list(), m_request.endpoints, options);
    connect(m_probe.get(), &BandwidthProbe::finished, this,
            [this, upload](const LinkEstimate &download) { report(upload, download.bytesPerSecond); });
    // The upload figure is the one that counts; a download that cannot be measured is reported as such.
    connect(m_probe.get(), &BandwidthProbe::failed, this, [this, upload] { report(upload, -1); });
    m_probe->start();
}

void ProbeCommand::report(const LinkEstimate &upload, double downloadBytesPerSecond)
{
    if (m_request.json) {
        QJsonObject object{{QStringLiteral("bytesPerSecond"), qint64(upload.bytesPerSecond)},
                           {QStringLiteral("rttMs"), upload.rttMs},
                           {QStringLiteral("connections"), upload.connections},
                           {QStringLiteral("chunkSize"), upload.chunkSize},
                           {QStringLiteral("reason"), upload.reason}};
        if (downloadBytesPerSecond >= 0)
            object.insert(QStringLiteral("downloadBytesPerSecond"), qint64(downloadBytesPerSecond));
        m_out.write(QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n');
    } else {
        const QStringList lines = describe(upload).split(QLatin1Char('\n'));
        m_out.write((lines.constFirst() + QLatin1Char('\n') +
                     QStringLiteral("download: %1\n")
                         .arg(downloadBytesPerSecond >= 0 ? ByteSize::formatRate(downloadBytesPerSecond)
                                                          : QStringLiteral("could not be measured")) +
                     lines.mid(1).join(QLatin1Char('\n')) + QLatin1Char('\n'))
                        .toUtf8());
    }
    m_out.flush();
    Q_EMIT finished(0);
}

void ProbeCommand::startSpeedTest(const QList<QNetworkAccessManager *> &managers)
{
    m_speedTest = std::make_unique<SpeedTest>(managers, m_request.endpoints, SpeedTest::Options{});
    connect(m_speedTest.get(), &SpeedTest::phaseStarted, this, [this](const QString &what) {
        m_err.write(QStringLiteral("testing: %1…\n").arg(what).toUtf8());
        m_err.flush();
    });
    connect(m_speedTest.get(), &SpeedTest::finished, this, [this](const SpeedTest::Result &r) {
        const double ratio = r.singleBytesPerSecond > 0 ? r.multiBytesPerSecond / r.singleBytesPerSecond : 0;
        if (m_request.json) {
            m_out.write(
                QJsonDocument(
                    QJsonObject{{QStringLiteral("singleBytesPerSecond"), qint64(r.singleBytesPerSecond)},
                                {QStringLiteral("multiBytesPerSecond"), qint64(r.multiBytesPerSecond)},
                                {QStringLiteral("connections"), r.connections},
                                {QStringLiteral("ratio"), ratio}})
                    .toJson(QJsonDocument::Compact) +
                '\n');
        } else {
            m_out.write(
                QStringLiteral("one connection:  %1\nmultilane:       %2 (%3 connections over %4 endpoints)\n"
                               "speed-up:        %5x\n")
                    .arg(ByteSize::formatRate(r.singleBytesPerSecond),
                         ByteSize::formatRate(r.multiBytesPerSecond))
                    .arg(r.connections)
                    .arg(m_request.endpoints.size())
                    .arg(ratio, 0, 'f', 1)
                    .toUtf8());
        }
        m_out.flush();
        Q_EMIT finished(0);
    });
    connect(m_speedTest.get(), &SpeedTest::failed, this, [this](const QString &why) {
        m_err.write(QStringLiteral("multilane: the speed test failed: %1\n").arg(why).toUtf8());
        Q_EMIT finished(1);
    });
    m_speedTest->start();
}

} // namespace multilane
