// The reference Argon2 implementation (Debian's libargon2-dev), used for password hashing.
#include <argon2.h>
