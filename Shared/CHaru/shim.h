// libharu (zlib/libpng licence): lays out the pages of forms that have no official blank here.
// Debian's libhpdf-dev ships no pkg-config file, so the module links "hpdf" by name.
#include <hpdf.h>
