#pragma once

#include <QString>

namespace multilane::NaturalOrder {

// Names in the order a file manager shows them: numbers compare as numbers (file2 before
// file10), case aside, by the user's locale (QCollator in numeric mode).
bool less(const QString &a, const QString &b);

} // namespace multilane::NaturalOrder
