#include "ProcessSignals.h"

#include <pthread.h>

namespace multilane {

ProcessSignals::ProcessSignals()
{
    sigemptyset(&m_signals);
    sigaddset(&m_signals, SIGINT);
    sigaddset(&m_signals, SIGTERM);
    sigaddset(&m_signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &m_signals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

int ProcessSignals::wait() const
{
    int received = 0;
    return sigwait(&m_signals, &received) == 0 ? received : 0;
}

} // namespace multilane
