#include "jpeg_writer.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

// libjpeg's default error handler exits the process; this one jumps back with the message.
struct failure {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *error;
    size_t error_size;
};

static void fail(j_common_ptr cinfo) {
    struct failure *f = (struct failure *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    if (f->error && f->error_size) snprintf(f->error, f->error_size, "%s", message);
    longjmp(f->jump, 1);
}

static void ignore_warning(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

// Settings shared by both inputs: libjpeg's quality tables (what ImageMagick and every
// libjpeg tool mean by quality), Huffman tables fitted to the image, the accurate DCT.
static void apply_settings(j_compress_ptr cinfo, int quality) {
    jpeg_set_quality(cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    cinfo->optimize_coding = TRUE;
    cinfo->dct_method = JDCT_ISLOW;
}

static void write_profile(j_compress_ptr cinfo, const uint8_t *icc, size_t length) {
    if (icc && length) jpeg_write_icc_profile(cinfo, icc, (unsigned int)length);
}

// What an encode allocates. It lives on the heap because locals changed between setjmp and
// longjmp are indeterminate afterwards; the pointer to it is set before setjmp.
struct output {
    unsigned char *buffer;
    unsigned long size;
    JSAMPLE *band[3];
};

// Hands the file to the caller on success; frees everything.
static int finish(struct output *o, int result, uint8_t **out, size_t *out_length) {
    if (result == 0) {
        *out = o->buffer;
        *out_length = o->size;
    } else {
        free(o->buffer);
    }
    for (int c = 0; c < 3; c++) free(o->band[c]);
    free(o);
    return result;
}

int vwm_jpeg_encode_ycbcr(const uint8_t *const planes[3], const int strides[3], int width, int height,
                          int chroma_shift_x, int chroma_shift_y, int quality,
                          const uint8_t *icc_profile, size_t icc_length,
                          uint8_t **out, size_t *out_length, char *error, size_t error_size) {
    struct jpeg_compress_struct cinfo;
    struct failure f = { .error = error, .error_size = error_size };
    struct output *o = calloc(1, sizeof *o);
    if (!o) return -1;

    // Raw input is taken one band of whole 8×8 blocks at a time (16 luma rows for 4:2:0).
    // Columns and rows past the picture must repeat its edge, as libjpeg does for normal
    // input, so each band is copied into a buffer wide enough for whole blocks of every MCU
    // (the plane's width rounded up to 16 covers them for any subsampling up to 2).
    int band_rows[3], padded_width[3], plane_width[3], plane_height[3];
    for (int c = 0; c < 3; c++) {
        int shift_x = c == 0 ? 0 : chroma_shift_x, shift_y = c == 0 ? 0 : chroma_shift_y;
        plane_width[c] = (width + (1 << shift_x) - 1) >> shift_x;
        plane_height[c] = (height + (1 << shift_y) - 1) >> shift_y;
        padded_width[c] = (plane_width[c] + 15) & ~15;
        band_rows[c] = (c == 0 ? 1 << chroma_shift_y : 1) * DCTSIZE;
        o->band[c] = malloc((size_t)padded_width[c] * (size_t)band_rows[c]);
        if (!o->band[c]) {
            if (error && error_size) snprintf(error, error_size, "out of memory");
            return finish(o, -1, out, out_length);
        }
    }

    cinfo.err = jpeg_std_error(&f.manager);
    f.manager.error_exit = fail;
    f.manager.emit_message = ignore_warning;
    if (setjmp(f.jump)) {
        jpeg_destroy_compress(&cinfo);
        return finish(o, -1, out, out_length);
    }

    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &o->buffer, &o->size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_YCbCr;
    jpeg_set_defaults(&cinfo);
    jpeg_set_colorspace(&cinfo, JCS_YCbCr);
    apply_settings(&cinfo, quality);
    cinfo.raw_data_in = TRUE;
    cinfo.comp_info[0].h_samp_factor = 1 << chroma_shift_x;
    cinfo.comp_info[0].v_samp_factor = 1 << chroma_shift_y;
    for (int c = 1; c < 3; c++) cinfo.comp_info[c].h_samp_factor = cinfo.comp_info[c].v_samp_factor = 1;
    jpeg_start_compress(&cinfo, TRUE);
    write_profile(&cinfo, icc_profile, icc_length);

    JSAMPROW rows[3][2 * DCTSIZE];
    JSAMPARRAY arrays[3] = { rows[0], rows[1], rows[2] };
    while (cinfo.next_scanline < cinfo.image_height) {
        int luma_row = (int)cinfo.next_scanline;
        for (int c = 0; c < 3; c++) {
            int first = c == 0 ? luma_row : luma_row >> chroma_shift_y;
            for (int r = 0; r < band_rows[c]; r++) {
                int source_row = first + r < plane_height[c] ? first + r : plane_height[c] - 1;
                const uint8_t *src = planes[c] + (size_t)source_row * (size_t)strides[c];
                JSAMPLE *dst = o->band[c] + (size_t)r * (size_t)padded_width[c];
                memcpy(dst, src, (size_t)plane_width[c]);
                memset(dst + plane_width[c], src[plane_width[c] - 1], (size_t)(padded_width[c] - plane_width[c]));
                rows[c][r] = dst;
            }
        }
        jpeg_write_raw_data(&cinfo, arrays, (JDIMENSION)band_rows[0]);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return finish(o, 0, out, out_length);
}

int vwm_jpeg_encode_rgba(const uint8_t *pixels, int stride, int width, int height, int quality,
                         const uint8_t *icc_profile, size_t icc_length,
                         uint8_t **out, size_t *out_length, char *error, size_t error_size) {
    struct jpeg_compress_struct cinfo;
    struct failure f = { .error = error, .error_size = error_size };
    struct output *o = calloc(1, sizeof *o);
    if (!o) return -1;

    cinfo.err = jpeg_std_error(&f.manager);
    f.manager.error_exit = fail;
    f.manager.emit_message = ignore_warning;
    if (setjmp(f.jump)) {
        jpeg_destroy_compress(&cinfo);
        return finish(o, -1, out, out_length);
    }

    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &o->buffer, &o->size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBX;
    jpeg_set_defaults(&cinfo);
    apply_settings(&cinfo, quality);
    // 4:2:0 at every quality, like the rest of videowm's JPEGs (libjpeg's default too).
    cinfo.comp_info[0].h_samp_factor = cinfo.comp_info[0].v_samp_factor = 2;
    jpeg_start_compress(&cinfo, TRUE);
    write_profile(&cinfo, icc_profile, icc_length);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * (size_t)stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return finish(o, 0, out, out_length);
}
