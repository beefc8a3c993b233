#include "TunChannel.h"

#include "IpHeader.h"
#include "NamespacePair.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sstream>
#include <sys/ioctl.h>
#include <unistd.h>

namespace multilane::wanemu {

int TunChannel::createDevice(int netnsFd, const std::string &name, std::string &error)
{
    const NetnsScope scope(netnsFd); // the device belongs to the namespace it was made in
    if (!scope.entered()) {
        error = "cannot enter the namespace for " + name;
        return -1;
    }
    const int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error = std::string("/dev/net/tun: ") + std::strerror(errno);
        return -1;
    }
    ifreq request{};
    request.ifr_flags = IFF_TUN | IFF_NO_PI;
    std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
    if (::ioctl(fd, TUNSETIFF, &request) != 0) {
        error = "TUNSETIFF " + name + ": " + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    return fd;
}

TunChannel::TunChannel(int fromFd, int toFd, int fromNetnsFd)
    : m_from(fromFd)
    , m_to(toFd)
    , m_fromNetnsFd(fromNetnsFd)
{}

std::uint32_t TunChannel::takeSlot()
{
    if (m_free.empty()) {
        m_slots.push_back(std::make_unique<Slot>());
        return static_cast<std::uint32_t>(m_slots.size() - 1);
    }
    const std::uint32_t slot = m_free.back();
    m_free.pop_back();
    return slot;
}

std::optional<std::string> TunChannel::receive(std::vector<PacketInfo> &packets, std::size_t limit)
{
    for (std::size_t i = 0; i < limit; ++i) {
        const std::uint32_t index = takeSlot();
        Slot &slot = *m_slots[index];
        const ssize_t size = ::read(m_from, slot.bytes.data(), slot.bytes.size());
        if (size <= 0) {
            m_free.push_back(index);
            if (size < 0 && errno != EAGAIN && errno != EINTR)
                return std::string("TUN read: ") + std::strerror(errno);
            return std::nullopt;
        }
        slot.size = static_cast<std::uint32_t>(size);
        const auto facts = readIpv4(slot.bytes.data(), slot.size);
        if (!facts) {
            ++m_foreign; // IPv6 is off in both namespaces; anything else is not ours to carry
            m_free.push_back(index);
            continue;
        }
        packets.push_back(PacketInfo{index, facts->length, facts->flow});
    }
    return std::nullopt;
}

void TunChannel::release(std::uint64_t token)
{
    const auto index = static_cast<std::uint32_t>(token);
    const Slot &slot = *m_slots[index];
    if (::write(m_to, slot.bytes.data(), slot.size) != static_cast<ssize_t>(slot.size))
        ++m_writeFailures;
    m_free.push_back(index);
}

void TunChannel::drop(std::uint64_t token)
{
    m_free.push_back(static_cast<std::uint32_t>(token));
}

std::string TunChannel::lossesOutsideModel() const
{
    // The kernel drops what the sender's device queue cannot hold while we read too slowly:
    // the "drop" column of its transmit side in /proc/net/dev.
    std::istringstream table(readInNamespace(m_fromNetnsFd, "/proc/thread-self/net/dev"));
    std::string line;
    unsigned long long deviceDrops = 0;
    while (std::getline(table, line)) {
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos || line.substr(0, colon).find("wan0") == std::string::npos)
            continue;
        std::istringstream fields(line.substr(colon + 1));
        unsigned long long value = 0;
        for (int i = 0; i <= 11 && fields >> value; ++i)
            deviceDrops = value; // field 11: transmit drops
    }
    if (m_writeFailures + m_foreign + deviceDrops == 0)
        return {};
    return "device queue full " + std::to_string(deviceDrops) + ", TUN writes failed " +
           std::to_string(m_writeFailures) + ", not IPv4 (dropped) " + std::to_string(m_foreign);
}

} // namespace multilane::wanemu
