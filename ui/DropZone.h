#pragma once

#include <QFrame>
#include <QStringList>

class QLabel;
class QMimeData;

namespace multilane {

// The area that takes files and folders dropped from a file manager (text/uri-list) and says
// so while something is dragged over it.
class DropZone : public QFrame {
    Q_OBJECT
public:
    explicit DropZone(QWidget *parent = nullptr);

    // Local paths in a drop's URLs; remote URLs (a browser's links) are left out.
    static QStringList localPaths(const QMimeData *mime);

Q_SIGNALS:
    void pathsDropped(const QStringList &paths);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void setHighlighted(bool on);

    QLabel *m_text;
};

} // namespace multilane
