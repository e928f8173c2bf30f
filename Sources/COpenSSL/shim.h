#ifndef CRAVEY_COPENSSL_SHIM_H
#define CRAVEY_COPENSSL_SHIM_H

// OpenSSL 3's libcrypto, the system's: SHA-256, HMAC, HKDF, scrypt, ChaCha20-Poly1305 and its
// random generator, for a backup's checksums and the age format. Nothing of libssl (TLS).
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#endif
