#include "DropZone.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QMimeData>
#include <QUrl>

namespace multilane {

DropZone::DropZone(QWidget *parent)
    : QFrame(parent)
{
    setAcceptDrops(true);
    setFrameShape(QFrame::StyledPanel);
    setFrameShadow(QFrame::Plain);
    setAccessibleName(tr("Drop zone"));
    setAccessibleDescription(tr("Drop files or folders here to upload them"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(16, 10, 16, 10);
    auto *icon = new QLabel(this);
    icon->setPixmap(QIcon(QStringLiteral(":/multilane/drop.svg")).pixmap(32, 32));
    m_text = new QLabel(tr("Drop files or folders here to upload them — folders keep their tree"), this);
    layout->addStretch();
    layout->addWidget(icon);
    layout->addWidget(m_text);
    layout->addStretch();
    setHighlighted(false);
}

QStringList DropZone::localPaths(const QMimeData *mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    for (const QUrl &url : mime->urls()) {
        if (url.isLocalFile())
            paths.append(url.toLocalFile());
    }
    return paths;
}

void DropZone::dragEnterEvent(QDragEnterEvent *event)
{
    if (localPaths(event->mimeData()).isEmpty())
        return;
    event->acceptProposedAction();
    setHighlighted(true);
}

void DropZone::dragLeaveEvent(QDragLeaveEvent *event)
{
    QFrame::dragLeaveEvent(event);
    setHighlighted(false);
}

void DropZone::dropEvent(QDropEvent *event)
{
    setHighlighted(false);
    const QStringList paths = localPaths(event->mimeData());
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    Q_EMIT pathsDropped(paths);
}

void DropZone::setHighlighted(bool on)
{
    // A dashed frame at rest, the highlight colour while a drag hovers: the target is obvious.
    setStyleSheet(
        on ? QStringLiteral("multilane--DropZone { border: 2px solid palette(highlight); border-radius: 6px;"
                            " background: palette(alternate-base); }")
           : QStringLiteral("multilane--DropZone { border: 2px dashed palette(mid); border-radius: 6px; }"));
}

} // namespace multilane
