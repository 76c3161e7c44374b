#pragma once

// OpenSSL's libcrypto (Debian: libssl-dev). HandoffWire seals and opens the state stream's
// frames with its ChaCha20-Poly1305 through the EVP interface, into buffers of its own.
#include <openssl/evp.h>
