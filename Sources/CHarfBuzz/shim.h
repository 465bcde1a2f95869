#ifndef VIDEOWM_CHARFBUZZ_SHIM_H
#define VIDEOWM_CHARFBUZZ_SHIM_H
// Only HarfBuzz's core API: faces are made from font files (not from FreeType faces), so
// shaping uses HarfBuzz's own unhinted OpenType metrics at the font's design units.
#include <hb.h>
#endif
