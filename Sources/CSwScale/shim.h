#ifndef VIDEOWM_CSWSCALE_SHIM_H
#define VIDEOWM_CSWSCALE_SHIM_H
#include <libswscale/swscale.h>
#endif
