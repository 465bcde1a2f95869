#ifndef VIDEOWM_CWEBP_SHIM_H
#define VIDEOWM_CWEBP_SHIM_H
// libwebp's demux API, for animated WebP logos: FFmpeg 5.1's WebP decoder reads only still
// images. WebPAnimDecoderOptionsInit and WebPAnimDecoderNew are static inline functions in
// the header (they pass the ABI version), which Swift imports as they are.
#include <webp/decode.h>
#include <webp/demux.h>
#endif
