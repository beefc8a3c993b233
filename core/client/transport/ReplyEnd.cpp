#include "ReplyEnd.h"

#include <QCoreApplication>
#include <QEvent>
#include <QNetworkReply>

namespace multilane::ReplyEnd {

void release(QNetworkReply *reply)
{
    // The events posted to a reply are the HTTP thread's queued calls; once it has finished none
    // of them concerns us. Any posted after this one lands behind the deletion and goes with it.
    QCoreApplication::removePostedEvents(reply, QEvent::MetaCall);
    reply->deleteLater();
}

void abortIfRunning(QNetworkReply &reply)
{
    if (reply.isRunning() && reply.error() == QNetworkReply::NoError)
        reply.abort();
}

} // namespace multilane::ReplyEnd
