/* Built instead of the diagnostics in src/diag when CUDA is absent: they
 * exist but report "built without CUDA". */
#include <string.h>

#include "cuzk/dev.h"
#include "util/common.h"

cuzk_status cuzk_gpu_selftest(const cuzk_gpu_selftest_opts *opts, cuzk_gpu_selftest_result *res, cuzk_error *e)
{
    (void)opts;
    if (res) memset(res, 0, sizeof *res);
    return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "cuzk GPU: built without CUDA");
}

cuzk_status cuzk_gpu_bench(const cuzk_gpu_bench_opts *opts, cuzk_error *e)
{
    (void)opts;
    return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "cuzk GPU: built without CUDA");
}
