/*
 * tests/unit/check.h - minimal test macros for the unit tests.
 *
 * Each test file is one program: CHECK* record failures and go on,
 * CHECK_DONE() prints a summary and returns the exit status from main.
 * SHARED_DIR is ../shared (third-party traces): tests that need it call
 * shared_path() and skip with a notice when it is absent.
 */
#ifndef WC_CHECK_H
#define WC_CHECK_H
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

static int check_failures_;
static int check_count_;

#define CHECK(cond)                                                            \
    do {                                                                       \
        check_count_++;                                                        \
        if (!(cond)) {                                                         \
            check_failures_++;                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
        }                                                                      \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                     \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        check_count_++;                                                        \
        if (a_ != b_) {                                                        \
            check_failures_++;                                                 \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n",        \
                    __FILE__, __LINE__, #a, a_, #b, b_);                       \
        }                                                                      \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                  \
    do {                                                                       \
        double a_ = (double)(a), b_ = (double)(b);                             \
        check_count_++;                                                        \
        if (!(fabs(a_ - b_) <= (tol))) {                                       \
            check_failures_++;                                                 \
            fprintf(stderr, "%s:%d: %s == %g, expected %g +- %g\n", __FILE__,  \
                    __LINE__, #a, a_, b_, (double)(tol));                      \
        }                                                                      \
    } while (0)

#define CHECK_STR(a, b)                                                        \
    do {                                                                       \
        const char *a_ = (a), *b_ = (b);                                       \
        check_count_++;                                                        \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                               \
            check_failures_++;                                                 \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n",          \
                    __FILE__, __LINE__, #a, a_ ? a_ : "(null)",                \
                    b_ ? b_ : "(null)");                                       \
        }                                                                      \
    } while (0)

#define CHECK_DONE()                                                           \
    do {                                                                       \
        fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__, check_count_,  \
                check_failures_);                                              \
        return check_failures_ ? 1 : 0;                                        \
    } while (0)

/* Path under ../shared, or NULL (with a notice) when ../shared is absent. */
static inline const char *shared_path(const char *rel, char *buf, size_t n)
{
    snprintf(buf, n, "../shared/%s", rel);
    if (access(buf, R_OK) != 0) {
        fprintf(stderr, "notice: %s absent, skipping the checks that need it\n",
                buf);
        return NULL;
    }
    return buf;
}
#endif
