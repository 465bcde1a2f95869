// Tesseract's C API (Debian's libtesseract-dev 5.3): `trace` reads the text of a mark in a still
// picture with it. Only the C API is used (the C++ one would need C++ interoperability); pictures
// are handed over as 8-bit grey bytes, so no Leptonica call is needed.
//
// The library is opened when a still is first read (dlopen), not linked: linked, libtesseract and
// what it needs (Leptonica, libarchive, libcurl and their own libraries) were loaded and relocated
// by every command, `transcode` and `serve` too, for a feature only `trace` of a still uses.
// Each `videowm_Tess…` function below calls the library's function of the same name, its type
// taken from capi.h's declaration (`__typeof__`: no signature is written twice). Only
// `videowm_tesseract_available()` may be called before the library is known to be there.
#ifndef VIDEOWM_CTESSERACT_SHIM_H
#define VIDEOWM_CTESSERACT_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <tesseract/capi.h>

// Debian 12's libtesseract5 (the soname the headers of libtesseract-dev 5.x go with).
#define VIDEOWM_TESSERACT_LIBRARY "libtesseract.so.5"

/// The library's handle, opened on the first call; NULL when it is not installed. Two threads
/// racing here both open it, and dlopen hands both the same handle.
static inline void *videowm_tesseract_library(void) {
    static void *library;
    void *handle = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
    if (handle == NULL) {
        handle = dlopen(VIDEOWM_TESSERACT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        __atomic_store_n(&library, handle, __ATOMIC_RELEASE);
    }
    return handle;
}

/// Whether the library could be opened and has the C API (its first function).
static inline int videowm_tesseract_available(void) {
    void *library = videowm_tesseract_library();
    return library != NULL && dlsym(library, "TessBaseAPICreate") != NULL;
}

// The function `name` of the library, looked up once (the lookup's result is cached per function).
#define VIDEOWM_TESS(name) ({ \
    static __typeof__(&name) function; \
    __typeof__(&name) found = __atomic_load_n(&function, __ATOMIC_ACQUIRE); \
    if (found == NULL) { \
        found = (__typeof__(&name))dlsym(videowm_tesseract_library(), #name); \
        __atomic_store_n(&function, found, __ATOMIC_RELEASE); \
    } \
    found; })

static inline TessBaseAPI *videowm_TessBaseAPICreate(void) { return VIDEOWM_TESS(TessBaseAPICreate)(); }
static inline void videowm_TessBaseAPIDelete(TessBaseAPI *api) { VIDEOWM_TESS(TessBaseAPIDelete)(api); }
static inline int videowm_TessBaseAPIInit4(TessBaseAPI *api, const char *datapath, const char *language, TessOcrEngineMode mode,
                                           char **configs, int configs_size, char **vars_vec, char **vars_values,
                                           size_t vars_vec_size, BOOL set_only_non_debug_params) {
    return VIDEOWM_TESS(TessBaseAPIInit4)(api, datapath, language, mode, configs, configs_size, vars_vec, vars_values,
                                          vars_vec_size, set_only_non_debug_params);
}
static inline BOOL videowm_TessBaseAPISetVariable(TessBaseAPI *api, const char *name, const char *value) {
    return VIDEOWM_TESS(TessBaseAPISetVariable)(api, name, value);
}
static inline void videowm_TessBaseAPISetPageSegMode(TessBaseAPI *api, TessPageSegMode mode) {
    VIDEOWM_TESS(TessBaseAPISetPageSegMode)(api, mode);
}
static inline void videowm_TessBaseAPISetImage(TessBaseAPI *api, const unsigned char *data, int width, int height,
                                               int bytes_per_pixel, int bytes_per_line) {
    VIDEOWM_TESS(TessBaseAPISetImage)(api, data, width, height, bytes_per_pixel, bytes_per_line);
}
static inline void videowm_TessBaseAPISetSourceResolution(TessBaseAPI *api, int ppi) {
    VIDEOWM_TESS(TessBaseAPISetSourceResolution)(api, ppi);
}
static inline int videowm_TessBaseAPIRecognize(TessBaseAPI *api, ETEXT_DESC *monitor) {
    return VIDEOWM_TESS(TessBaseAPIRecognize)(api, monitor);
}
static inline void videowm_TessBaseAPIClear(TessBaseAPI *api) { VIDEOWM_TESS(TessBaseAPIClear)(api); }
static inline TessResultIterator *videowm_TessBaseAPIGetIterator(TessBaseAPI *api) {
    return VIDEOWM_TESS(TessBaseAPIGetIterator)(api);
}
static inline void videowm_TessResultIteratorDelete(TessResultIterator *iterator) {
    VIDEOWM_TESS(TessResultIteratorDelete)(iterator);
}
static inline TessPageIterator *videowm_TessResultIteratorGetPageIterator(TessResultIterator *iterator) {
    return VIDEOWM_TESS(TessResultIteratorGetPageIterator)(iterator);
}
static inline BOOL videowm_TessResultIteratorNext(TessResultIterator *iterator, TessPageIteratorLevel level) {
    return VIDEOWM_TESS(TessResultIteratorNext)(iterator, level);
}
static inline char *videowm_TessResultIteratorGetUTF8Text(const TessResultIterator *iterator, TessPageIteratorLevel level) {
    return VIDEOWM_TESS(TessResultIteratorGetUTF8Text)(iterator, level);
}
static inline float videowm_TessResultIteratorConfidence(const TessResultIterator *iterator, TessPageIteratorLevel level) {
    return VIDEOWM_TESS(TessResultIteratorConfidence)(iterator, level);
}
static inline void videowm_TessDeleteText(const char *text) { VIDEOWM_TESS(TessDeleteText)(text); }
static inline BOOL videowm_TessPageIteratorIsAtBeginningOf(const TessPageIterator *page, TessPageIteratorLevel level) {
    return VIDEOWM_TESS(TessPageIteratorIsAtBeginningOf)(page, level);
}
static inline BOOL videowm_TessPageIteratorBoundingBox(const TessPageIterator *page, TessPageIteratorLevel level,
                                                      int *left, int *top, int *right, int *bottom) {
    return VIDEOWM_TESS(TessPageIteratorBoundingBox)(page, level, left, top, right, bottom);
}

#undef VIDEOWM_TESS
#endif
