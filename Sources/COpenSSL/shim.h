#pragma once

// OpenSSL's libcrypto (Debian: libssl-dev). HandoffWire seals and opens the state stream's
// frames with its ChaCha20-Poly1305 through the EVP interface, into buffers of its own.
// HandoffRelay asks it where the system's certificate authorities are (X509_get_default_cert_dir).
#include <openssl/evp.h>
#include <openssl/x509.h>
