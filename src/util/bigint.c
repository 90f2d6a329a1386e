#include "util/bigint.h"

#include <string.h>

int cuzk_bn_to_dec(char *buf, size_t cap, const uint64_t *limbs, size_t n)
{
    if (!buf || cap == 0 || n > CUZK_BN_MAX_LIMBS)
        return -1;
    uint64_t t[CUZK_BN_MAX_LIMBS];
    size_t len = n;
    memcpy(t, limbs, n * sizeof(uint64_t));
    while (len > 0 && t[len - 1] == 0)
        len--;
    /* Peel off 9 decimal digits at a time, dividing 32-bit halves so that
     * no 128-bit type is needed (rem < 10^9, so rem·2^32 + half < 2^64). */
    char tmp[CUZK_BN_MAX_LIMBS * 20 + 2];
    size_t nd = 0;
    const uint64_t chunk = 1000000000ULL;
    do {
        uint64_t rem = 0;
        for (size_t i = len; i-- > 0;) {
            uint64_t hi = (rem << 32) | (t[i] >> 32);
            uint64_t qh = hi / chunk;
            rem = hi % chunk;
            uint64_t lo = (rem << 32) | (t[i] & 0xffffffffULL);
            uint64_t ql = lo / chunk;
            rem = lo % chunk;
            t[i] = (qh << 32) | ql;
        }
        while (len > 0 && t[len - 1] == 0)
            len--;
        uint64_t r = rem;
        for (int k = 0; k < 9; k++) {
            tmp[nd++] = (char)('0' + r % 10);
            r /= 10;
            if (len == 0 && r == 0)
                break;
        }
    } while (len > 0);
    if (nd + 1 > cap)
        return -1;
    for (size_t i = 0; i < nd; i++)
        buf[i] = tmp[nd - 1 - i];
    buf[nd] = '\0';
    return (int)nd;
}

bool cuzk_bn_from_dec(uint64_t *limbs, size_t n, const char *s)
{
    if (!limbs)
        return false;
    memset(limbs, 0, n * sizeof(uint64_t));
    if (!s || !*s)
        return false;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9') {
            memset(limbs, 0, n * sizeof(uint64_t));
            return false;
        }
        /* limbs = limbs * 10 + digit; any carry out of the top limb is overflow. */
        uint64_t carry = (uint64_t)(*c - '0');
        for (size_t i = 0; i < n; i++) {
            /* limb·10 + carry split into 32-bit halves (carry < 10). */
            uint64_t lo = (limbs[i] & 0xffffffffULL) * 10u + carry;
            uint64_t hi = (limbs[i] >> 32) * 10u + (lo >> 32);
            limbs[i] = (hi << 32) | (lo & 0xffffffffULL);
            carry = hi >> 32;
        }
        if (carry) {
            memset(limbs, 0, n * sizeof(uint64_t));
            return false;
        }
    }
    return true;
}
