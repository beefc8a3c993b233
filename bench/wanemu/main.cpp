// wanemu: a packet-level WAN emulator for real kernel TCP (delay, bottleneck rate with a
// drop-tail queue, random loss, per-flow caps) between two network namespaces, since this
// kernel has no netem.
#include "Command.h"
#include "Forwarder.h"
#include "NamespacePair.h"
#include "WanOptions.h"
#include "WanPath.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace multilane::wanemu;

namespace {

// A child that outlives a wanemu killed by SIGKILL or a crash: when the pipe from its parent
// reaches end-of-file it removes the namespaces. Terminal and job-control signals do not
// reach it, so Ctrl-C ends wanemu, which cleans up itself.
pid_t startGuardian(pid_t owner, int &writeEnd)
{
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0)
        return -1;
    const pid_t pid = ::fork();
    if (pid != 0) {
        ::close(pipeFds[0]);
        writeEnd = pipeFds[1];
        return pid;
    }
    ::close(pipeFds[1]);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGPIPE, SIGQUIT})
        std::signal(signal, SIG_IGN);
    ::prctl(PR_SET_NAME, "wanemu-guard");
    std::freopen("/dev/null", "w", stdout);
    char ignored;
    while (::read(pipeFds[0], &ignored, 1) != 0 && errno == EINTR) {
    }
    NamespacePair(owner).destroy();
    ::_exit(0);
}

// Packets leave late when the forwarder waits for a CPU; builds and tests share this
// machine. Children (the commands, `ip`) go back to normal scheduling.
bool enterRealtime()
{
    sched_param parameters{};
    parameters.sched_priority = 10;
    return ::sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &parameters) == 0;
}

std::uint64_t splitmix(std::uint64_t value)
{
    value += 0x9e3779b97f4a7c15ULL;
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return value ^ (value >> 31);
}

void printPath(const WanOptions &options, const WanPath &path, const NamespacePair &namespaces)
{
    std::printf("wanemu seed %llu\n", static_cast<unsigned long long>(options.seed));
    std::printf("wanemu backend %s%s\n", options.backend == Backend::Nfqueue ? "nfqueue" : "tun",
                options.realtime ? ", SCHED_FIFO" : "");
    std::printf("wanemu up (client -> receiver): %s\n", describe(options.up).c_str());
    std::printf("wanemu down (receiver -> client): %s\n", describe(options.down).c_str());
    for (const std::string &setting : path.sysctls())
        std::printf("wanemu sysctl %s (both namespaces)\n", setting.c_str());
    for (const std::string &change : path.hostChanges())
        std::printf("wanemu host sysctl %s\n", change.c_str());
    std::printf("wanemu client netns %s address %s dev %s\n", namespaces.client().c_str(),
                WanPath::ClientAddress, WanPath::Device);
    std::printf("wanemu receiver netns %s address %s dev %s\n", namespaces.receiver().c_str(),
                WanPath::ReceiverAddress, WanPath::Device);
    std::printf("wanemu ready\n");
    std::fflush(stdout);
}

// Runs the forwarder with the commands asked for; returns wanemu's exit status.
int forward(const WanOptions &options, WanPath &path, const NamespacePair &namespaces, int signalFd)
{
    std::vector<pid_t> receivers;
    for (const std::string &command : options.receiverCommands)
        receivers.push_back(spawnCommand(inNamespace(namespaces.receiver(), command)));
    const pid_t client = options.clientCommand.empty()
                             ? -1
                             : spawnCommand(inNamespace(namespaces.client(), options.clientCommand));
    int status = 0;
    Forwarder forwarder({"up", DirectionModel(options.up, splitmix(options.seed)), path.up()},
                        {"down", DirectionModel(options.down, splitmix(options.seed ^ 0xd0d0)), path.down()},
                        options.tick, signalFd, [&](int signal) {
                            if (signal == SIGUSR1) {
                                forwarder.printCounters(stdout, false);
                                return true;
                            }
                            if (signal != SIGCHLD)
                                return false;
                            int childStatus = 0;
                            while (const pid_t done = ::waitpid(-1, &childStatus, WNOHANG)) {
                                if (done < 0)
                                    break;
                                if (done == client) {
                                    status = WIFEXITED(childStatus) ? WEXITSTATUS(childStatus) : 128;
                                    return false;
                                }
                            }
                            return true;
                        });
    if (const auto error = forwarder.run()) {
        std::fprintf(stderr, "wanemu: %s\n", error->c_str());
        status = 1;
    }
    forwarder.printCounters(stdout, true);
    for (const pid_t pid : receivers) {
        if (pid > 0)
            ::kill(pid, SIGTERM);
    }
    return status;
}

} // namespace

int main(int argc, char *argv[])
{
    ParsedOptions parsed = parseArguments(std::vector<std::string>(argv + 1, argv + argc));
    if (!parsed.error.empty()) {
        std::fprintf(stderr, "wanemu: %s\n", parsed.error.c_str());
        return 2;
    }
    WanOptions &options = parsed.options;
    if (options.help) {
        std::fputs(usageText().c_str(), stdout);
        return 0;
    }
    if (::geteuid() != 0) {
        std::fprintf(stderr, "wanemu: needs root (network namespaces, netfilter queues, TUN devices)\n");
        return 1;
    }
    if (!options.seedGiven)
        options.seed = std::random_device()() % 1000000;
    // The test or script that started us may die without a word: its death ends us too.
    const pid_t parent = ::getppid();
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent)
        return 1;

    sigset_t signals;
    sigemptyset(&signals);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGCHLD})
        sigaddset(&signals, signal);
    ::sigprocmask(SIG_BLOCK, &signals, nullptr);
    const int signalFd = ::signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC);
    std::signal(SIGPIPE, SIG_IGN);

    NamespacePair::removeStale();
    int guardianPipe = -1;
    const pid_t guardian = startGuardian(::getpid(), guardianPipe);
    NamespacePair namespaces(::getpid());
    int status = 1;
    if (const auto error = namespaces.create()) {
        std::fprintf(stderr, "wanemu: %s\n", error->c_str());
    } else {
        WanPath path(options, namespaces);
        if (const auto failure = path.build()) {
            std::fprintf(stderr, "wanemu: %s\n", failure->c_str());
        } else {
            if (options.realtime && !enterRealtime()) {
                std::fprintf(stderr, "wanemu: could not get SCHED_FIFO, running at normal priority\n");
                options.realtime = false;
            }
            printPath(options, path, namespaces);
            status = forward(options, path, namespaces, signalFd);
        }
    }
    namespaces.destroy();
    ::close(guardianPipe);
    if (guardian > 0)
        ::waitpid(guardian, nullptr, 0);
    return status;
}
