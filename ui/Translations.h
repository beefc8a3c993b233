#pragma once

namespace multilane::Translations {

// Loads the window's translations into the application: English plural forms ("1 file",
// "2 files") first, so `%n` strings read right in English, then the user's language where one
// exists. Safe to call more than once.
void install();

} // namespace multilane::Translations
