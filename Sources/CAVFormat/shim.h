#ifndef VIDEOWM_CAVFORMAT_SHIM_H
#define VIDEOWM_CAVFORMAT_SHIM_H
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
// AVFMT_FLAG_* / AVFMT_* flags import fine; AVIO_FLAG_WRITE too.
#endif
