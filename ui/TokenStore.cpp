#include "TokenStore.h"

namespace multilane {

void TokenStore::fillTokens(QList<EndpointEntry> &entries)
{
    for (EndpointEntry &entry : entries) {
        if (entry.endpoint.token.isEmpty())
            entry.endpoint.token = read(entry.endpoint.url.toString());
    }
}

std::optional<QString> TokenStore::storeTokens(const QList<EndpointEntry> &entries)
{
    std::optional<QString> firstProblem;
    for (const EndpointEntry &entry : entries) {
        const std::optional<QString> problem = write(entry.endpoint.url.toString(), entry.endpoint.token);
        if (problem && !firstProblem)
            firstProblem = problem;
    }
    return firstProblem;
}

} // namespace multilane
