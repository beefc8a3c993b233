#include "AllowedCongestionControl.h"

#include <fstream>
#include <sstream>

namespace multilane::wanemu {

namespace {

const char *const AllowedList = "/proc/sys/net/ipv4/tcp_allowed_congestion_control";
const char *const AvailableList = "/proc/sys/net/ipv4/tcp_available_congestion_control";

std::string readLine(const char *path)
{
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);
    return line;
}

bool contains(const std::string &list, const std::string &name)
{
    std::istringstream words(list);
    std::string word;
    while (words >> word) {
        if (word == name)
            return true;
    }
    return false;
}

} // namespace

AllowedCongestionControl::~AllowedCongestionControl()
{
    if (m_original) {
        std::ofstream file(AllowedList);
        file << *m_original << '\n';
    }
}

std::optional<std::string> AllowedCongestionControl::allow(const std::string &name, bool &changed)
{
    changed = false;
    const std::string allowed = readLine(AllowedList);
    if (contains(allowed, name))
        return std::nullopt;
    if (!contains(readLine(AvailableList), name))
        return "congestion control '" + name + "' is not available in this kernel (" +
               readLine(AvailableList) + ")";
    std::ofstream file(AllowedList);
    if (!(file << allowed << ' ' << name << '\n') || !file.flush())
        return std::string("cannot add '") + name + "' to " + AllowedList;
    if (!m_original)
        m_original = allowed;
    changed = true;
    return std::nullopt;
}

} // namespace multilane::wanemu
