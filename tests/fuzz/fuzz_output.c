/* The output writer: the input describes a directory (each of four names is
 * missing, a file with old content, a symlink to another name, a directory
 * or a FIFO) and an output set over those names (two or three outputs, an
 * input among them or not, cancelled or not). After the commit: on success
 * every regular output holds its new bytes; on failure every name that was a
 * file holds its old bytes; never a temporary file left; never a crash. */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

static char g_dir[64];

static void path_of(char *buf, size_t cap, int i) { snprintf(buf, cap, "%s/n%d", g_dir, i); }

static void clean(void)
{
    DIR *d = opendir(g_dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
}

static int temporaries(void)
{
    DIR *d = opendir(g_dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    return n;
}

static int read_back(const char *p, char *buf, size_t cap)
{
    FILE *fp = fopen(p, "rb");
    if (!fp)
        return -1;
    size_t n = fread(buf, 1, cap - 1, fp);
    buf[n] = 0;
    fclose(fp);
    return (int)n;
}

static void remove_dir(void)
{
    clean();
    rmdir(g_dir);
}

static int cancel_now(void *user) { return *(const int *)user; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/cuzk-fuzz-out.%d", (int)getpid());
        mkdir(g_dir, 0700);
        atexit(remove_dir);
    }
    clean();
    int kind[4];
    char p[4][128];
    for (int i = 0; i < 4; i++) {
        path_of(p[i], sizeof p[i], i);
        kind[i] = data[i] % 5;
        char old[16];
        snprintf(old, sizeof old, "old %d", i);
        switch (kind[i]) {
        case 1: {
            FILE *fp = fopen(p[i], "wb");
            if (fp) {
                fputs(old, fp);
                fclose(fp);
            }
            break;
        }
        case 2: {
            char t[8];
            snprintf(t, sizeof t, "n%d", (i + 1) % 4);
            if (symlink(t, p[i]) != 0)
                kind[i] = 0;
            break;
        }
        case 3: mkdir(p[i], 0700); break;
        case 4: mkfifo(p[i], 0600); break;
        default: break;
        }
    }
    int n_out = 2 + (data[4] & 1), cancelled = (data[4] >> 1) & 1;
    cuzk_oset s;
    cuzk_oset_init(&s, cancel_now, &cancelled);
    cuzk_error e = {0};
    cuzk_status st = CUZK_OK;
    if (data[4] & 4)
        st = cuzk_oset_input(&s, p[data[5] % 4], &e);
    cuzk_afile *f[3] = {NULL, NULL, NULL};
    int which[3];
    for (int k = 0; k < n_out && !st; k++) {
        which[k] = data[6 + (k & 1)] % 4;
        if (k == 2)
            which[k] = (which[0] + which[1] + 1) % 4;
        st = cuzk_oset_output(&s, p[which[k]], &f[k], &e);
    }
    if (!st)
        st = cuzk_oset_open(&s, &e);
    if (!st) {
        for (int k = 0; k < n_out; k++) {
            char msg[16];
            snprintf(msg, sizeof msg, "new %d", k);
            cuzk_afile_write(f[k], msg, strlen(msg));
        }
        st = cuzk_oset_commit(&s, &e);
    }
    cuzk_oset_abort(&s);
    if (st)
        FUZZ_ASSERT(e.code == st && e.msg[0] && !strchr(e.msg, '\n'));
    FUZZ_ASSERT(temporaries() == 0);
    for (int i = 0; i < 4; i++) {
        struct stat sb;
        char got[64], want[16];
        if (lstat(p[i], &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (read_back(p[i], got, sizeof got) < 0)
            continue;
        if (st) { /* failure: every file that existed is as it was */
            if (kind[i] == 1) {
                snprintf(want, sizeof want, "old %d", i);
                FUZZ_ASSERT(!strcmp(got, want));
            }
        } else { /* success: a regular file written directly by name holds its bytes */
            for (int k = 0; k < n_out; k++)
                if (which[k] == i && kind[i] != 2) {
                    snprintf(want, sizeof want, "new %d", k);
                    FUZZ_ASSERT(!strcmp(got, want));
                }
        }
    }
    return 0;
}
