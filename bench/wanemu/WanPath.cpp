#include "WanPath.h"

#include "Command.h"
#include "NfqueueChannel.h"
#include "TunChannel.h"

#include <unistd.h>

namespace multilane::wanemu {

namespace {

// Before the user's --sysctl: no IPv6 chatter on the link (the counters are the test's
// packets only), TCP buffers big enough that the window is not what limits a flow (a
// 100 MB/s x 300 ms path holds 30 MB), and no cached ssthresh from an earlier connection to
// the same address, so each run starts from the same state.
const std::vector<std::string> DefaultSysctls = {
    "net.ipv6.conf.all.disable_ipv6=1",        "net.ipv6.conf.default.disable_ipv6=1",
    "net.ipv4.tcp_rmem=4096 131072 134217728", "net.ipv4.tcp_wmem=4096 16384 134217728",
    "net.ipv4.tcp_no_metrics_save=1",
};

} // namespace

WanPath::WanPath(const WanOptions &options, const NamespacePair &namespaces)
    : m_options(options)
    , m_namespaces(namespaces)
{}

WanPath::~WanPath()
{
    m_up.reset();
    m_down.reset();
    for (const int fd : m_deviceFds)
        ::close(fd);
}

std::optional<std::string> WanPath::ip(const std::string &netns, const std::vector<std::string> &arguments)
{
    std::vector<std::string> command = {"ip", "-n", netns};
    command.insert(command.end(), arguments.begin(), arguments.end());
    if (runCommand(command) != 0) {
        std::string text;
        for (const std::string &part : command)
            text += (text.empty() ? "" : " ") + part;
        return "'" + text + "' failed";
    }
    return std::nullopt;
}

std::optional<std::string> WanPath::applySysctls()
{
    std::vector<std::string> all = DefaultSysctls;
    all.insert(all.end(), m_options.sysctls.begin(), m_options.sysctls.end());
    for (const std::string &setting : all) {
        const std::size_t equals = setting.find('=');
        const std::string key = setting.substr(0, equals);
        const std::string value = setting.substr(equals + 1);
        if (key == "net.ipv4.tcp_congestion_control") {
            bool changed = false;
            if (const auto error = m_allowed.allow(value, changed))
                return error;
            if (changed)
                m_hostChanges.push_back(
                    "net.ipv4.tcp_allowed_congestion_control += " + value +
                    " (restored at exit: a namespace may only default to an allowed one)");
        }
        for (const int fd : {m_namespaces.clientFd(), m_namespaces.receiverFd()}) {
            if (const auto error = writeSysctl(fd, key, value))
                return error;
        }
        m_sysctls.push_back(setting);
    }
    return std::nullopt;
}

std::optional<std::string> WanPath::build()
{
    if (const auto error = applySysctls())
        return error;
    return m_options.backend == Backend::Nfqueue ? buildVethWithQueues() : buildTunPair();
}

// Packets cross the veth at once and wait in a netfilter queue at the receiving side's
// PREROUTING hook (raw table, before conntrack). There the sender's socket no longer owns
// them, so TCP small queues do not see the emulated queue as its own.
std::optional<std::string> WanPath::buildVethWithQueues()
{
    const std::string &client = m_namespaces.client();
    const std::string &receiver = m_namespaces.receiver();
    if (runCommand({"ip", "link", "add", Device, "netns", client, "type", "veth", "peer", "name", Device,
                    "netns", receiver}) != 0)
        return std::string("could not create the veth pair (CONFIG_VETH)");
    for (const auto &[netns, address] :
         {std::pair{client, ClientAddress}, std::pair{receiver, ReceiverAddress}}) {
        if (const auto error = ip(netns, {"addr", "add", std::string(address) + "/24", "dev", Device}))
            return error;
        if (const auto error = ip(netns, {"link", "set", Device, "up"}))
            return error;
    }
    // A batch verdict accepts every packet up to an id; that is right only when packets leave
    // in the order they came, which a per-flow shaper changes.
    auto up = NfqueueChannel::open(m_namespaces.receiverFd(), 0, m_options.up.flowRate == 0);
    if (!up.channel)
        return up.error;
    auto down = NfqueueChannel::open(m_namespaces.clientFd(), 0, m_options.down.flowRate == 0);
    if (!down.channel)
        return down.error;
    m_up = std::move(up.channel);
    m_down = std::move(down.channel);
    for (const std::string &netns : {receiver, client}) {
        const int status = runCommand({"ip", "netns", "exec", netns, "iptables", "-w", "-t", "raw", "-A",
                                       "PREROUTING", "-i", Device, "-j", "NFQUEUE", "--queue-num", "0"});
        if (status != 0)
            return status == 127 ? "iptables is missing (apt-get install iptables), or use --backend tun"
                                 : "iptables could not add the NFQUEUE rule in " + netns;
    }
    return std::nullopt;
}

// Each namespace gets a TUN device; what its kernel sends there, we read, hold, and write
// into the other one.
std::optional<std::string> WanPath::buildTunPair()
{
    std::string error;
    const int clientFd = TunChannel::createDevice(m_namespaces.clientFd(), Device, error);
    if (clientFd < 0)
        return error;
    m_deviceFds.push_back(clientFd);
    const int receiverFd = TunChannel::createDevice(m_namespaces.receiverFd(), Device, error);
    if (receiverFd < 0)
        return error;
    m_deviceFds.push_back(receiverFd);
    const std::pair<std::string, std::pair<const char *, const char *>> sides[] = {
        {m_namespaces.client(), {ClientAddress, ReceiverAddress}},
        {m_namespaces.receiver(), {ReceiverAddress, ClientAddress}}};
    for (const auto &[netns, addresses] : sides) {
        if (const auto failure =
                ip(netns, {"addr", "add", addresses.first, "peer", addresses.second, "dev", Device}))
            return failure;
        if (const auto failure = ip(netns, {"link", "set", Device, "up", "txqueuelen", "10000"}))
            return failure;
    }
    m_up = std::make_unique<TunChannel>(clientFd, receiverFd, m_namespaces.clientFd());
    m_down = std::make_unique<TunChannel>(receiverFd, clientFd, m_namespaces.receiverFd());
    return std::nullopt;
}

} // namespace multilane::wanemu
