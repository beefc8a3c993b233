#include "ProbeCommand.h"

#include "BandwidthProbe.h"
#include "ByteSize.h"

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
    return QStringLiteral("link: %1 over %2 connections, round trip %3 ms\nchunk size: %4 (%5)")
        .arg(ByteSize::formatRate(estimate.bytesPerSecond))
        .arg(estimate.connections)
        .arg(estimate.rttMs, 0, 'f', 1)
        .arg(ByteSize::format(estimate.chunkSize), estimate.reason);
}

void ProbeCommand::start()
{
    QList<QNetworkAccessManager *> managers;
    for (int i = 0; i < 12; ++i) {
        m_managers.push_back(std::make_unique<QNetworkAccessManager>());
        managers.append(m_managers.back().get());
    }
    m_probe = std::make_unique<BandwidthProbe>(managers, m_request.endpoints, BandwidthProbe::Options{});
    connect(m_probe.get(), &BandwidthProbe::finished, this, [this](const LinkEstimate &estimate) {
        if (m_request.json) {
            m_out.write(
                QJsonDocument(QJsonObject{{QStringLiteral("bytesPerSecond"), qint64(estimate.bytesPerSecond)},
                                          {QStringLiteral("rttMs"), estimate.rttMs},
                                          {QStringLiteral("connections"), estimate.connections},
                                          {QStringLiteral("chunkSize"), estimate.chunkSize},
                                          {QStringLiteral("reason"), estimate.reason}})
                    .toJson(QJsonDocument::Compact) +
                '\n');
        } else {
            m_out.write(describe(estimate).toUtf8() + '\n');
        }
        m_out.flush();
        Q_EMIT finished(0);
    });
    connect(m_probe.get(), &BandwidthProbe::failed, this, [this](const QString &why) {
        m_err.write(QStringLiteral("multilane: cannot measure the link: %1\n").arg(why).toUtf8());
        Q_EMIT finished(1);
    });
    m_probe->start();
}

} // namespace multilane
