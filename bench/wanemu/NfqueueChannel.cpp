#include "NfqueueChannel.h"

#include "IpHeader.h"
#include "NamespacePair.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace multilane::wanemu {

namespace {

constexpr std::size_t MessagesPerRead = 64;
constexpr std::size_t ReadBufferSize = 1024;          // one queued packet's message, 96 bytes copied
constexpr std::uint32_t CopiedBytes = 96;             // IPv4 header with options + the ports
constexpr std::uint32_t KernelQueueLength = 1u << 20; // held packets; the model's queue is the real bound
constexpr int SocketBuffer = 64 * 1024 * 1024;
constexpr std::size_t SendChunk = 32 * 1024; // verdict bytes per sendmsg

// Appends one nfnetlink message (header, nfgenmsg, attributes) to a buffer.
class MessageBuilder {
public:
    MessageBuilder(std::vector<std::uint8_t> &out, std::uint16_t type, std::uint16_t flags,
                   std::uint32_t sequence, std::uint16_t queue)
        : m_out(out)
        , m_start(out.size())
    {
        nlmsghdr header{};
        header.nlmsg_type = static_cast<std::uint16_t>((NFNL_SUBSYS_QUEUE << 8) | type);
        header.nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
        header.nlmsg_seq = sequence;
        append(&header, sizeof header);
        nfgenmsg family{};
        family.nfgen_family = AF_UNSPEC;
        family.version = NFNETLINK_V0;
        family.res_id = htons(queue);
        append(&family, sizeof family);
    }
    ~MessageBuilder()
    {
        const auto length = static_cast<std::uint32_t>(m_out.size() - m_start);
        std::memcpy(m_out.data() + m_start, &length, sizeof length); // nlmsg_len comes first
    }
    void attribute(std::uint16_t type, const void *data, std::size_t size)
    {
        nlattr header{};
        header.nla_len = static_cast<std::uint16_t>(NLA_HDRLEN + size);
        header.nla_type = type;
        append(&header, sizeof header);
        append(data, size);
        m_out.resize(m_start + NLA_ALIGN(m_out.size() - m_start), 0);
    }

private:
    void append(const void *data, std::size_t size)
    {
        const auto *bytes = static_cast<const std::uint8_t *>(data);
        m_out.insert(m_out.end(), bytes, bytes + size);
    }
    std::vector<std::uint8_t> &m_out;
    std::size_t m_start;
};

// The packet id and first bytes of one NFQNL_MSG_PACKET.
struct QueuedPacket {
    std::uint32_t id = 0;
    const std::uint8_t *payload = nullptr;
    std::size_t payloadSize = 0;
};

std::optional<QueuedPacket> parsePacket(const nlmsghdr *message)
{
    if ((message->nlmsg_type & 0xff) != NFQNL_MSG_PACKET ||
        message->nlmsg_len < NLMSG_LENGTH(sizeof(nfgenmsg)))
        return std::nullopt;
    QueuedPacket packet;
    bool haveId = false;
    const auto *cursor =
        static_cast<const std::uint8_t *>(NLMSG_DATA(message)) + NLMSG_ALIGN(sizeof(nfgenmsg));
    const auto *end = reinterpret_cast<const std::uint8_t *>(message) + message->nlmsg_len;
    while (cursor + NLA_HDRLEN <= end) {
        nlattr attribute;
        std::memcpy(&attribute, cursor, sizeof attribute);
        if (attribute.nla_len < NLA_HDRLEN || cursor + attribute.nla_len > end)
            break;
        const std::uint8_t *data = cursor + NLA_HDRLEN;
        const std::size_t size = attribute.nla_len - NLA_HDRLEN;
        const int type = attribute.nla_type & NLA_TYPE_MASK;
        if (type == NFQA_PACKET_HDR && size >= sizeof(std::uint32_t)) {
            std::uint32_t id = 0;
            std::memcpy(&id, data, sizeof id);
            packet.id = ntohl(id);
            haveId = true;
        } else if (type == NFQA_PAYLOAD) {
            packet.payload = data;
            packet.payloadSize = size;
        }
        cursor += NLA_ALIGN(attribute.nla_len);
    }
    if (!haveId)
        return std::nullopt;
    return packet;
}

} // namespace

NfqueueChannel::Opened NfqueueChannel::open(int netnsFd, std::uint16_t number, bool releasesInOrder)
{
    int socket = -1;
    {
        const NetnsScope scope(netnsFd); // a queue belongs to the namespace its socket was made in
        if (!scope.entered())
            return {nullptr, "cannot enter the namespace for the netfilter queue"};
        socket = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
    }
    if (socket < 0)
        return {nullptr, std::string("netlink socket: ") + std::strerror(errno)};
    std::unique_ptr<NfqueueChannel> channel(new NfqueueChannel(socket, netnsFd, number, releasesInOrder));
    if (const auto error = channel->configure())
        return {nullptr, *error};
    return {std::move(channel), {}};
}

NfqueueChannel::NfqueueChannel(int socket, int netnsFd, std::uint16_t number, bool releasesInOrder)
    : m_socket(socket)
    , m_netnsFd(netnsFd)
    , m_number(number)
    , m_releasesInOrder(releasesInOrder)
    , m_incoming(MessagesPerRead * ReadBufferSize)
{}

NfqueueChannel::~NfqueueChannel()
{
    ::close(m_socket);
}

std::optional<std::string> NfqueueChannel::configure()
{
    sockaddr_nl address{};
    address.nl_family = AF_NETLINK;
    if (::bind(m_socket, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0)
        return std::string("netlink bind: ") + std::strerror(errno);
    // Root may go past rmem_max: a burst of queued packets must not overflow the socket.
    ::setsockopt(m_socket, SOL_SOCKET, SO_RCVBUFFORCE, &SocketBuffer, sizeof SocketBuffer);
    const int on = 1;
    ::setsockopt(m_socket, SOL_NETLINK, NETLINK_NO_ENOBUFS, &on, sizeof on);
    const timeval timeout{2, 0};
    ::setsockopt(m_socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);

    std::vector<std::uint8_t> bind;
    {
        MessageBuilder message(bind, NFQNL_MSG_CONFIG, NLM_F_ACK, ++m_sequence, m_number);
        nfqnl_msg_config_cmd command{};
        command.command = NFQNL_CFG_CMD_BIND;
        command.pf = htons(AF_INET);
        message.attribute(NFQA_CFG_CMD, &command, sizeof command);
    }
    if (const auto error = request(std::move(bind)))
        return "binding netfilter queue " + std::to_string(m_number) + ": " + *error;
    std::vector<std::uint8_t> params;
    {
        MessageBuilder message(params, NFQNL_MSG_CONFIG, NLM_F_ACK, ++m_sequence, m_number);
        nfqnl_msg_config_params copy{};
        copy.copy_range = htonl(CopiedBytes);
        copy.copy_mode = NFQNL_COPY_PACKET;
        message.attribute(NFQA_CFG_PARAMS, &copy, sizeof copy);
        const std::uint32_t length = htonl(KernelQueueLength);
        message.attribute(NFQA_CFG_QUEUE_MAXLEN, &length, sizeof length);
    }
    if (const auto error = request(std::move(params)))
        return "configuring netfilter queue " + std::to_string(m_number) + ": " + *error;
    ::fcntl(m_socket, F_SETFL, ::fcntl(m_socket, F_GETFL) | O_NONBLOCK);
    return std::nullopt;
}

// Sends a configuration message and waits for the kernel's acknowledgement.
std::optional<std::string> NfqueueChannel::request(std::vector<std::uint8_t> message)
{
    if (::send(m_socket, message.data(), message.size(), 0) < 0)
        return std::strerror(errno);
    std::uint8_t answer[4096];
    const ssize_t size = ::recv(m_socket, answer, sizeof answer, 0);
    if (size < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(nlmsgerr))))
        return size < 0 ? std::strerror(errno) : "short answer";
    const auto *header = reinterpret_cast<const nlmsghdr *>(answer);
    if (header->nlmsg_type != NLMSG_ERROR)
        return "unexpected answer";
    const auto *error = static_cast<const nlmsgerr *>(NLMSG_DATA(header));
    if (error->error != 0)
        return std::strerror(-error->error);
    return std::nullopt;
}

std::optional<std::string> NfqueueChannel::receive(std::vector<PacketInfo> &packets, std::size_t limit)
{
    mmsghdr messages[MessagesPerRead];
    iovec vectors[MessagesPerRead];
    const std::size_t count = std::min(limit, MessagesPerRead);
    for (std::size_t i = 0; i < count; ++i) {
        vectors[i] = {m_incoming.data() + i * ReadBufferSize, ReadBufferSize};
        messages[i] = {};
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    const int received = ::recvmmsg(m_socket, messages, static_cast<unsigned>(count), MSG_DONTWAIT, nullptr);
    if (received < 0)
        return errno == EAGAIN || errno == EINTR
                   ? std::nullopt
                   : std::optional<std::string>(std::string("netlink receive: ") + std::strerror(errno));
    for (int i = 0; i < received; ++i) {
        auto *header = reinterpret_cast<const nlmsghdr *>(vectors[i].iov_base);
        int remaining = static_cast<int>(messages[i].msg_len);
        for (; NLMSG_OK(header, remaining); header = NLMSG_NEXT(header, remaining)) {
            const auto packet = parsePacket(header);
            if (!packet)
                continue;
            const auto facts = readIpv4(packet->payload, packet->payloadSize);
            if (!facts) {
                ++m_foreign;
                appendVerdict(NFQNL_MSG_VERDICT, packet->id, NF_ACCEPT);
                continue;
            }
            packets.push_back(PacketInfo{packet->id, facts->length, facts->flow});
        }
    }
    return std::nullopt;
}

void NfqueueChannel::appendVerdict(std::uint16_t type, std::uint32_t id, std::uint32_t verdict)
{
    MessageBuilder message(m_outgoing, type, 0, ++m_sequence, m_number);
    nfqnl_msg_verdict_hdr header{};
    header.verdict = htonl(verdict);
    header.id = htonl(id);
    message.attribute(NFQA_VERDICT_HDR, &header, sizeof header);
}

void NfqueueChannel::release(std::uint64_t token)
{
    if (!m_releasesInOrder) {
        appendVerdict(NFQNL_MSG_VERDICT, static_cast<std::uint32_t>(token), NF_ACCEPT);
        return;
    }
    m_batchPending = true;
    m_batchId = static_cast<std::uint32_t>(token);
}

void NfqueueChannel::drop(std::uint64_t token)
{
    // Before this round's batch verdict in the buffer: the batch accepts every packet up to
    // its id that is still queued.
    appendVerdict(NFQNL_MSG_VERDICT, static_cast<std::uint32_t>(token), NF_DROP);
}

std::optional<std::string> NfqueueChannel::flush()
{
    if (m_batchPending) {
        appendVerdict(NFQNL_MSG_VERDICT_BATCH, m_batchId, NF_ACCEPT);
        m_batchPending = false;
    }
    return send();
}

std::optional<std::string> NfqueueChannel::send()
{
    std::size_t sent = 0;
    while (sent < m_outgoing.size()) {
        // Chunks end on message boundaries; every verdict message has the same size.
        std::size_t size = std::min(m_outgoing.size() - sent, SendChunk);
        nlmsghdr first;
        std::memcpy(&first, m_outgoing.data() + sent, sizeof first);
        size -= size % first.nlmsg_len;
        if (::send(m_socket, m_outgoing.data() + sent, size, 0) < 0 && errno != EINTR) {
            m_outgoing.clear();
            return std::string("netlink verdict: ") + std::strerror(errno);
        }
        sent += size;
    }
    m_outgoing.clear();
    return std::nullopt;
}

std::string NfqueueChannel::lossesOutsideModel() const
{
    // queue_number portid queue_total copy_mode copy_range queue_dropped user_dropped id_seq 1
    std::istringstream table(readInNamespace(m_netnsFd, "/proc/thread-self/net/netfilter/nfnetlink_queue"));
    unsigned number = 0, portid = 0, total = 0, mode = 0, range = 0;
    unsigned long long queueDropped = 0, userDropped = 0;
    std::string rest;
    while (table >> number >> portid >> total >> mode >> range >> queueDropped >> userDropped &&
           std::getline(table, rest)) {
        if (number == m_number && queueDropped + userDropped + m_foreign > 0)
            return "kernel queue full " + std::to_string(queueDropped) + ", socket overflow " +
                   std::to_string(userDropped) + ", not IPv4 (passed) " + std::to_string(m_foreign);
    }
    return {};
}

} // namespace multilane::wanemu
