#pragma once

#include "PacketChannel.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace multilane::wanemu {

// One direction between two TUN devices: packets read from the sender's device are copied
// into a slot, held there, and written to the other device when released.
class TunChannel : public PacketChannel {
public:
    // Creates TUN device `name` inside the namespace; returns its fd or -1 (message in error).
    static int createDevice(int netnsFd, const std::string &name, std::string &error);
    // Reads from one device and writes to the other; fromNetnsFd is where the first lives.
    TunChannel(int fromFd, int toFd, int fromNetnsFd);

    int fd() const override { return m_from; }
    std::optional<std::string> receive(std::vector<PacketInfo> &packets, std::size_t limit) override;
    void release(std::uint64_t token) override;
    void drop(std::uint64_t token) override;
    std::optional<std::string> flush() override { return std::nullopt; }
    std::string lossesOutsideModel() const override;

private:
    struct Slot {
        std::array<std::uint8_t, 2048> bytes;
        std::uint32_t size;
    };
    std::uint32_t takeSlot();

    int m_from;
    int m_to;
    int m_fromNetnsFd;
    std::vector<std::unique_ptr<Slot>> m_slots;
    std::vector<std::uint32_t> m_free;
    std::uint64_t m_writeFailures = 0;
    std::uint64_t m_foreign = 0;
};

} // namespace multilane::wanemu
