#pragma once

#include "PacketChannel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace multilane::wanemu {

// One direction through a netfilter queue: the kernel keeps the packets and hands user space
// their first bytes; a verdict (accept or drop) per packet releases them. Held packets cost
// no copy. When the model releases packets in arrival order (no per-flow shaper), one batch
// verdict accepts them all.
class NfqueueChannel : public PacketChannel {
public:
    struct Opened {
        std::unique_ptr<NfqueueChannel> channel;
        std::string error;
    };
    // Binds queue `number` inside the namespace, before any rule sends packets to it.
    static Opened open(int netnsFd, std::uint16_t number, bool releasesInOrder);
    ~NfqueueChannel() override;

    int fd() const override { return m_socket; }
    std::optional<std::string> receive(std::vector<PacketInfo> &packets, std::size_t limit) override;
    void release(std::uint64_t token) override;
    void drop(std::uint64_t token) override;
    std::optional<std::string> flush() override;
    std::string lossesOutsideModel() const override;

private:
    NfqueueChannel(int socket, int netnsFd, std::uint16_t number, bool releasesInOrder);
    std::optional<std::string> configure();
    std::optional<std::string> request(std::vector<std::uint8_t> message);
    void appendVerdict(std::uint16_t type, std::uint32_t id, std::uint32_t verdict);
    std::optional<std::string> send();

    int m_socket = -1;
    int m_netnsFd = -1;
    std::uint16_t m_number = 0;
    bool m_releasesInOrder = false;
    std::uint32_t m_sequence = 0;
    bool m_batchPending = false;
    std::uint32_t m_batchId = 0;
    std::vector<std::uint8_t> m_outgoing; // verdict messages of this round
    std::vector<std::uint8_t> m_incoming;
    std::uint64_t m_foreign = 0; // not IPv4: accepted untouched
};

} // namespace multilane::wanemu
