// supraseal-c2 itself (its generate_groth16_proofs_c, compiled unmodified by
// the supraseal-anchor glue: shared tools/peer-bench/supraseal-anchor) on a
// cuzk `.params` of the PoRep-shaped circuit with that circuit's own
// assignment (libcuzk's cuzk_bp_circuit_porep): the same file and the same
// inputs as the supraseal-c2 crate's bench through cuzk, so both provers do
// the same work and supraseal-c2's proofs are checked too (libcuzk's
// bellperson verifier). Built by bench/supraseal_porep_build.sh, once per
// variant (-DANCHOR_CUZK: Curio's copy, whose entry takes a GPU mutex and
// index). Not a CTest test.
//
//   supraseal_porep_<variant> --params P --lg LG [--seed S] [--circuits N] [--reps R] [--shared]
//
// Prints SRS_LOAD (create_SRS until its read thread is done), ASSIGNMENT,
// one PROVE line per call (1 warm-up + R), VERIFY, and a SUMMARY line.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuzk/bellperson.h"

struct RErr {
    int code;
    char *msg;
};
struct SRSHandle {
    void *ptr;
};
extern "C" RErr create_SRS(SRSHandle &ret, const char *path, bool cache);
extern "C" void anchor_srs_wait(const SRSHandle &);
extern "C" size_t anchor_proof_size();
#ifdef ANCHOR_CUZK
extern "C" RErr generate_groth16_proofs_c(const cuzk_bp_assignment *, size_t, const cuzk_bp_fr *r,
                                          const cuzk_bp_fr *s, void *proofs, SRSHandle &, void *gpu_mtx,
                                          int gpu_index);
static const char *VARIANT = "cuzk";
#else
extern "C" RErr generate_groth16_proofs_c(const cuzk_bp_assignment *, size_t, const cuzk_bp_fr *r,
                                          const cuzk_bp_fr *s, void *proofs, SRSHandle &);
static const char *VARIANT = "upstream";
#endif

using clk = std::chrono::steady_clock;
static double secs(clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); }

static double status_gib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double v = 0;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n))
            v = strtod(line + n, nullptr) / 1048576.0;
    if (f)
        fclose(f);
    return v;
}

// Montgomery -> standard form of a BLS12-381 scalar (REDC with 1), as the
// 32 little-endian bytes the bellperson verifier takes.
static void fr_to_bytes(uint8_t out[32], const cuzk_bp_fr &x)
{
    static const uint64_t R[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                  0x73eda753299d7d48ull};
    const uint64_t INV = 0xfffffffeffffffffull; // -r^-1 mod 2^64
    uint64_t t[5] = {x.l[0], x.l[1], x.l[2], x.l[3], 0};
    for (int i = 0; i < 4; i++) {
        uint64_t m = t[0] * INV;
        unsigned __int128 c = (unsigned __int128)m * R[0] + t[0];
        uint64_t carry = (uint64_t)(c >> 64);
        for (int j = 1; j < 4; j++) {
            c = (unsigned __int128)m * R[j] + t[j] + carry;
            t[j - 1] = (uint64_t)c;
            carry = (uint64_t)(c >> 64);
        }
        c = (unsigned __int128)t[4] + carry;
        t[3] = (uint64_t)c;
        t[4] = (uint64_t)(c >> 64);
    }
    // t < 2r: one conditional subtraction
    bool ge = t[4] != 0;
    if (!ge) {
        ge = true;
        for (int j = 3; j >= 0; j--)
            if (t[j] != R[j]) {
                ge = t[j] > R[j];
                break;
            }
    }
    if (ge) {
        unsigned __int128 b = 0;
        for (int j = 0; j < 4; j++) {
            unsigned __int128 d = (unsigned __int128)t[j] - R[j] - (uint64_t)b;
            t[j] = (uint64_t)d;
            b = (d >> 64) ? 1 : 0;
        }
    }
    for (int i = 0; i < 32; i++)
        out[i] = (uint8_t)(t[i / 8] >> (8 * (i % 8)));
}

[[noreturn]] static void usage(const char *msg)
{
    fprintf(stderr, "Error: %s\nusage: supraseal_porep --params P --lg LG [--seed S] [--circuits N] [--reps R] "
                    "[--shared]\n",
            msg);
    exit(1);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, nullptr, _IOLBF, 0);
    std::string params;
    unsigned lg = 0;
    uint64_t seed = 1;
    size_t nc = 1;
    int reps = 3;
    bool shared = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto nxt = [&]() -> const char * {
            if (i + 1 >= argc)
                usage((a + " needs a value").c_str());
            return argv[++i];
        };
        if (a == "--params")
            params = nxt();
        else if (a == "--lg")
            lg = (unsigned)atoi(nxt());
        else if (a == "--seed")
            seed = strtoull(nxt(), nullptr, 0);
        else if (a == "--circuits")
            nc = (size_t)atoi(nxt());
        else if (a == "--reps")
            reps = atoi(nxt());
        else if (a == "--shared")
            shared = true;
        else
            usage(("unknown argument " + a).c_str());
    }
    if (params.empty() || lg < 10 || lg > 27 || nc < 1 || reps < 1)
        usage("--params and --lg 10..27 are required; --circuits, --reps >= 1");
    if (anchor_proof_size() != sizeof(cuzk_bp_proof)) {
        fprintf(stderr, "Error: supraseal-c2's proof is %zu bytes, bellperson's Proof<Bls12> %zu\n",
                anchor_proof_size(), sizeof(cuzk_bp_proof));
        return 10;
    }
    printf("CONFIG variant=%s lg=%u seed=%llu circuits=%zu reps=%d shared=%d params=%s\n", VARIANT, lg,
           (unsigned long long)seed, nc, reps, (int)shared, params.c_str());

    auto t0 = clk::now();
    SRSHandle srs{nullptr};
    RErr e = create_SRS(srs, params.c_str(), false);
    if (e.code) {
        fprintf(stderr, "Error: %s: create_SRS failed: %d %s\n", params.c_str(), e.code, e.msg ? e.msg : "");
        return 3;
    }
    auto t1 = clk::now();
    anchor_srs_wait(srs);
    auto t2 = clk::now();
    printf("SRS_LOAD create_SRS=%.2fs wait_for_read=%.2fs total=%.2fs host_hwm=%.2f GiB\n", secs(t0, t1),
           secs(t1, t2), secs(t0, t2), status_gib("VmHWM:"));

    cuzk_error err;
    memset(&err, 0, sizeof err);
    cuzk_ctx *ctx = nullptr;
    cuzk_bp_circuit *circ = nullptr;
    auto t3 = clk::now();
    if (cuzk_ctx_create(&ctx, nullptr, &err) || cuzk_bp_circuit_porep(&circ, ctx, lg, seed, &err)) {
        fprintf(stderr, "Error: %s\n", err.msg);
        return err.code ? err.code : 10;
    }
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(circ);
    std::vector<cuzk_bp_assignment> prov(nc, *a);
    std::vector<std::vector<cuzk_bp_fr>> copies;
    for (size_t k = 1; k < nc && !shared; k++) {
        auto dup = [&](const cuzk_bp_fr *p, size_t n) {
            copies.emplace_back(p, p + n);
            return copies.back().data();
        };
        prov[k].a = dup(a->a, a->abc_size);
        prov[k].b = dup(a->b, a->abc_size);
        prov[k].c = dup(a->c, a->abc_size);
        prov[k].inp = dup(a->inp, a->inp_size);
        prov[k].aux = dup(a->aux, a->aux_size);
    }
    auto t4 = clk::now();
    printf("ASSIGNMENT %.2fs (%zu constraints, %zu inputs, %zu aux; %zu copies) host_hwm=%.2f GiB\n", secs(t3, t4),
           a->abc_size, a->inp_size, a->aux_size, shared ? (size_t)1 : nc, status_gib("VmHWM:"));

    std::vector<cuzk_bp_fr> r(nc), s(nc);
    for (size_t k = 0; k < nc; k++) { // small Montgomery values (any value < r will do)
        r[k] = cuzk_bp_fr{{0x9e3779b97f4a7c15ull * (k + 1), k + 7, 0, 0}};
        s[k] = cuzk_bp_fr{{0xbf58476d1ce4e5b9ull * (k + 3), k + 9, 0, 0}};
    }
    std::vector<cuzk_bp_proof> proofs(nc);
    std::vector<double> ts;
    for (int rep = -1; rep < reps; rep++) {
        auto pa = clk::now();
#ifdef ANCHOR_CUZK
        RErr pe = generate_groth16_proofs_c(prov.data(), nc, r.data(), s.data(), proofs.data(), srs, nullptr, -1);
#else
        RErr pe = generate_groth16_proofs_c(prov.data(), nc, r.data(), s.data(), proofs.data(), srs);
#endif
        auto pb = clk::now();
        if (pe.code) {
            printf("PROVE FAILED code=%d %s\n", pe.code, pe.msg ? pe.msg : "");
            return 4;
        }
        printf("PROVE variant=%s circuits=%zu rep=%d wall=%.3fs host_rss=%.2f GiB\n", VARIANT, nc, rep, secs(pa, pb),
               status_gib("VmRSS:"));
        if (rep >= 0)
            ts.push_back(secs(pa, pb));
    }
    std::sort(ts.begin(), ts.end());
    const double med = ts[ts.size() / 2];

    // every proof against the file's verifying key, with the circuit's inputs
    cuzk_bp_verifying_key *vk = nullptr;
    std::vector<uint8_t> pb(nc * 192), in(nc * (a->inp_size - 1) * 32);
    int ok = !cuzk_bp_verifying_key_load(&vk, ctx, params.c_str(), &err);
    for (size_t k = 0; ok && k < nc; k++) {
        ok = !cuzk_bp_proof_to_bytes(&proofs[k], &pb[k * 192], &err);
        for (size_t i = 1; i < a->inp_size; i++)
            fr_to_bytes(&in[(k * (a->inp_size - 1) + i - 1) * 32], a->inp[i]);
    }
    if (ok)
        ok = !cuzk_bp_verify_bytes(ctx, vk, pb.data(), nc, in.data(), a->inp_size - 1, &err);
    printf("VERIFY %s%s%s\n", ok ? "ok" : "FAILED", ok ? "" : ": ", ok ? "" : err.msg);
    printf("SUMMARY variant=%s lg=%u circuits=%zu median=%.3fs min=%.3fs max=%.3fs per_circuit=%.3fs load=%.2fs "
           "host_hwm=%.2fGiB rss_anon=%.2fGiB verified=%s\n",
           VARIANT, lg, nc, med, ts.front(), ts.back(), med / (double)nc, secs(t0, t2), status_gib("VmHWM:"),
           status_gib("RssAnon:"), ok ? "yes" : "no");
    cuzk_bp_verifying_key_free(vk);
    cuzk_bp_circuit_free(circ);
    cuzk_ctx_free(ctx);
    return ok ? 0 : 5;
}
