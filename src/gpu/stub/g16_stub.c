/* Built instead of src/gpu/g16/g16_kernels.cu and g16_backend.cu when CUDA is absent. */
#include "gpu/g16/g16_backend.h"
#include "util/common.h"

#define NO_CUDA(e) cuzk_err(e, CUZK_ERR_UNSUPPORTED, "cuzk GPU: built without CUDA")

cuzk_status cuzk_gpu_g16_csr_create(cuzk_gpu_g16_csr **out, cuzk_curve curve, uint32_t n_rows, uint32_t n_vars,
                                    const cuzk_gpu_g16_coefs *co, size_t chunk, int device, cuzk_error *e)
{
    (void)curve, (void)n_rows, (void)n_vars, (void)co, (void)chunk, (void)device;
    if (out)
        *out = NULL;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_csr_acquire(cuzk_gpu_g16_csr *c, cuzk_error *e)
{
    (void)c;
    return NO_CUDA(e);
}

void cuzk_gpu_g16_csr_release(cuzk_gpu_g16_csr *c) { (void)c; }

cuzk_status cuzk_gpu_g16_csr_keep_rows(cuzk_gpu_g16_csr *c, cuzk_error *e)
{
    (void)c;
    return NO_CUDA(e);
}

size_t cuzk_gpu_g16_csr_value_bytes(const cuzk_gpu_g16_csr *c)
{
    (void)c;
    return 0;
}

void cuzk_gpu_g16_csr_destroy(cuzk_gpu_g16_csr *c) { (void)c; }

cuzk_status cuzk_gpu_g16_abc(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c,
                             void *stream, cuzk_error *e)
{
    (void)c, (void)d_w, (void)d_a, (void)d_b, (void)d_c, (void)stream;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_abc_poll(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c,
                                  void *stream, int (*cancelled)(void *), void *user, cuzk_error *e)
{
    (void)c, (void)d_w, (void)d_a, (void)d_b, (void)d_c, (void)stream, (void)cancelled, (void)user;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_pointwise(cuzk_curve curve, void *d_a, const void *d_b, const void *d_c, size_t n,
                                   cuzk_gpu_g16_pw_op op, void *stream, cuzk_error *e)
{
    (void)curve, (void)d_a, (void)d_b, (void)d_c, (void)n, (void)op, (void)stream;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_witness_expand(const void *index, const void *full, void *d_w, size_t n, size_t tile0,
                                        size_t ntiles, void *stream, cuzk_error *e)
{
    (void)index, (void)full, (void)d_w, (void)n, (void)tile0, (void)ntiles, (void)stream;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_gather(const uint32_t *d_index, const void *d_w, void *d_out, size_t n, void *stream,
                                cuzk_error *e)
{
    (void)d_index, (void)d_w, (void)d_out, (void)n, (void)stream;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_select(const uint32_t *d_bits, const uint32_t *d_off, const void *d_w, void *d_out,
                                size_t n, void *stream, cuzk_error *e)
{
    (void)d_bits, (void)d_off, (void)d_w, (void)d_out, (void)n, (void)stream;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_key_attach(cuzk_gpu_g16_key **out, const cuzk_gpu_g16_key_src *src,
                                    const cuzk_gpu_plan_opts *po, cuzk_error *e)
{
    (void)src, (void)po;
    if (out)
        *out = NULL;
    return NO_CUDA(e);
}

void cuzk_gpu_g16_key_detach(cuzk_gpu_g16_key *k) { (void)k; }

void cuzk_gpu_g16_key_plan(const cuzk_gpu_g16_key *k, cuzk_gpu_plan *plan, size_t *measured_peak)
{
    (void)k, (void)plan, (void)measured_peak;
}

int cuzk_gpu_g16_key_device(const cuzk_gpu_g16_key *k)
{
    (void)k;
    return 0;
}

cuzk_status cuzk_gpu_g16_job_begin(cuzk_gpu_g16_job **out, cuzk_gpu_g16_key *k, const void *witness,
                                   const uint64_t *const *select, const cuzk_gpu_g16_hooks *hooks, cuzk_error *e)
{
    (void)k, (void)witness, (void)select, (void)hooks;
    if (out)
        *out = NULL;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_job_abc(cuzk_gpu_g16_job *j, cuzk_error *e)
{
    (void)j;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_g16_job_ntt(cuzk_gpu_g16_job *j, cuzk_error *e)
{
    (void)j;
    return NO_CUDA(e);
}

void cuzk_gpu_g16_job_msm_order(const cuzk_gpu_g16_job *j, cuzk_gpu_plan_item_id order[5])
{
    (void)j;
    for (int i = 0; i < 5; i++)
        order[i] = (cuzk_gpu_plan_item_id)(CUZK_GPU_ITEM_MSM_H + i);
}

cuzk_status cuzk_gpu_g16_job_msm(cuzk_gpu_g16_job *j, cuzk_gpu_plan_item_id id, void *result, cuzk_error *e)
{
    (void)j, (void)id, (void)result;
    return NO_CUDA(e);
}

void cuzk_gpu_g16_job_times(const cuzk_gpu_g16_job *j, double ms[CUZK_GPU_PHASE_COUNT])
{
    (void)j;
    for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++)
        ms[p] = 0;
}

size_t cuzk_gpu_g16_job_spans(cuzk_gpu_g16_job *j, int wait, cuzk_gpu_g16_span *out, size_t cap)
{
    (void)j, (void)wait, (void)out, (void)cap;
    return 0;
}

void cuzk_gpu_g16_job_end(cuzk_gpu_g16_job *j) { (void)j; }
