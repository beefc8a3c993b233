#pragma once

#include <optional>
#include <string>

namespace multilane::wanemu {

// Outside the initial namespace the kernel lets a namespace's default congestion control be
// only one of net.ipv4.tcp_allowed_congestion_control (a host-wide list; here "reno bbr").
// To make CUBIC the default inside our namespaces, it goes on that list while wanemu runs;
// the list is put back as it was at exit. (The list only says what unprivileged programs may
// pick per socket; a namespace's default, once set, stays.)
class AllowedCongestionControl {
public:
    AllowedCongestionControl() = default;
    ~AllowedCongestionControl();
    AllowedCongestionControl(const AllowedCongestionControl &) = delete;
    AllowedCongestionControl &operator=(const AllowedCongestionControl &) = delete;

    // Adds `name` when it is missing; a message when that is impossible. `changed` tells
    // whether the host's list was touched.
    std::optional<std::string> allow(const std::string &name, bool &changed);

private:
    std::optional<std::string> m_original;
};

} // namespace multilane::wanemu
