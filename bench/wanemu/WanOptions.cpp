#include "WanOptions.h"

#include "LinkOptions.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

namespace multilane::wanemu {

namespace {

// A leading non-negative number and the unit text after it.
std::optional<std::pair<double, std::string_view>> splitNumber(std::string_view text)
{
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || !std::isfinite(value) || value < 0)
        return std::nullopt;
    return std::pair{value, text.substr(static_cast<std::size_t>(end - text.data()))};
}

std::string formatDuration(Nanoseconds duration)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g ms", static_cast<double>(duration.count()) / 1e6);
    return text;
}

std::string formatQueue(const QueueLimit &queue, double rate)
{
    if (queue.packets > 0)
        return std::to_string(queue.packets) + " packets";
    std::string text = formatDuration(queue.duration);
    if (rate > 0)
        text +=
            " (" +
            std::to_string(static_cast<long long>(rate * static_cast<double>(queue.duration.count()) / 1e9)) +
            " bytes)";
    return text;
}

// Applies one parsed value to the up, the down or both directions.
using DirectionSetter = std::function<bool(DirectionConfig &, std::string_view)>;

template<typename Member, typename Parser>
DirectionSetter setter(Member DirectionConfig::*member, Parser parse)
{
    return [member, parse](DirectionConfig &direction, std::string_view text) {
        const auto value = parse(text);
        if (value)
            direction.*member = static_cast<Member>(*value);
        return value.has_value();
    };
}

std::optional<std::uint32_t> parseOverhead(std::string_view text)
{
    const auto value = splitNumber(text);
    if (!value || !value->second.empty() || value->first > 1000)
        return std::nullopt;
    return static_cast<std::uint32_t>(value->first);
}

struct DirectionOption {
    const char *name; // without the "--", "--up-" or "--down-" prefix
    const char *expects;
    DirectionSetter apply;
};

const std::vector<DirectionOption> &directionOptions()
{
    static const std::vector<DirectionOption> options = {
        {"delay", "a duration such as 50ms", setter(&DirectionConfig::delay, parseDuration)},
        {"rate", "a rate such as 20MB/s or 160Mbit/s (0 = unlimited)",
         setter(&DirectionConfig::rate, linksim::parseRate)},
        {"queue", "a depth such as 50ms or 100p", setter(&DirectionConfig::queue, parseQueueLimit)},
        {"loss", "a probability such as 0.1% or 0.001", setter(&DirectionConfig::loss, parseProbability)},
        {"flow-rate", "a rate such as 2MB/s (0 = no per-flow cap)",
         setter(&DirectionConfig::flowRate, linksim::parseRate)},
        {"flow-queue", "a depth such as 50ms or 100p", setter(&DirectionConfig::flowQueue, parseQueueLimit)},
        {"overhead", "bytes per packet such as 38", setter(&DirectionConfig::overhead, parseOverhead)},
    };
    return options;
}

// "--up-rate" -> the rate option and the up direction only, "--rate" -> both directions.
bool applyDirectionOption(WanOptions &options, std::string_view name, std::string_view value,
                          std::string &error)
{
    std::vector<DirectionConfig *> targets = {&options.up, &options.down};
    if (name.starts_with("up-")) {
        targets = {&options.up};
        name.remove_prefix(3);
    } else if (name.starts_with("down-")) {
        targets = {&options.down};
        name.remove_prefix(5);
    }
    for (const DirectionOption &option : directionOptions()) {
        if (name != option.name)
            continue;
        for (DirectionConfig *target : targets) {
            if (!option.apply(*target, value)) {
                error = std::string("--") + option.name + " needs " + option.expects + ", got '" +
                        std::string(value) + "'";
                return true;
            }
        }
        return true;
    }
    return false;
}

std::optional<Backend> parseBackend(std::string_view text)
{
    if (text == "nfqueue")
        return Backend::Nfqueue;
    if (text == "tun")
        return Backend::Tun;
    return std::nullopt;
}

} // namespace

std::optional<Nanoseconds> parseDuration(std::string_view text)
{
    const auto split = splitNumber(text);
    if (!split)
        return std::nullopt;
    double factor = 0;
    if (split->second.empty() || split->second == "ms")
        factor = 1e6;
    else if (split->second == "s")
        factor = 1e9;
    else if (split->second == "us")
        factor = 1e3;
    else
        return std::nullopt;
    const double nanoseconds = split->first * factor;
    if (nanoseconds > 3600e9)
        return std::nullopt;
    return Nanoseconds(static_cast<std::int64_t>(std::llround(nanoseconds)));
}

std::optional<double> parseProbability(std::string_view text)
{
    const auto split = splitNumber(text);
    if (!split)
        return std::nullopt;
    double value = split->first;
    if (split->second == "%")
        value /= 100;
    else if (!split->second.empty())
        return std::nullopt;
    if (value > 1)
        return std::nullopt;
    return value;
}

std::optional<QueueLimit> parseQueueLimit(std::string_view text)
{
    const auto split = splitNumber(text);
    if (!split)
        return std::nullopt;
    if (split->second == "p" || split->second == "pkt" || split->second == "packets") {
        if (split->first < 1 || split->first != std::floor(split->first))
            return std::nullopt;
        return QueueLimit{static_cast<std::size_t>(split->first), Nanoseconds(0)};
    }
    const auto duration = parseDuration(text);
    if (!duration || duration->count() == 0 || split->second.empty())
        return std::nullopt;
    return QueueLimit{0, *duration};
}

std::string describe(const DirectionConfig &direction)
{
    char loss[32];
    std::snprintf(loss, sizeof loss, "%g %%", direction.loss * 100);
    std::string text =
        "delay " + formatDuration(direction.delay) + ", rate " + linksim::formatRate(direction.rate);
    if (direction.rate > 0)
        text += ", queue " + formatQueue(direction.queue, direction.rate);
    text += std::string(", loss ") + loss + ", per-flow cap " + linksim::formatRate(direction.flowRate);
    if (direction.flowRate > 0)
        text += " (queue " + formatQueue(direction.flowQueue, direction.flowRate) + ")";
    text += ", overhead " + std::to_string(direction.overhead) + " bytes/packet";
    return text;
}

ParsedOptions parseArguments(const std::vector<std::string> &arguments)
{
    ParsedOptions result;
    WanOptions &options = result.options;
    auto fail = [&result](const std::string &message) {
        result.error = message + " (see --help)";
        return result;
    };
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i] == "--help" || arguments[i] == "-h") {
            options.help = true;
            continue;
        }
        if (arguments[i] == "--no-realtime") {
            options.realtime = false;
            continue;
        }
        // Every other option takes a value: "--name=value" or "--name value".
        const std::size_t equals = arguments[i].find('=');
        const std::string name = arguments[i].substr(0, equals);
        if (!name.starts_with("--"))
            return fail("unknown argument '" + arguments[i] + "'");
        if (equals == std::string::npos && i + 1 >= arguments.size())
            return fail(name + " needs a value");
        const std::string value =
            equals != std::string::npos ? arguments[i].substr(equals + 1) : arguments[++i];
        std::string error;
        if (applyDirectionOption(options, std::string_view(name).substr(2), value, error)) {
            if (!error.empty())
                return fail(error);
        } else if (name == "--backend") {
            const auto backend = parseBackend(value);
            if (!backend)
                return fail("--backend needs nfqueue or tun, got '" + value + "'");
            options.backend = *backend;
        } else if (name == "--seed") {
            const auto [end, parseError] =
                std::from_chars(value.data(), value.data() + value.size(), options.seed);
            if (parseError != std::errc() || end != value.data() + value.size())
                return fail("--seed needs a non-negative integer, got '" + value + "'");
            options.seedGiven = true;
        } else if (name == "--tick") {
            const auto tick = parseDuration(value);
            if (!tick || *tick > std::chrono::milliseconds(10))
                return fail("--tick needs a duration up to 10ms such as 100us, got '" + value + "'");
            options.tick = *tick;
        } else if (name == "--sysctl") {
            if (value.find('=') == std::string::npos || value.find('/') != std::string::npos)
                return fail("--sysctl needs KEY=VALUE such as net.ipv4.tcp_congestion_control=cubic, got '" +
                            value + "'");
            options.sysctls.push_back(value);
        } else if (name == "--receiver-run") {
            options.receiverCommands.push_back(value);
        } else if (name == "--client-run") {
            options.clientCommand = value;
        } else {
            return fail("unknown option '" + name + "'");
        }
    }
    return result;
}

std::string usageText()
{
    return R"(Usage: wanemu [options]

Emulates a WAN path for real kernel TCP: two network namespaces (client and receiver) joined
through a user-space packet forwarder that applies, per direction, a one-way delay, a
bottleneck rate with a drop-tail queue, random loss and an optional per-flow rate cap.
Needs root. Prints the namespace names and addresses, then "wanemu ready"; run programs
with `ip netns exec NAME ...` or --client-run/--receiver-run. SIGUSR1 prints the counters
since the last SIGUSR1; SIGINT/SIGTERM (or the death of the process that started it) end it,
print the totals and remove both namespaces.

Path (each applies to both directions; --up-X / --down-X set one direction only):
  --delay D        one-way delay, e.g. 50ms (default 0)
  --rate R         bottleneck rate in wire bytes, e.g. 20MB/s, 160Mbit/s (default unlimited)
  --queue Q        drop-tail queue depth: 50ms (drain time at the rate) or 100p (packets);
                   default 50ms
  --loss P         random loss, e.g. 0.1% (default 0), drawn from --seed
  --flow-rate R    per-flow (5-tuple) shaper in front of the bottleneck (default none)
  --flow-queue Q   the per-flow shaper's queue depth (default 50ms)
  --overhead N     bytes added to each packet's IP length when counting the rate, e.g. 38
                   for Ethernet with preamble and gap (default 0: the rate is of IP bytes)

Other:
  --backend B      tun (default: a TUN device in each namespace, packets copied through
                   wanemu) or nfqueue (a veth pair, packets held in the kernel by NFQUEUE
                   verdicts; needs iptables)
  --seed N         seed of the loss draws (default: from the clock; always printed)
  --tick D         shortest sleep between releases (default 100us)
  --no-realtime    run the forwarder at normal priority; by default it runs SCHED_FIFO
                   (priority 10; the commands it starts do not inherit it) so that other
                   work on the machine delays its packets less
  --sysctl K=V     set in both namespaces after the defaults, e.g.
                   net.ipv4.tcp_congestion_control=cubic (repeatable)
  --receiver-run C run `sh -c C` in the receiver namespace (repeatable; ended at exit)
  --client-run C   run `sh -c C` in the client namespace; its exit ends wanemu, whose exit
                   status is then C's
  --help           this text

Example: a 100 ms round trip, 20 MB/s up with a 50 ms queue and 0.1 % loss:
  wanemu --delay 50ms --up-rate 20MB/s --up-queue 50ms --up-loss 0.1% --seed 7
)";
}

} // namespace multilane::wanemu
