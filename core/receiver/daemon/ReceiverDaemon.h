#pragma once

#include "ReceiverConfig.h"

#include <QString>
#include <memory>
#include <optional>

namespace multilane {

class AccessLog;
class HttpFrontEnd;
class PeriodicTask;
class ProtocolService;
class ReceiverMetrics;
class UploadStore;

// multilane-receiver once its configuration is read: the storage, the service, the listeners, the
// logs and the expiry sweep, put together in the right order and taken apart in the reverse one.
// It prints the listening addresses on stdout (scripts and tests wait for those lines) and logs
// on stderr; it does not touch signals (see ProcessSignals).
class ReceiverDaemon {
public:
    explicit ReceiverDaemon(ReceiverConfig config);
    ~ReceiverDaemon(); // stops
    ReceiverDaemon(const ReceiverDaemon &) = delete;
    ReceiverDaemon &operator=(const ReceiverDaemon &) = delete;

    // Opens the logs, prepares the storage folder, starts listening and sweeping. On failure
    // nothing is left running and the message says what to do (the process exits 2).
    std::optional<QString> start();
    // After SIGHUP: reopens an access log file, reads the TLS certificate and key again.
    void reload();
    // Logs why it stops and what it counted, then stops listening once running requests ended.
    void stop(int signal);

private:
    std::optional<QString> openAccessLog();
    void announce() const;
    void startSweeping();

    const ReceiverConfig m_config;
    std::unique_ptr<AccessLog> m_accessLogFile;
    AccessLog *m_accessLog = nullptr;     // the file, stderr, or none
    std::unique_ptr<UploadStore> m_store; // the one place that picks a store: LocalFolderStore
    std::unique_ptr<ProtocolService> m_service;
    std::unique_ptr<ReceiverMetrics> m_metrics;
    std::unique_ptr<HttpFrontEnd> m_frontEnd;
    std::unique_ptr<PeriodicTask> m_sweeper;
};

} // namespace multilane
