#include "NamespacePair.h"

#include "Command.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <regex>
#include <sched.h>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace multilane::wanemu {

namespace {

const char *const NetnsDir = "/run/netns/";

// The pids whose network namespace is the one bound at /run/netns/NAME (what
// `ip netns pids` does: compare the namespace inode of every process).
std::vector<pid_t> pidsInside(const std::string &name)
{
    std::vector<pid_t> pids;
    struct stat target {};
    if (::stat((NetnsDir + name).c_str(), &target) != 0)
        return pids;
    DIR *proc = ::opendir("/proc");
    if (!proc)
        return pids;
    while (const dirent *entry = ::readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
        struct stat ns {};
        if (pid <= 0 || pid == ::getpid())
            continue;
        if (::stat(("/proc/" + std::to_string(pid) + "/ns/net").c_str(), &ns) == 0 &&
            ns.st_ino == target.st_ino && ns.st_dev == target.st_dev)
            pids.push_back(pid);
    }
    ::closedir(proc);
    return pids;
}

void endProcessesInside(const std::string &name)
{
    std::vector<pid_t> pids = pidsInside(name);
    for (const pid_t pid : pids)
        ::kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!pids.empty() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // polling other processes' exit
        pids = pidsInside(name);
    }
    for (const pid_t pid : pids)
        ::kill(pid, SIGKILL);
}

void removeName(const std::string &name)
{
    struct stat ignored {};
    if (::stat((NetnsDir + name).c_str(), &ignored) != 0)
        return;
    endProcessesInside(name);
    runCommand({"ip", "netns", "delete", name}, true);
}

bool isRunningWanemu(pid_t pid)
{
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    return comm && std::getline(comm, name) && name == "wanemu";
}

} // namespace

NetnsScope::NetnsScope(int netnsFd)
{
    m_original = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    m_entered = m_original >= 0 && ::setns(netnsFd, CLONE_NEWNET) == 0;
}

NetnsScope::~NetnsScope()
{
    if (m_entered)
        ::setns(m_original, CLONE_NEWNET);
    if (m_original >= 0)
        ::close(m_original);
}

NamespacePair::NamespacePair(pid_t owner)
    : m_client("wanemu-" + std::to_string(owner) + "-client")
    , m_receiver("wanemu-" + std::to_string(owner) + "-receiver")
{}

NamespacePair::~NamespacePair()
{
    for (const int fd : {m_clientFd, m_receiverFd}) {
        if (fd >= 0)
            ::close(fd);
    }
}

std::optional<std::string> NamespacePair::create()
{
    for (const std::string *name : {&m_client, &m_receiver}) {
        if (runCommand({"ip", "netns", "add", *name}) != 0)
            return "'ip netns add " + *name + "' failed: network namespaces need root and iproute2";
        if (runCommand({"ip", "-n", *name, "link", "set", "lo", "up"}) != 0)
            return "could not bring up lo in " + *name;
    }
    m_clientFd = ::open((NetnsDir + m_client).c_str(), O_RDONLY | O_CLOEXEC);
    m_receiverFd = ::open((NetnsDir + m_receiver).c_str(), O_RDONLY | O_CLOEXEC);
    if (m_clientFd < 0 || m_receiverFd < 0)
        return std::string("cannot open the namespaces in ") + NetnsDir + ": " + std::strerror(errno);
    return std::nullopt;
}

void NamespacePair::destroy()
{
    removeName(m_client);
    removeName(m_receiver);
}

void NamespacePair::removeStale()
{
    static const std::regex pattern("wanemu-([0-9]+)-(client|receiver)");
    DIR *dir = ::opendir(NetnsDir);
    if (!dir)
        return;
    std::vector<std::string> stale;
    while (const dirent *entry = ::readdir(dir)) {
        std::cmatch match;
        if (std::regex_match(entry->d_name, match, pattern) &&
            !isRunningWanemu(static_cast<pid_t>(std::stol(match[1].str()))))
            stale.emplace_back(entry->d_name);
    }
    ::closedir(dir);
    for (const std::string &name : stale) {
        std::fprintf(stderr, "wanemu: removing stale namespace %s (its wanemu is gone)\n", name.c_str());
        removeName(name);
    }
}

std::optional<std::string> writeSysctl(int netnsFd, const std::string &key, const std::string &value)
{
    std::string path = "/proc/sys/" + key;
    std::replace(path.begin() + 10, path.end(), '.', '/');
    const NetnsScope scope(netnsFd);
    std::ofstream file(path);
    if (!scope.entered() || !(file << value << '\n') || !file.flush())
        return "cannot set " + key + " = " + value + " (" + path + ")";
    return std::nullopt;
}

std::string readInNamespace(int netnsFd, const std::string &path)
{
    const NetnsScope scope(netnsFd);
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

} // namespace multilane::wanemu
