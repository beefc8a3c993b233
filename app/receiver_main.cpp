// multilane-receiver: serves one storage folder on one or more ports until SIGINT/SIGTERM.
// The work is in core/receiver/daemon: ReceiverConfigParser reads the options, ReceiverDaemon runs.
#include "PlainEventLoop.h"
#include "ProcessSignals.h"
#include "ProtocolNames.h"
#include "ProtocolService.h"
#include "ReceiverConfigParser.h"
#include "ReceiverDaemon.h"

#include <QCoreApplication>
#include <cstdio>

using namespace multilane;

namespace {

constexpr int ExitBadInput = 2;

int refuse(const QString &message)
{
    std::fprintf(stderr, "multilane-receiver: %s\n", qPrintable(message));
    return ExitBadInput;
}

} // namespace

int main(int argc, char *argv[])
{
    launch::usePlainEventLoop();
    // Before any thread exists (the store starts a hashing thread, the listeners many more).
    const ProcessSignals signals;
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QLatin1String(Protocol::ServiceName));
    QCoreApplication::setApplicationVersion(ProtocolService::version());

    const auto parsed = ReceiverConfigParser::parse(QCoreApplication::arguments());
    switch (parsed.action) {
    case ReceiverConfigParser::Outcome::Action::ShowHelp:
    case ReceiverConfigParser::Outcome::Action::ShowVersion:
        std::fputs(qPrintable(parsed.text), stdout);
        return 0;
    case ReceiverConfigParser::Outcome::Action::Refuse:
        return refuse(parsed.text);
    case ReceiverConfigParser::Outcome::Action::Run:
        break;
    }

    ReceiverDaemon daemon(parsed.config);
    if (const auto problem = daemon.start())
        return refuse(*problem);
    int received = 0;
    while ((received = signals.wait()) == SIGHUP)
        daemon.reload();
    daemon.stop(received);
    return 0;
}
