#pragma once

#include <csignal>

namespace multilane {

// The signals the receiver acts on: SIGINT and SIGTERM stop it, SIGHUP reloads (the access log
// after logrotate, the TLS certificate after a renewal). They are blocked in every thread and
// taken one at a time by wait(), so no handler runs in the middle of a request. Make this object
// before any thread exists: threads inherit the blocked set from the one that starts them.
class ProcessSignals {
public:
    ProcessSignals(); // also ignores SIGPIPE: a client that went away is a failed write, not a death
    ProcessSignals(const ProcessSignals &) = delete;
    ProcessSignals &operator=(const ProcessSignals &) = delete;

    // Waits for the next of them; 0 when waiting failed (treated like a stop).
    int wait() const;

private:
    sigset_t m_signals;
};

} // namespace multilane
