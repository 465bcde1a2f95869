// libheif (Debian's libheif-dev 1.15): HEIC/HEIF stills decoded with their irot/imir
// transformations applied and their ICC profile read; the header is found through pkg-config.
#ifndef VIDEOWM_CHEIF_SHIM_H
#define VIDEOWM_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
