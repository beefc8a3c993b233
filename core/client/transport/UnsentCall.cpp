#include "UnsentCall.h"

#include <QTimer>

namespace multilane {

UnsentCall::UnsentCall(const QString &why)
{
    m_result.networkError = why;
    m_result.unreadableBody = why;
    QTimer::singleShot(0, this, [this] { finish(); });
}

void UnsentCall::finish()
{
    if (m_done)
        return;
    m_done = true;
    Q_EMIT finished();
}

} // namespace multilane
