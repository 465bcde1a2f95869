#ifndef VIDEOWM_CFREETYPE_SHIM_H
#define VIDEOWM_CFREETYPE_SHIM_H
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_STROKER_H
#include FT_GLYPH_H
#include FT_TRUETYPE_TABLES_H
#include FT_BITMAP_H
// FT_LOAD_TARGET_LIGHT is a function-like macro (FT_LOAD_TARGET_(x)).
static inline FT_Int32 vwm_ft_load_target_light(void) { return FT_LOAD_TARGET_LIGHT; }
// FT_HAS_KERNING / FT_HAS_COLOR test face flags through macros.
static inline int vwm_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }
static inline int vwm_ft_has_color(FT_Face face) { return FT_HAS_COLOR(face) ? 1 : 0; }
static inline int vwm_ft_is_scalable(FT_Face face) { return FT_IS_SCALABLE(face) ? 1 : 0; }
// FT_Error_String returns NULL unless FreeType is built with FT_CONFIG_OPTION_ERROR_STRINGS (Debian's is not),
// so the message table is generated from fterrors.h with its documented re-include trick.
static inline const char *vwm_ft_error_message(FT_Error error_code) {
#undef FTERRORS_H_
#define FT_ERROR_START_LIST switch (error_code) {
#define FT_ERRORDEF(e, v, s) case v: return s;
#define FT_ERROR_END_LIST }
#include FT_ERRORS_H
    return "unknown FreeType error";
}
#endif
