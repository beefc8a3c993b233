#include "Command.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace multilane::wanemu {

namespace {

pid_t start(const std::vector<std::string> &argv, bool quiet, bool dieWithParent)
{
    std::vector<char *> pointers;
    for (const std::string &argument : argv)
        pointers.push_back(const_cast<char *>(argument.c_str()));
    pointers.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid != 0)
        return pid;
    if (dieWithParent) {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent)
            ::_exit(127);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr); // wanemu blocks signals for its signalfd
    if (quiet) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
    }
    ::execvp(pointers[0], pointers.data());
    ::_exit(127);
}

} // namespace

int runCommand(const std::vector<std::string> &argv, bool quiet)
{
    const pid_t pid = start(argv, quiet, true);
    if (pid < 0)
        return -1;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

pid_t spawnCommand(const std::vector<std::string> &argv)
{
    return start(argv, false, true);
}

std::vector<std::string> inNamespace(const std::string &netns, const std::string &shellCommand)
{
    return {"ip", "netns", "exec", netns, "/bin/sh", "-c", shellCommand};
}

} // namespace multilane::wanemu
