// libjpeg-turbo behind a C interface: JPEG encoding (vwm_jpeg_encode_*) and decoding
// (vwm_jpeg_read_info, vwm_jpeg_decode_ycbcr), for Swift, which cannot survive libjpeg's longjmp.
#ifndef VWM_JPEG_WRITER_H
#define VWM_JPEG_WRITER_H

#include <stddef.h>
#include <stdint.h>

/// JPEG encoding through libjpeg-turbo, wrapped in C because libjpeg reports errors by
/// longjmp, which Swift cannot catch. Each function returns 0 and a malloc'ed file in
/// *out (the caller frees it), or -1 with a message in `error`.

/// Encodes 8-bit planar YCbCr (full range, JPEG's own colour space) without converting it.
/// `chroma_shift_x`/`_y` are log2 of the chroma subsampling (1, 1 for 4:2:0). Planes must be
/// readable for whole 8×8 blocks: the writer replicates edge samples itself, so strides may
/// be any value ≥ the plane's width.
int vwm_jpeg_encode_ycbcr(const uint8_t *const planes[3], const int strides[3], int width, int height,
                          int chroma_shift_x, int chroma_shift_y, int quality,
                          const uint8_t *icc_profile, size_t icc_length,
                          uint8_t **out, size_t *out_length, char *error, size_t error_size);

/// Encodes 8-bit RGBA (alpha ignored) as 4:2:0 YCbCr.
int vwm_jpeg_encode_rgba(const uint8_t *pixels, int stride, int width, int height, int quality,
                         const uint8_t *icc_profile, size_t icc_length,
                         uint8_t **out, size_t *out_length, char *error, size_t error_size);

#endif

#ifndef VWM_JPEG_READER_H
#define VWM_JPEG_READER_H

/// What a JPEG's header says, for `vwm_jpeg_decode_ycbcr`.
struct vwm_jpeg_info {
    int width, height;
    /// log2 of the chroma subsampling; valid only when `is_ycbcr` is set.
    int chroma_shift_x, chroma_shift_y;
    /// Three components in YCbCr whose luma is sampled at most 2:1 over chroma, which
    /// `vwm_jpeg_decode_ycbcr` decodes as they are.
    int is_ycbcr;
    /// The EXIF block (after "Exif\0\0") and the ICC profile, malloc'ed or NULL (the caller frees them).
    uint8_t *exif;
    size_t exif_length;
    uint8_t *icc_profile;
    size_t icc_length;
};

/// Reads the header of the JPEG in `data`. Returns 0, or -1 when libjpeg cannot read it.
int vwm_jpeg_read_info(const uint8_t *data, size_t length, struct vwm_jpeg_info *info);

/// Decodes a JPEG whose info said `is_ycbcr` into three planes of the info's sizes, without
/// upsampling or colour conversion. Returns 0; or -1 on any error or warning (damaged data),
/// when the caller should decode it some other way.
int vwm_jpeg_decode_ycbcr(const uint8_t *data, size_t length, uint8_t *const planes[3], const int strides[3]);

#endif
