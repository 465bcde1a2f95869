#ifndef VIDEOWM_CFRIBIDI_SHIM_H
#define VIDEOWM_CFRIBIDI_SHIM_H
#include <fribidi.h>
// FRIBIDI_PAR_ON is built from mask macros; a function keeps Swift from depending on how it imports.
static inline FriBidiParType vwm_fribidi_par_on(void) { return FRIBIDI_PAR_ON; }
static inline FriBidiParType vwm_fribidi_par_rtl(void) { return FRIBIDI_PAR_RTL; }
#endif
