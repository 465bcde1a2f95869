#ifndef VIDEOWM_CFONTCONFIG_SHIM_H
#define VIDEOWM_CFONTCONFIG_SHIM_H
#include <fontconfig/fontconfig.h>
#endif
