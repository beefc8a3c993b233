#pragma once

#include <optional>
#include <string>
#include <sys/types.h>

namespace multilane::wanemu {

// While alive, the calling thread is in another network namespace: sockets, TUN devices and
// /proc/sys/net files opened meanwhile belong to it.
class NetnsScope {
public:
    explicit NetnsScope(int netnsFd);
    ~NetnsScope();
    NetnsScope(const NetnsScope &) = delete;
    NetnsScope &operator=(const NetnsScope &) = delete;
    bool entered() const { return m_entered; }

private:
    int m_original = -1;
    bool m_entered = false;
};

// The two named namespaces of one wanemu process, "wanemu-PID-client" and
// "wanemu-PID-receiver", so `ip netns exec` reaches them and a later run can tell stale ones
// (their owner is gone) from those of a wanemu still running.
class NamespacePair {
public:
    explicit NamespacePair(pid_t owner);
    ~NamespacePair();
    NamespacePair(const NamespacePair &) = delete;
    NamespacePair &operator=(const NamespacePair &) = delete;

    std::optional<std::string> create();
    // Ends every process still inside (SIGTERM, then SIGKILL after a second) and removes the
    // names, so the namespaces themselves go away. Safe to call when they do not exist.
    void destroy();
    // Removes the namespaces of wanemu processes that no longer run (killed with SIGKILL
    // together with their guardian, or a machine crash).
    static void removeStale();

    const std::string &client() const { return m_client; }
    const std::string &receiver() const { return m_receiver; }
    int clientFd() const { return m_clientFd; }
    int receiverFd() const { return m_receiverFd; }

private:
    std::string m_client;
    std::string m_receiver;
    int m_clientFd = -1;
    int m_receiverFd = -1;
};

// Writes /proc/sys/KEY (dots for slashes) inside the namespace.
std::optional<std::string> writeSysctl(int netnsFd, const std::string &key, const std::string &value);
// Reads a whole small file inside the namespace (/proc/net/... differs per namespace).
std::string readInNamespace(int netnsFd, const std::string &path);

} // namespace multilane::wanemu
