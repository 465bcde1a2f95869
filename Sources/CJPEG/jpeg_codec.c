#include "jpeg_codec.h"

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

// One picture to encode: YCbCr planes (raw, with the band buffers set up) or RGBA rows.
struct source {
    int raw;
    int width, height;
    // YCbCr planes: log2 chroma subsampling; per plane its rows, size and band geometry.
    int chroma_shift_x, chroma_shift_y;
    const uint8_t *planes[3];
    int strides[3], plane_width[3], plane_height[3], padded_width[3], band_rows[3];
    // RGBA
    const uint8_t *pixels;
    int stride;
};

// Feeds one band of whole 8×8 blocks of every plane (16 luma rows for 4:2:0) from `next_row`.
// Columns and rows past the picture repeat its edge, as libjpeg does for normal input.
static void write_band(j_compress_ptr cinfo, const struct source *src, struct output *o) {
    JSAMPROW rows[3][2 * DCTSIZE];
    JSAMPARRAY arrays[3] = { rows[0], rows[1], rows[2] };
    int luma_row = (int)cinfo->next_scanline;
    for (int c = 0; c < 3; c++) {
        int first = c == 0 ? luma_row : luma_row >> src->chroma_shift_y;
        for (int r = 0; r < src->band_rows[c]; r++) {
            int row = first + r < src->plane_height[c] ? first + r : src->plane_height[c] - 1;
            const uint8_t *line = src->planes[c] + (size_t)row * (size_t)src->strides[c];
            JSAMPLE *copy = o->band[c] + (size_t)r * (size_t)src->padded_width[c];
            memcpy(copy, line, (size_t)src->plane_width[c]);
            memset(copy + src->plane_width[c], line[src->plane_width[c] - 1], (size_t)(src->padded_width[c] - src->plane_width[c]));
            rows[c][r] = copy;
        }
    }
    jpeg_write_raw_data(cinfo, arrays, (JDIMENSION)src->band_rows[0]);
}

static int encode(const struct source *src, int quality, const uint8_t *icc_profile, size_t icc_length,
                  uint8_t **out, size_t *out_length, char *error, size_t error_size) {
    struct jpeg_compress_struct cinfo;
    struct failure f = { .error = error, .error_size = error_size };
    struct output *o = calloc(1, sizeof *o);
    if (!o) return -1;
    for (int c = 0; src->raw && c < 3; c++) {
        o->band[c] = malloc((size_t)src->padded_width[c] * (size_t)src->band_rows[c]);
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
    cinfo.image_width = (JDIMENSION)src->width;
    cinfo.image_height = (JDIMENSION)src->height;
    cinfo.input_components = src->raw ? 3 : 4;
    cinfo.in_color_space = src->raw ? JCS_YCbCr : JCS_EXT_RGBX;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    cinfo.optimize_coding = TRUE;
    cinfo.dct_method = JDCT_ISLOW;
    if (src->raw) {
        // The planes are the file's own samples: no conversion, their subsampling kept.
        jpeg_set_colorspace(&cinfo, JCS_YCbCr);
        cinfo.raw_data_in = TRUE;
        cinfo.comp_info[0].h_samp_factor = 1 << src->chroma_shift_x;
        cinfo.comp_info[0].v_samp_factor = 1 << src->chroma_shift_y;
        for (int c = 1; c < 3; c++) cinfo.comp_info[c].h_samp_factor = cinfo.comp_info[c].v_samp_factor = 1;
    } else {
        // 4:2:0 at every quality, like the rest of videowm's JPEGs (libjpeg's default too).
        cinfo.comp_info[0].h_samp_factor = cinfo.comp_info[0].v_samp_factor = 2;
    }
    jpeg_start_compress(&cinfo, TRUE);
    if (icc_profile && icc_length) jpeg_write_icc_profile(&cinfo, icc_profile, (unsigned int)icc_length);
    while (cinfo.next_scanline < cinfo.image_height) {
        if (src->raw) {
            write_band(&cinfo, src, o);
        } else {
            JSAMPROW row = (JSAMPROW)(src->pixels + (size_t)cinfo.next_scanline * (size_t)src->stride);
            jpeg_write_scanlines(&cinfo, &row, 1);
        }
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return finish(o, 0, out, out_length);
}

int vwm_jpeg_encode_ycbcr(const uint8_t *const planes[3], const int strides[3], int width, int height,
                          int chroma_shift_x, int chroma_shift_y, int quality,
                          const uint8_t *icc_profile, size_t icc_length,
                          uint8_t **out, size_t *out_length, char *error, size_t error_size) {
    struct source src = { .raw = 1, .width = width, .height = height,
                          .chroma_shift_x = chroma_shift_x, .chroma_shift_y = chroma_shift_y };
    for (int c = 0; c < 3; c++) {
        int shift_x = c == 0 ? 0 : chroma_shift_x, shift_y = c == 0 ? 0 : chroma_shift_y;
        src.planes[c] = planes[c];
        src.strides[c] = strides[c];
        src.plane_width[c] = (width + (1 << shift_x) - 1) >> shift_x;
        src.plane_height[c] = (height + (1 << shift_y) - 1) >> shift_y;
        // Whole blocks of every MCU: the width rounded up to 16 covers any subsampling up to 2.
        src.padded_width[c] = (src.plane_width[c] + 15) & ~15;
        src.band_rows[c] = (c == 0 ? 1 << chroma_shift_y : 1) * DCTSIZE;
    }
    return encode(&src, quality, icc_profile, icc_length, out, out_length, error, error_size);
}

int vwm_jpeg_encode_rgba(const uint8_t *pixels, int stride, int width, int height, int quality,
                         const uint8_t *icc_profile, size_t icc_length,
                         uint8_t **out, size_t *out_length, char *error, size_t error_size) {
    struct source src = { .raw = 0, .width = width, .height = height, .pixels = pixels, .stride = stride };
    return encode(&src, quality, icc_profile, icc_length, out, out_length, error, error_size);
}

// ---- Reading ----------------------------------------------------------------------------

// Warnings (corrupt data that libjpeg works around) count as failures: the caller then
// decodes with FFmpeg, which reports damage its own way.
static void count_warning(j_common_ptr cinfo, int level) {
    if (level < 0) cinfo->err->num_warnings++;
}

int vwm_jpeg_read_info(const uint8_t *data, size_t length, struct vwm_jpeg_info *info) {
    struct jpeg_decompress_struct cinfo;
    struct failure f = { .error = NULL, .error_size = 0 };
    memset(info, 0, sizeof *info);
    cinfo.err = jpeg_std_error(&f.manager);
    f.manager.error_exit = fail;
    f.manager.emit_message = ignore_warning;
    if (setjmp(f.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(info->exif);
        free(info->icc_profile);
        memset(info, 0, sizeof *info);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    info->width = (int)cinfo.image_width;
    info->height = (int)cinfo.image_height;
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0 && !info->exif) {
            info->exif = malloc(m->data_length - 6);
            if (info->exif) {
                memcpy(info->exif, m->data + 6, m->data_length - 6);
                info->exif_length = m->data_length - 6;
            }
        }
    }
    JOCTET *icc = NULL;
    unsigned int icc_length = 0;
    if (jpeg_read_icc_profile(&cinfo, &icc, &icc_length)) {
        info->icc_profile = icc;
        info->icc_length = icc_length;
    }
    jpeg_component_info *c = cinfo.comp_info;
    int h = c[0].h_samp_factor, v = c[0].v_samp_factor;
    info->is_ycbcr = cinfo.num_components == 3 && cinfo.jpeg_color_space == JCS_YCbCr
        && (h == 1 || h == 2) && (v == 1 || v == 2)
        && c[1].h_samp_factor == 1 && c[1].v_samp_factor == 1 && c[2].h_samp_factor == 1 && c[2].v_samp_factor == 1;
    info->chroma_shift_x = h == 2;
    info->chroma_shift_y = v == 2;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

int vwm_jpeg_decode_ycbcr(const uint8_t *data, size_t length, uint8_t *const planes[3], const int strides[3]) {
    struct jpeg_decompress_struct cinfo;
    struct failure f = { .error = NULL, .error_size = 0 };
    // Rows past a plane's last (libjpeg writes whole blocks) land in this scratch row,
    // allocated before setjmp so it is freed on every path.
    size_t scratch_size = 0;
    for (int c = 0; c < 3; c++) if ((size_t)strides[c] > scratch_size) scratch_size = (size_t)strides[c];
    JSAMPLE *scratch = malloc(scratch_size + 64);
    if (!scratch) return -1;

    cinfo.err = jpeg_std_error(&f.manager);
    f.manager.error_exit = fail;
    f.manager.emit_message = count_warning;
    if (setjmp(f.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(scratch);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.raw_data_out = TRUE;
    cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&cinfo);
    int v_max = cinfo.max_v_samp_factor;
    int plane_height[3], band_rows[3];
    for (int c = 0; c < 3; c++) {
        int shift_y = c == 0 ? 0 : (v_max == 2);
        plane_height[c] = ((int)cinfo.output_height + (1 << shift_y) - 1) >> shift_y;
        band_rows[c] = cinfo.comp_info[c].v_samp_factor * DCTSIZE;
    }
    JSAMPROW rows[3][2 * DCTSIZE];
    JSAMPARRAY arrays[3] = { rows[0], rows[1], rows[2] };
    while (cinfo.output_scanline < cinfo.output_height) {
        int luma_row = (int)cinfo.output_scanline;
        for (int c = 0; c < 3; c++) {
            int first = c == 0 ? luma_row : luma_row / v_max;
            for (int r = 0; r < band_rows[c]; r++) {
                int row = first + r;
                rows[c][r] = row < plane_height[c] ? planes[c] + (size_t)row * (size_t)strides[c] : scratch;
            }
        }
        jpeg_read_raw_data(&cinfo, arrays, (JDIMENSION)(v_max * DCTSIZE));
    }
    jpeg_finish_decompress(&cinfo);
    int clean = f.manager.num_warnings == 0;
    jpeg_destroy_decompress(&cinfo);
    free(scratch);
    return clean ? 0 : -1;
}
