/* Host check of the MSM radix-sort path (CUZK_GPU_MSM_SORT=radix): the
 * per-point pair generation (point_keys, the body of digits_keys_kernel) and
 * the bucket bounds (bucket_bound, the body of bucket_bounds_kernel) run on
 * the CPU, a stable sort by key stands in for the device radix sort, and the
 * result must equal the default path's counting sort (histogram, exclusive
 * scan, scatter; emulated here with the same digit recoding): identical
 * offsets[0..NB] and, per bucket, the same multiset of entries. Batches,
 * the 0/1 split, c = 4..20 and skewed scalars (0, 1, r-1, small, mixes).
 * --broken perturbs one key after generation: the check must then fail.
 * No GPU needed.
 *
 * build: nvcc -O2 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Iinclude -Isrc \
 *            tools/gpu_msm_sort_check.cu -o /tmp/sort_check && /tmp/sort_check */
#include "gpu/msm_impl.cuh"
#include <algorithm>
#include <vector>

namespace {

uint64_t rng_state = 0x1234567u;
uint64_t rnd()
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

const uint64_t R_BN254[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL};

/* dist: 0 uniform < 2^254, 1 small (< 40), 2 all one, 3 all r-1, 4 mix of 0 / 1 / r-1 / uniform */
void make_scalars(std::vector<uint64_t> &s, size_t n, int dist)
{
    s.assign(4 * n, 0);
    for (size_t i = 0; i < n; i++) {
        uint64_t *x = &s[4 * i];
        int kind = dist;
        if (dist == 4) {
            static const int mix[4] = {0, 5, 2, 3};
            kind = mix[rnd() % 4];
        }
        switch (kind) {
        case 0:
            for (int j = 0; j < 4; j++) x[j] = rnd();
            x[3] &= (1ULL << 62) - 1;
            break;
        case 1: x[0] = rnd() % 40; break;
        case 2: x[0] = 1; break;
        case 3:
            for (int j = 0; j < 4; j++) x[j] = R_BN254[j];
            x[0] -= 1;
            break;
        default: break; /* 5: zero */
        }
    }
}

/* (host and device only because for_each_digit is) */
struct ref_count {
    uint32_t *h;
    uint32_t B;
    __host__ __device__ void operator()(unsigned w, int d)
    {
        if (d != 0) h[w * B + (unsigned)(d < 0 ? -d : d) - 1]++;
    }
};
struct ref_place {
    uint32_t *cur, *ent;
    uint32_t B, idx;
    __host__ __device__ void operator()(unsigned w, int d)
    {
        if (d != 0) ent[cur[w * B + (unsigned)(d < 0 ? -d : d) - 1]++] = idx | (d < 0 ? 0x80000000u : 0u);
    }
};

bool skipped(const uint64_t *s, size_t i, int split)
{
    scalar8 v = load_scalar(s, i);
    return (split && scalar_is_one(v)) || scalar_is_zero(v);
}

/* One configuration; returns the number of mismatching batches. */
int check(size_t n, unsigned c, int split, int dist, size_t batch, bool broken)
{
    const unsigned bits = 254, W = windows_for(bits, c);
    const uint32_t B = 1u << (c - 1), NB = W * B;
    std::vector<uint64_t> s;
    make_scalars(s, n, dist);
    int bad = 0;
    for (size_t b0 = 0; b0 < n; b0 += batch) {
        const size_t b1 = std::min(n, b0 + batch), nb = b1 - b0, np = nb * W;
        /* default path: histogram, exclusive scan, scatter */
        std::vector<uint32_t> off(NB + 1, 0), ent(np, 0xdeadbeefu);
        for (size_t i = b0; i < b1; i++) {
            if (skipped(s.data(), i, split)) continue;
            ref_count f{off.data(), B};
            for_each_digit(load_scalar(s.data(), i), c, W, f);
        }
        uint32_t acc = 0;
        for (uint32_t k = 0; k <= NB; k++) {
            uint32_t v = k < NB ? off[k] : 0;
            off[k] = acc;
            acc += v;
        }
        std::vector<uint32_t> cur(off.begin(), off.end() - 1);
        for (size_t i = b0; i < b1; i++) {
            if (skipped(s.data(), i, split)) continue;
            ref_place g{cur.data(), ent.data(), B, (uint32_t)i};
            for_each_digit(load_scalar(s.data(), i), c, W, g);
        }
        /* radix path: pairs, sort by key, bounds */
        std::vector<uint32_t> keys(np), vals(np);
        for (size_t i = b0; i < b1; i++) point_keys(s.data(), i, b0, b1, split, c, W, B, NB, keys.data(), vals.data());
        if (broken) {
            for (size_t j = 0; j < np; j++)
                if (keys[j] + 1 < NB) { keys[j]++; break; }
        }
        std::vector<size_t> ord(np);
        for (size_t j = 0; j < np; j++) ord[j] = j;
        std::stable_sort(ord.begin(), ord.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
        std::vector<uint32_t> sk(np), sv(np), roff(NB + 1);
        for (size_t j = 0; j < np; j++) {
            sk[j] = keys[ord[j]];
            sv[j] = vals[ord[j]];
        }
        for (uint32_t k = 0; k <= NB; k++) roff[k] = bucket_bound(sk.data(), (uint32_t)np, k);
        bool ok = roff == off;
        for (uint32_t k = 0; ok && k < NB; k++) {
            if (off[k] == off[k + 1]) continue;
            std::vector<uint32_t> a(ent.begin() + off[k], ent.begin() + off[k + 1]);
            std::vector<uint32_t> b(sv.begin() + off[k], sv.begin() + off[k + 1]);
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            ok = a == b;
        }
        if (!ok) bad++;
    }
    return bad;
}

} /* namespace */

int main(int argc, char **argv)
{
    const bool broken = argc > 1 && strcmp(argv[1], "--broken") == 0;
    int checks = 0, fails = 0;
    static const unsigned cs[] = {4, 5, 7, 11, 13, 16, 20};
    static const size_t ns[] = {1, 3, 100, 1000, 4099};
    for (unsigned c : cs)
        for (size_t n : ns)
            for (int dist = 0; dist < 5; dist++)
                for (int split = 0; split < 2; split++) {
                    if (c >= 16 && n != 4099) continue; /* keep the run short */
                    const size_t batch = (n * c + dist) % 3 == 0 ? 1000 : n;
                    int bad = check(n, c, split, dist, batch, broken);
                    checks++;
                    if (bad) {
                        fails++;
                        if (fails <= 10)
                            printf("FAIL c=%u n=%zu dist=%d split=%d batch=%zu (%d batches)\n", c, n, dist, split, batch, bad);
                    }
                }
    printf("%d checks, %d failures%s\n", checks, fails, broken ? " (--broken: failures expected)" : "");
    return broken ? (fails == 0) : (fails != 0);
}
