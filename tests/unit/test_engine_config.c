/* The daemon's settings table: every default parses, the INI file and flags
 * set fields by section.name / flag / bare name, bad values and unknown
 * settings are refused with the file and line, and a failed load leaves the
 * configuration unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/engine.h"

static void test_defaults(void **state)
{
    size_t n;
    const cuzk_setting *t = cuzk_config_settings(&n);
    assert_true(n > 10);
    cuzk_config c;
    for (size_t i = 0; i < n; i++) {
        cuzk_error e = {0};
        char full[128];
        snprintf(full, sizeof full, "%s.%s", t[i].section, t[i].name);
        cuzk_config_init(&c);
        assert_int_equal(cuzk_config_set(&c, full, t[i].def, &e), CUZK_OK);
        assert_non_null(t[i].help);
        assert_true(strlen(t[i].help) > 10);
    }
    cuzk_config_init(&c);
    assert_string_equal(c.listen, "127.0.0.1:9820");
    assert_string_equal(c.state_dir, "cuzk-state");
    assert_int_equal(c.cpu_workers, 1);
    assert_int_equal(c.workers_per_device, 2);
    assert_int_equal(c.msm_copies, 0);
    assert_int_equal(c.stage_bases, 0);
    assert_true(c.retention_s == 3600.0);
    assert_true(c.drain_timeout_s == 60.0);
    assert_int_equal(c.max_spool_bytes, 16ull << 30);
    assert_int_equal(c.host_memory, 0); /* auto */
}

static void test_set(void **state)
{
    cuzk_config c;
    cuzk_error e = {0};
    cuzk_config_init(&c);
    assert_int_equal(cuzk_config_set(&c, "engine.cpu_workers", "4", &e), CUZK_OK);
    assert_int_equal(c.cpu_workers, 4);
    assert_int_equal(cuzk_config_set(&c, "state-dir", "/tmp/x", &e), CUZK_OK);
    assert_string_equal(c.state_dir, "/tmp/x");
    assert_int_equal(cuzk_config_set(&c, "retention", "2m", &e), CUZK_OK);
    assert_true(c.retention_s == 120.0);
    assert_int_equal(cuzk_config_set(&c, "drain-timeout", "250ms", &e), CUZK_OK);
    assert_true(c.drain_timeout_s == 0.25);
    assert_int_equal(cuzk_config_set(&c, "memory.host", "1.5GiB", &e), CUZK_OK);
    assert_int_equal(c.host_memory, 3ull << 29);
    assert_int_equal(cuzk_config_set(&c, "host-memory", "512K", &e), CUZK_OK);
    assert_int_equal(c.host_memory, 512 * 1024);

    cuzk_config before = c;
    assert_int_equal(cuzk_config_set(&c, "engine.cpu_workers", "two", &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "engine.cpu_workers"));
    assert_int_equal(cuzk_config_set(&c, "retention", "5 weeks", &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_config_set(&c, "memory.host", "12Q", &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_config_set(&c, "cpu_workers", "-1", &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_config_set(&c, "engine.nope", "1", &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "engine.nope"));
    assert_memory_equal(&before, &c, sizeof c);
}

static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/cuzk_cfg_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void test_load(void **state)
{
    cuzk_config c;
    cuzk_error e = {0};
    cuzk_config_init(&c);
    char *p = write_tmp("; comment\n[engine]\nstate_dir = /var/lib/cuzk\ncpu_workers = 3\n"
                        "[keys]\npreload = /a.zkey,/b.zkey\n[server]\nlisten = 0.0.0.0:1\n");
    assert_int_equal(cuzk_config_load(&c, p, &e), CUZK_OK);
    assert_string_equal(c.state_dir, "/var/lib/cuzk");
    assert_int_equal(c.cpu_workers, 3);
    assert_string_equal(c.preload, "/a.zkey,/b.zkey");
    assert_string_equal(c.listen, "0.0.0.0:1");
    unlink(p);
    free(p);

    cuzk_config before = c;
    p = write_tmp("[engine]\ncpu_workers = 5\nmax_queued = lots\n");
    assert_int_equal(cuzk_config_load(&c, p, &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, p));
    assert_non_null(strstr(e.msg, ":3:"));
    assert_memory_equal(&before, &c, sizeof c); /* cpu_workers = 5 not applied */
    unlink(p);
    free(p);

    p = write_tmp("[enigne]\nstate_dir = x\n");
    assert_int_equal(cuzk_config_load(&c, p, &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "enigne.state_dir"));
    unlink(p);
    free(p);

    assert_int_equal(cuzk_config_load(&c, "/nonexistent/cuzk.ini", &e), CUZK_ERR_IO);
    assert_non_null(strstr(e.msg, "/nonexistent/cuzk.ini"));
}

static void test_format_roundtrip(void **state)
{
    cuzk_config c, d;
    cuzk_error e = {0};
    cuzk_config_init(&c);
    assert_int_equal(cuzk_config_set(&c, "cpu-workers", "7", &e), CUZK_OK);
    assert_int_equal(cuzk_config_set(&c, "retention", "90s", &e), CUZK_OK);
    assert_int_equal(cuzk_config_set(&c, "token", "secret", &e), CUZK_OK);
    char *text = cuzk_config_format(&c);
    assert_non_null(text);
    assert_null(strstr(text, "secret"));
    char *p = write_tmp(text);
    cuzk_config_init(&d);
    assert_int_equal(cuzk_config_load(&d, p, &e), CUZK_OK);
    assert_int_equal(d.cpu_workers, 7);
    assert_true(d.retention_s == 90.0);
    assert_string_equal(d.token, "***");
    unlink(p);
    free(p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_format_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
