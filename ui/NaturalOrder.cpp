#include "NaturalOrder.h"

#include <QCollator>
#include <QLocale>

namespace multilane::NaturalOrder {

bool less(const QString &a, const QString &b)
{
    static const QCollator collator = [] {
        // Qt compares code points in the C locale, numeric mode or not (a C.UTF-8 session, CI):
        // English collation keeps file2 before file10 there too.
        const QLocale locale = QLocale().language() == QLocale::C ? QLocale(QLocale::English) : QLocale();
        QCollator c(locale);
        c.setNumericMode(true);
        c.setCaseSensitivity(Qt::CaseInsensitive);
        return c;
    }();
    return collator.compare(a, b) < 0;
}

} // namespace multilane::NaturalOrder
