// Tesseract's C API (Debian's libtesseract-dev 5.3): `trace` reads the text of a mark in a still
// picture with it. Only the C API is used (the C++ one would need C++ interoperability); pictures
// are handed over as 8-bit grey bytes, so no Leptonica call is needed. The header is found
// through pkg-config ("tesseract").
#ifndef VIDEOWM_CTESSERACT_SHIM_H
#define VIDEOWM_CTESSERACT_SHIM_H
#include <tesseract/capi.h>
#endif
