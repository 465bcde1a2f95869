#ifndef VIDEOWM_CCRYPTO_SHIM_H
#define VIDEOWM_CCRYPTO_SHIM_H
// OpenSSL's libcrypto: HMAC-SHA256 (through the EVP_MAC interface), random bytes, constant-time
// comparison and cleansing. Only Sources/VideoWM/Keys uses it.
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

// An HMAC context keyed with `key` and set to SHA-256, or NULL. The digest is named in an
// OSSL_PARAM list whose terminator, OSSL_PARAM_END, is a macro Swift cannot import.
static inline EVP_MAC_CTX *vwm_hmac_sha256_new(const unsigned char *key, size_t key_length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);  // the context keeps its own reference
    if (context == NULL) return NULL;
    OSSL_PARAM parameters[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_END,
    };
    if (EVP_MAC_init(context, key, key_length, parameters) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}
#endif
