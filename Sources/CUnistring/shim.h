// GNU libunistring (Debian's libunistring-dev): Unicode normalization and case folding, for
// the look-alike skeletons of peer names, without Foundation (whose versions bring ICU).
#include <stddef.h>
#include <stdint.h>
#include <unicase.h>
#include <uninorm.h>

// UNINORM_NFKD is the address of an incomplete struct, which Swift cannot take itself.
static inline uninorm_t baton_uninorm_nfkd(void) { return UNINORM_NFKD; }
