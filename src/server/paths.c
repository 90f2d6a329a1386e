/* File paths named by clients (key_path, witness_path, POST /v1/keys): a
 * client may name a file only inside the configured directories (keys.dirs,
 * witness.dirs) or, with server.local_files, one its own user on this
 * machine can read. The user of a Unix-socket client comes from its peer
 * credentials (SO_PEERCRED); the user of a TCP client on this machine is the
 * owner of its socket in /proc/net/tcp{,6} (what identd reads). A refused
 * path gets one message whether the file exists or not, and nothing of its
 * content; files are opened without following a final symlink and without
 * blocking (a FIFO or a device never holds a request thread) and must be
 * regular files of a bounded size. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* Is the resolved path abs readable by uid, every directory above it
 * searchable? */
static int user_can_read(uid_t uid, const char *abs)
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
    if (stat(abs, &st) || !user_may(uid, groups, ng, &st, 4))
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

/* Is abs inside one of the comma-separated directories? */
static int inside_dirs(const char *abs, const char *dirs)
{
    char list[CUZK_CFG_LIST_MAX], *save = NULL;
    snprintf(list, sizeof list, "%s", dirs);
    for (char *d = strtok_r(list, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
        while (*d == ' ' || *d == '\t')
            d++;
        size_t n = strlen(d);
        while (n && (d[n - 1] == ' ' || d[n - 1] == '\t'))
            d[--n] = 0;
        char real[PATH_MAX];
        if (!*d || !realpath(d, real))
            continue;
        n = strlen(real);
        if (!strncmp(abs, real, n) && (abs[n] == '/' || (n == 1 && real[0] == '/')))
            return 1;
    }
    return 0;
}

cuzk_status client_path(const char *path, const char *what, const char *dirs, const char *dirs_name,
                        int have_user, uid_t uid, char abs[PATH_MAX], cuzk_error *err)
{
    /* One answer for every refusal: it must not tell whether a file exists. */
    if (!path || !*path || strlen(path) >= PATH_MAX || !realpath(path, abs) ||
        !(inside_dirs(abs, dirs) || (have_user && user_can_read(uid, abs))))
        return cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_FORBIDDEN,
                              "%s '%.200s': no such file, or not one this client may name (%s%s)", what,
                              path ? path : "", dirs_name,
                              have_user ? ", or a file its own user can read" : "");
    return CUZK_OK;
}

cuzk_status client_open(const char *abs, const char *what, uint64_t max_bytes, int *fd_out, uint64_t *size,
                        cuzk_error *err)
{
    *fd_out = -1;
    int fd = open(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        int en = errno;
        if (fd >= 0)
            close(fd);
        return cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_FORBIDDEN, "%s '%.200s': cannot be opened (%s)", what,
                              abs, en == ELOOP ? "a symbolic link" : strerror(en));
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
