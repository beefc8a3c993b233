#pragma once

#include "AllowedCongestionControl.h"
#include "NamespacePair.h"
#include "PacketChannel.h"
#include "WanOptions.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace multilane::wanemu {

// The emulated path between the two namespaces: the link (a veth pair whose packets wait in
// a netfilter queue, or two TUN devices), the addresses, the TCP sysctls, and one packet
// channel per direction.
class WanPath {
public:
    static constexpr const char *ClientAddress = "10.201.0.1";
    static constexpr const char *ReceiverAddress = "10.201.0.2";
    static constexpr const char *Device = "wan0";

    WanPath(const WanOptions &options, const NamespacePair &namespaces);
    ~WanPath();
    WanPath(const WanPath &) = delete;
    WanPath &operator=(const WanPath &) = delete;

    std::optional<std::string> build();
    PacketChannel &up() { return *m_up; }     // client -> receiver
    PacketChannel &down() { return *m_down; } // receiver -> client
    // "key=value" in the order they were set in both namespaces, and what had to change on the
    // host to allow them.
    const std::vector<std::string> &sysctls() const { return m_sysctls; }
    const std::vector<std::string> &hostChanges() const { return m_hostChanges; }

private:
    std::optional<std::string> applySysctls();
    std::optional<std::string> buildVethWithQueues();
    std::optional<std::string> buildTunPair();
    std::optional<std::string> ip(const std::string &netns, const std::vector<std::string> &arguments);

    const WanOptions &m_options;
    const NamespacePair &m_namespaces;
    std::unique_ptr<PacketChannel> m_up;
    std::unique_ptr<PacketChannel> m_down;
    std::vector<int> m_deviceFds;
    std::vector<std::string> m_sysctls;
    std::vector<std::string> m_hostChanges;
    AllowedCongestionControl m_allowed;
};

} // namespace multilane::wanemu
