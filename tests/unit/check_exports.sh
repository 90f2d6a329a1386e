#!/bin/sh
# The dynamic symbols libcuzk.so defines are exactly the functions declared
# in the public headers, each marked CUZK_API: no symbol without the cuzk_
# prefix, no internal cuzk_ function, none of the public ones missing.
# usage: check_exports.sh <libcuzk.so> <include/cuzk>
set -eu
lib=$1
inc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u > "$tmp/exported"
# function declarations start in column 0 (comments and typedefs do not)
grep -hE '^[A-Za-z][^(;]*\bcuzk_[a-z0-9_]+\(' "$inc"/*.h | grep -v '^typedef' > "$tmp/decl_lines"
sed -E 's/^([^(]*[^a-z0-9_])?(cuzk_[a-z0-9_]+)\(.*/\2/' "$tmp/decl_lines" | sort -u > "$tmp/declared"
status=0
if [ ! -s "$tmp/declared" ]; then
    echo "no function declarations found in $inc"
    exit 1
fi
unmarked=$(grep -v '^CUZK_API ' "$tmp/decl_lines" || true)
if [ -n "$unmarked" ]; then
    echo "public declarations without CUZK_API:"
    echo "$unmarked"
    status=1
fi
other=$(grep -v '^cuzk_' "$tmp/exported" || true)
if [ -n "$other" ]; then
    echo "exported without the cuzk_ prefix:"
    echo "$other"
    status=1
fi
extra=$(grep '^cuzk_' "$tmp/exported" | comm -23 - "$tmp/declared")
if [ -n "$extra" ]; then
    echo "exported but not in the public headers:"
    echo "$extra"
    status=1
fi
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
if [ -n "$missing" ]; then
    echo "declared in the public headers but not exported:"
    echo "$missing"
    status=1
fi
[ $status -eq 0 ] && echo "$(wc -l < "$tmp/exported") exported symbols, all public cuzk_ functions"
exit $status
