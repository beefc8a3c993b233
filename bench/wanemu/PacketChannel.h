#pragma once

#include "DirectionModel.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace multilane::wanemu {

// Where one direction's packets come from and go to. The forwarder reads packets, asks the
// model, and then releases or drops each by its token; flush() ends a round (batched
// verdicts go out then).
class PacketChannel {
public:
    virtual ~PacketChannel() = default;
    virtual int fd() const = 0; // readable when packets wait
    // Appends up to `limit` waiting packets; a message on an error that ends the run.
    virtual std::optional<std::string> receive(std::vector<PacketInfo> &packets, std::size_t limit) = 0;
    virtual void release(std::uint64_t token) = 0;
    virtual void drop(std::uint64_t token) = 0;
    virtual std::optional<std::string> flush() = 0;
    // Packets lost outside the model (the kernel's queue overflowed, a write failed): an
    // honest emulator reports them. Empty when there were none.
    virtual std::string lossesOutsideModel() const = 0;
};

} // namespace multilane::wanemu
