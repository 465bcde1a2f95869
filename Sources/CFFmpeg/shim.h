#ifndef VIDEOWM_CFFMPEG_SHIM_H
#define VIDEOWM_CFFMPEG_SHIM_H
// One module for FFmpeg's libraries: their headers include libavutil's, so separate
// Clang modules each got a textual copy of libavutil's declarations, and Swift then hid
// enum constants (AVCOL_RANGE_JPEG…) depending on which module a file imported first.
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/audio_fifo.h>
#include <errno.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/dict.h>
#include <libavutil/sha.h>
#include <libavutil/mastering_display_metadata.h>

// AVERROR(e) is a function-like macro; Swift cannot import it.
static inline int vwm_averror(int e) { return AVERROR(e); }
// AVERROR_EOF is built with FFERRTAG, a macro Swift cannot evaluate.
static inline int vwm_averror_eof(void) { return AVERROR_EOF; }
// AVERROR_INVALIDDATA and AVERROR_EXIT, likewise FFERRTAG-based.
static inline int vwm_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int vwm_averror_exit(void) { return AVERROR_EXIT; }
// AV_NOPTS_VALUE is a cast of UINT64_C, which Swift does not import.
static inline int64_t vwm_nopts_value(void) { return AV_NOPTS_VALUE; }
// Points stdio's stderr (not descriptor 2) at /dev/null, for libraries that fprintf to it.
#include <stdio.h>
static inline void vwm_quiet_stdio_stderr(void) {
    static int quieted;
    if (quieted) return;
    FILE *null = fopen("/dev/null", "we");
    if (null) { stderr = null; quieted = 1; }
}
#endif
