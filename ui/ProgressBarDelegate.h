#pragma once

#include <QStyledItemDelegate>

namespace multilane {

// Paints the progress column as the style's own progress bar, from TransferTableModel's
// ProgressRole (0..1000), so it looks native in every theme.
class ProgressBarDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace multilane
