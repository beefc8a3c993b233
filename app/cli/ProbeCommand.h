#pragma once

#include "CommandLine.h"
#include "NetworkManagers.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QObject>
#include <memory>

namespace multilane {

class BandwidthProbe;
class SpeedTest;
struct LinkEstimate;

// `multilane probe`: measures the upload bandwidth and round trip to the endpoints and prints them
// with the chunk size they call for, and why; then the download bandwidth, for comparison (most
// links are asymmetric). `multilane speedtest`: one connection against many.
// Emits finished(exitCode): 0 measured, 1 it could not.
class ProbeCommand : public QObject {
    Q_OBJECT
public:
    ProbeCommand(const UploadRequest &request, QFile &out, QFile &err, QObject *parent = nullptr);
    ~ProbeCommand() override;

    void start();
    static QString describe(const LinkEstimate &estimate);

Q_SIGNALS:
    void finished(int exitCode);

private:
    UploadRequest m_request;
    QFile &m_out;
    QFile &m_err;
    NetworkManagers m_managers;
    void startSpeedTest(const QList<QNetworkAccessManager *> &managers);
    void measureDownload(const LinkEstimate &upload);
    void report(const LinkEstimate &upload, double downloadBytesPerSecond);

    std::unique_ptr<BandwidthProbe> m_probe;
    std::unique_ptr<SpeedTest> m_speedTest;
};

} // namespace multilane
