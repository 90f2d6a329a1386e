/* File paths named by clients (key_path, witness_path, POST /v1/keys): a
 * client may name a file only inside the configured directories (keys.dirs,
 * witness.dirs) or, with server.local_files, one its own user on this
 * machine can read. The user of a Unix-socket client comes from its peer
 * credentials (SO_PEERCRED); the user of a TCP client on this machine is the
 * owner of its socket in /proc/net/tcp{,6} (what identd reads). A refused
 * path gets one message whether the file exists or not, and nothing of its
 * content. A file is opened relative to a descriptor of the directory that
 * allows it, with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) on the
 * path below it as resolved (a per-component O_NOFOLLOW walk where the
 * kernel lacks openat2): a directory swapped for a symbolic link between
 * the check and the open cannot lead outside. Files are opened without
 * blocking (a FIFO or a device never holds a request thread) and must be
 * regular files of a bounded size. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <limits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/server_internal.h"
#include "util/common.h"

/* The owner of the local TCP socket (local = la:lport, remote = ra:rport)
 * in /proc/net/tcp or tcp6; 0 when found. */
static int proc_tcp_owner(const struct sockaddr *client, const struct sockaddr *server, uid_t *uid)
{
    char want_l[64], want_r[64];
    const char *table;
    if (client->sa_family == AF_INET && server->sa_family == AF_INET) {
        const struct sockaddr_in *c = (const void *)client, *s = (const void *)server;
        uint32_t ca, sa;
        memcpy(&ca, &c->sin_addr, 4);
        memcpy(&sa, &s->sin_addr, 4);
        snprintf(want_l, sizeof want_l, "%08X:%04X", ca, ntohs(c->sin_port));
        snprintf(want_r, sizeof want_r, "%08X:%04X", sa, ntohs(s->sin_port));
        table = "/proc/net/tcp";
    } else if (client->sa_family == AF_INET6 && server->sa_family == AF_INET6) {
        const struct sockaddr_in6 *c = (const void *)client, *s = (const void *)server;
        uint32_t cw[4], sw[4];
        memcpy(cw, &c->sin6_addr, 16);
        memcpy(sw, &s->sin6_addr, 16);
        snprintf(want_l, sizeof want_l, "%08X%08X%08X%08X:%04X", cw[0], cw[1], cw[2], cw[3], ntohs(c->sin6_port));
        snprintf(want_r, sizeof want_r, "%08X%08X%08X%08X:%04X", sw[0], sw[1], sw[2], sw[3], ntohs(s->sin6_port));
        table = "/proc/net/tcp6";
    } else {
        return -1;
    }
    FILE *f = fopen(table, "re");
    if (!f)
        return -1;
    char line[512];
    int found = -1;
    while (found && fgets(line, sizeof line, f)) {
        char l[64], r[64];
        unsigned long u;
        if (sscanf(line, " %*s %63s %63s %*s %*s %*s %*s %lu", l, r, &u) == 3 && !strcmp(l, want_l) &&
            !strcmp(r, want_r)) {
            *uid = (uid_t)u;
            found = 0;
        }
    }
    fclose(f);
    return found;
}

int client_local_user(int fd, const struct sockaddr *client, uid_t *uid)
{
    if (fd < 0)
        return -1;
    if (!client || client->sa_family == AF_UNIX || client->sa_family == AF_UNSPEC) {
        struct ucred cr;
        socklen_t len = sizeof cr;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) || len != sizeof cr)
            return -1;
        *uid = cr.uid;
        return 0;
    }
    struct sockaddr_storage self;
    socklen_t sl = sizeof self;
    if (getsockname(fd, (struct sockaddr *)&self, &sl))
        return -1;
    return proc_tcp_owner(client, (const struct sockaddr *)&self, uid);
}

/* May user uid (with its groups) do `bits` (4 read, 1 search) on st? */
static int user_may(uid_t uid, const gid_t *groups, int ngroups, const struct stat *st, unsigned bits)
{
    if (uid == 0)
        return 1;
    if (st->st_uid == uid)
        return ((st->st_mode >> 6) & bits) == bits;
    for (int i = 0; i < ngroups; i++)
        if (groups[i] == st->st_gid)
            return ((st->st_mode >> 3) & bits) == bits;
    return (st->st_mode & bits) == bits;
}

/* Is the opened file (st) readable by uid, every directory above its
 * resolved path abs searchable? */
static int user_can_read(uid_t uid, const char *abs, const struct stat *file)
{
    gid_t groups[256];
    int ng = 256;
    struct passwd pw, *pp = NULL;
    char buf[4096];
    if (uid != 0) {
        if (getpwuid_r(uid, &pw, buf, sizeof buf, &pp) || !pp)
            ng = 0; /* a user without an entry: "other" permissions only */
        else if (getgrouplist(pp->pw_name, pp->pw_gid, groups, &ng) < 0)
            ng = 0;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", abs);
    struct stat st;
    if (!user_may(uid, groups, ng, file, 4))
        return 0;
    for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
        slash[slash == dir] = 0; /* "/a/b" -> "/a" -> "/" */
        if (stat(dir, &st) || !user_may(uid, groups, ng, &st, 1))
            return 0;
        if (slash == dir)
            break;
    }
    return 1;
}

/* openat2(2) through syscall(): glibc may lack the wrapper. */
static int sys_openat2(int dirfd, const char *path, int flags, uint64_t resolve)
{
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)flags;
    how.resolve = resolve;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    (void)dirfd, (void)path, (void)flags, (void)resolve;
    errno = ENOSYS;
    return -1;
#endif
}

/* The fallback: one component at a time, none a symbolic link, none "." or
 * "..", each directory opened O_PATH relative to the one before. */
static int walk_beneath(int dirfd, const char *rel, int flags)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", rel) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int cur = dup(dirfd);
    if (cur < 0)
        return -1;
    char *save = NULL, *comp = strtok_r(buf, "/", &save);
    if (!comp) {
        close(cur);
        errno = ENOENT;
        return -1;
    }
    while (comp) {
        char *next = strtok_r(NULL, "/", &save);
        if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
            close(cur);
            errno = EXDEV;
            return -1;
        }
        int fd = next ? openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                      : openat(cur, comp, flags | O_NOFOLLOW);
        int en = errno;
        close(cur);
        if (fd < 0) {
            errno = en;
            return -1;
        }
        cur = fd;
        comp = next;
    }
    return cur;
}

int open_beneath(int dirfd, const char *rel, int flags, int walk)
{
    if (!walk) {
        int fd = sys_openat2(dirfd, rel, flags,
                             RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
            return fd;
    }
    return walk_beneath(dirfd, rel, flags);
}

/* Flags of a client-named file: read-only, never blocking (a FIFO or a
 * device cannot hold the thread), no controlling terminal. */
#define CLIENT_OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* Opens abs (resolved, without symlinks) beneath one of the comma-separated
 * directories: each is opened, and the rest of abs below it opened
 * relative to that descriptor (open_beneath), so a directory swapped for a
 * symbolic link after the check cannot lead outside. An fd, or -1. */
static int open_inside_dirs(const char *abs, const char *dirs)
{
    char list[CUZK_CFG_LIST_MAX], *save = NULL;
    snprintf(list, sizeof list, "%s", dirs);
    for (char *d = strtok_r(list, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
        while (*d == ' ' || *d == '\t')
            d++;
        size_t n = strlen(d);
        while (n && (d[n - 1] == ' ' || d[n - 1] == '\t'))
            d[--n] = 0;
        if (!*d)
            continue;
        int dfd = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
            continue;
        /* The directory's own path, from the descriptor (not resolved again). */
        char link[64], real[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dfd);
        ssize_t rl = readlink(link, real, sizeof real - 1);
        if (rl <= 0 || real[0] != '/') {
            close(dfd);
            continue;
        }
        real[rl] = 0;
        n = (size_t)rl;
        const char *rel = NULL;
        if (n == 1)
            rel = abs + 1;
        else if (!strncmp(abs, real, n) && abs[n] == '/')
            rel = abs + n + 1;
        int fd = rel && *rel ? open_beneath(dfd, rel, CLIENT_OPEN_FLAGS, 0) : -1;
        close(dfd);
        if (fd >= 0)
            return fd;
    }
    return -1;
}

/* Opens abs for a local client's user: no symlink on the way (abs is
 * resolved: one now means a swap), the file readable by that user and every
 * directory above it searchable. An fd, or -1. */
static int open_for_user(const char *abs, uid_t uid)
{
    int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return -1;
    int fd = abs[0] == '/' && abs[1] ? open_beneath(root, abs + 1, CLIENT_OPEN_FLAGS, 0) : -1;
    close(root);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) || !user_can_read(uid, abs, &st)) {
        close(fd);
        return -1;
    }
    return fd;
}

cuzk_status client_file(const char *path, const char *what, const char *dirs, const char *dirs_name,
                        int have_user, uid_t uid, uint64_t max_bytes, char abs[PATH_MAX], int *fd_out,
                        uint64_t *size, cuzk_error *err)
{
    *fd_out = -1;
    *size = 0;
    /* One answer for every refusal: it must not tell whether a file exists. */
    int fd = -1;
    if (path && *path && strlen(path) < PATH_MAX && realpath(path, abs)) {
        fd = open_inside_dirs(abs, dirs);
        if (fd < 0 && have_user)
            fd = open_for_user(abs, uid);
    }
    if (fd < 0)
        return cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_FORBIDDEN,
                              "%s '%.200s': no such file, or not one this client may name (%s%s)", what,
                              path ? path : "", dirs_name,
                              have_user ? ", or a file its own user can read" : "");
    struct stat st;
    if (fstat(fd, &st)) {
        int en = errno;
        close(fd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s '%.200s': %s", what, abs, strerror(en));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s '%.200s': not a regular file", what, abs);
    }
    if ((uint64_t)st.st_size > max_bytes) {
        close(fd);
        return cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_TOO_LARGE,
                              "%s '%.200s': %llu bytes, over the limit of %llu (server.max_request_bytes)", what,
                              abs, (unsigned long long)st.st_size, (unsigned long long)max_bytes);
    }
    /* Regular: reads never block; clear O_NONBLOCK all the same. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    *fd_out = fd;
    *size = (uint64_t)st.st_size;
    return CUZK_OK;
}

cuzk_status client_read(int fd, const char *abs, const char *what, void *buf, uint64_t size, cuzk_error *err)
{
    uint64_t got = 0;
    while (got < size) {
        ssize_t n = pread(fd, (char *)buf + got, size - got > (1u << 30) ? (1u << 30) : (size_t)(size - got),
                          (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return cuzk_err_force(err, CUZK_ERR_IO, "%s '%.200s': %s", what, abs,
                                  n < 0 ? strerror(errno) : "shorter than it was (changed while read)");
        got += (uint64_t)n;
    }
    return CUZK_OK;
}

void scrub_file_content(char *msg)
{
    /* The format parsers quote a wrong magic number ("wrong magic \"root\""):
     * a daemon does not echo bytes of a client-named file. */
    char *q = strstr(msg, "wrong magic \"");
    if (!q)
        return;
    char *open_q = q + 12, *close_q = strchr(open_q + 1, '"');
    if (!close_q)
        return;
    memmove(open_q - 1, close_q + 1, strlen(close_q + 1) + 1);
}
