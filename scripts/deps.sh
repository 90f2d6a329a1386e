#!/usr/bin/env bash
# Installs what cuzk needs to build and test on a fresh Debian machine:
# Debian packages (compiler, CMake, cJSON, cmocka, clang for the fuzzers, SQLite,
# inih and OpenSSL's libcrypto for the engine, libpq for its PostgreSQL queue and
# the PostgreSQL server its tests start, libmicrohttpd and libcurl for the
# daemon's server and client (and the witnesses hosts fetch from each other), curl
# and Chromium for the daemon tests), cargo for the supraseal-c2 crate's tests
# (Debian's, where there is none), python3 (the src/names.tags check,
# scripts/gen_*.py) and the npm
# test tools pinned by package-lock.json (snarkjs, circom2, @noble/curves).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential cmake pkg-config libcjson-dev libcmocka-dev clang nodejs npm
      libsqlite3-dev libinih-dev libssl-dev libpq-dev postgresql libmicrohttpd-dev libcurl4-openssl-dev
      curl chromium sqlite3 cargo python3)
missing=()
for p in "${pkgs[@]}"; do
  # nodejs/npm may come from elsewhere (e.g. a newer Node on PATH): only install if absent.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
    clang) command -v clang >/dev/null 2>&1 && continue ;;
    cargo) command -v cargo >/dev/null 2>&1 && continue ;;
    python3) command -v python3 >/dev/null 2>&1 && continue ;;
  esac
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing Debian packages: ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm packages exactly as locked; reinstall only when the lockfile changed.
stamp=node_modules/.cuzk-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "deps: installing npm packages from package-lock.json" >&2
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  cp package-lock.json "$stamp"
fi
