/* Chrome trace writer: the file parses as JSON (cJSON) with every event from
 * several threads present once, names escaped, over-long names truncated
 * without breaking the JSON, and an unwritable path reported as an I/O error. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>
#include <cmocka.h>

#include "util/trace.h"

#include "fixture_util.h"

enum { THREADS = 4, PER_THREAD = 500 };

typedef struct {
    cuzk_trace *t;
    int tid;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *a = p;
    for (int i = 0; i < PER_THREAD; i++) {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", i);
        const char *args[] = {"i", idx, "quote", "a\"b\\c\n"};
        cuzk_trace_complete(a->t, "prove", "job", 1, a->tid, i * 10.0, 5.0, args, 2);
    }
    return NULL;
}

static void test_threads_and_escaping(void **state)
{
    (void)state;
    char path[] = "/tmp/cuzk-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cuzk_trace *t;
    cuzk_error err = {0};
    assert_int_equal(cuzk_trace_open(&t, path, &err), CUZK_OK);
    cuzk_trace_name_process(t, 1, "gpu \"0\"");
    char longname[5000];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    cuzk_trace_complete(t, longname, NULL, 1, 99, 0, 1, NULL, 0);
    pthread_t th[THREADS];
    worker_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (worker_arg){t, i};
        pthread_create(&th[i], NULL, worker, &args[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(cuzk_trace_count(t), 2 + THREADS * PER_THREAD);
    assert_int_equal(cuzk_trace_close(t, &err), CUZK_OK);

    char *text = slurp(path, NULL);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *evs = cJSON_GetObjectItem(root, "traceEvents");
    assert_true(cJSON_IsArray(evs));
    assert_int_equal(cJSON_GetArraySize(evs), 2 + THREADS * PER_THREAD);
    int seen[THREADS][PER_THREAD];
    memset(seen, 0, sizeof seen);
    int meta = 0, truncated = 0;
    cJSON *ev;
    cJSON_ArrayForEach(ev, evs) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "ph"));
        assert_non_null(ph);
        if (!strcmp(ph, "M")) {
            cJSON *a = cJSON_GetObjectItem(ev, "args");
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(a, "name")), "gpu \"0\"");
            meta++;
            continue;
        }
        int tid = cJSON_GetObjectItem(ev, "tid")->valueint;
        if (tid == 99) {
            const char *nm = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "name"));
            assert_true(strlen(nm) > 1000 && strlen(nm) < 2048);
            truncated++;
            continue;
        }
        assert_true(tid >= 0 && tid < THREADS);
        cJSON *a = cJSON_GetObjectItem(ev, "args");
        int i = atoi(cJSON_GetStringValue(cJSON_GetObjectItem(a, "i")));
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(a, "quote")), "a\"b\\c\n");
        assert_true(i >= 0 && i < PER_THREAD);
        assert_true(fabs(cJSON_GetObjectItem(ev, "ts")->valuedouble - i * 10.0) < 1e-9);
        seen[tid][i]++;
    }
    assert_int_equal(meta, 1);
    assert_int_equal(truncated, 1);
    for (int a = 0; a < THREADS; a++)
        for (int i = 0; i < PER_THREAD; i++)
            assert_int_equal(seen[a][i], 1);
    cJSON_Delete(root);
    free(text);
    unlink(path);
}

static void test_bad_path(void **state)
{
    (void)state;
    cuzk_trace *t = (cuzk_trace *)1;
    cuzk_error err = {0};
    assert_int_equal(cuzk_trace_open(&t, "/nonexistent-dir/x.json", &err), CUZK_ERR_IO);
    assert_null(t);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x.json"));
    /* A NULL trace is a no-op everywhere. */
    cuzk_trace_complete(NULL, "x", "y", 0, 0, 0, 0, NULL, 0);
    assert_int_equal(cuzk_trace_close(NULL, &err), CUZK_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_and_escaping),
        cmocka_unit_test(test_bad_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
