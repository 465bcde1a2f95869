#ifndef VIDEOWM_CAVCODEC_SHIM_H
#define VIDEOWM_CAVCODEC_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#endif
