#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds a small program
# against the installed header and library through pkg-config, both shared and
# static, as a user of libcuzk would. Usage: check_install.sh <build-dir>
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig"
pkg-config --exists cuzk
test -x "$prefix/bin/cuzk"
"$prefix/bin/cuzk" version | grep -q "cuzk "
cat > "$prefix/app.c" <<'C'
#include <cuzk/cuzk.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    cuzk_ctx *ctx = NULL;
    cuzk_error err = {0};
    cuzk_ctx_opts o = {.threads = 1};
    if (cuzk_ctx_create(&ctx, &o, &err) != CUZK_OK)
        return 1;
    /* A missing file must come back as an error value naming the file. */
    cuzk_status st = cuzk_prove_files(ctx, "/nonexistent.zkey", "/nonexistent.wtns", "/tmp/p.json",
                                      "/tmp/q.json", NULL, &err);
    cuzk_ctx_free(ctx);
    if (st != CUZK_ERR_IO || !strstr(err.msg, "/nonexistent.zkey"))
        return 2;
    printf("cuzk %s via pkg-config: %s\n", cuzk_version(), cuzk_curve_name(CUZK_CURVE_BLS12_381));
    return 0;
}
C
libdir=$(pkg-config --variable=libdir cuzk)
cc -std=c11 -Wall -Werror "$prefix/app.c" $(pkg-config --cflags --libs cuzk) -Wl,-rpath,"$libdir" -o "$prefix/app_shared"
"$prefix/app_shared"
cc -std=c11 -Wall -Werror "$prefix/app.c" $(pkg-config --cflags cuzk) "$libdir/libcuzk.a" \
   $(pkg-config --static --libs cuzk | sed 's/-lcuzk\b//') -o "$prefix/app_static"
"$prefix/app_static"
echo "install + pkg-config: OK"
