/*
 * common/ctrl.c - control bits of Volta+ SASS: decoding from the high 64-bit
 * encoding word (as printed by cuobjdump) and parsing the CuAssembler
 * notation of hand-written SASS.
 *
 *   high word, bits 41..63 (c = hi >> 41):
 *     c[3:0]   stall counter          c[4]     0 = yield
 *     c[7:5]   write dep. counter     c[10:8]  read dep. counter (7 = none)
 *     c[16:11] wait mask (SB0..SB5)   c[20:17] reuse, source slots 0..3
 *
 *   CuAssembler: [B012345:R5:W3:Y:S15]  ('-' where a field is unused)
 */
#include "wc.h"

void wc_ctrl_decode(uint64_t hi, wc_ctrl *c)
{
    unsigned v = (unsigned)(hi >> 41);
    c->valid = 1;
    c->stall = (uint8_t)(v & 0xf);
    c->yield = (uint8_t)(((v >> 4) & 1) ? 0 : 1);
    unsigned w = (v >> 5) & 7, r = (v >> 8) & 7;
    c->wbar = (int8_t)(w == 7 ? -1 : (int)w);
    c->rbar = (int8_t)(r == 7 ? -1 : (int)r);
    c->wait = (uint8_t)((v >> 11) & 0x3f);
    c->reuse = (uint8_t)((v >> 17) & 0xf);
}

/* Expect character ch at s[*i]; on failure return the error code. */
#define EXPECT(ch)                                                             \
    do {                                                                       \
        if (i >= len || s[i] != (ch))                                          \
            return -(int)(i + 1);                                              \
        i++;                                                                   \
    } while (0)

/* Dependence counter field: a digit 0-5 or '-'. */
static int counter(const char *s, size_t len, size_t *i, int8_t *out)
{
    if (*i >= len)
        return -(int)(*i + 1);
    char ch = s[*i];
    if (ch == '-')
        *out = -1;
    else if (ch >= '0' && ch <= '5')
        *out = (int8_t)(ch - '0');
    else
        return -(int)(*i + 1);
    (*i)++;
    return 0;
}

int wc_ctrl_parse(const char *s, size_t len, wc_ctrl *c)
{
    wc_ctrl t = {0};
    size_t i = 0;
    int rc;
    EXPECT('[');
    EXPECT('B');
    for (unsigned k = 0; k < 6; k++) {
        if (i >= len)
            return -(int)(i + 1);
        if (s[i] == (char)('0' + k))
            t.wait |= (uint8_t)(1u << k);
        else if (s[i] != '-')
            return -(int)(i + 1);
        i++;
    }
    EXPECT(':');
    EXPECT('R');
    if ((rc = counter(s, len, &i, &t.rbar)) != 0)
        return rc;
    EXPECT(':');
    EXPECT('W');
    if ((rc = counter(s, len, &i, &t.wbar)) != 0)
        return rc;
    EXPECT(':');
    if (i >= len || (s[i] != 'Y' && s[i] != '-'))
        return -(int)(i + 1);
    t.yield = s[i] == 'Y';
    i++;
    EXPECT(':');
    EXPECT('S');
    if (i + 1 >= len || s[i] < '0' || s[i] > '9')
        return -(int)(i + 1);
    if (s[i + 1] < '0' || s[i + 1] > '9')
        return -(int)(i + 2);
    unsigned st = (unsigned)(s[i] - '0') * 10u + (unsigned)(s[i + 1] - '0');
    if (st > 15)
        return -(int)(i + 1);
    t.stall = (uint8_t)st;
    i += 2;
    EXPECT(']');
    if (i != len)
        return -(int)(i + 1);
    t.valid = 1;
    *c = t;
    return 0;
}
