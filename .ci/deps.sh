#!/bin/sh
# Installs the Debian packages hlotools needs, if any is missing.
set -e
PKGS="build-essential pkg-config libyaml-dev libcjson-dev libgraphviz-dev graphviz zlib1g-dev
llvm-14-tools python3 python3-numpy python3-pytest python3-pip python3-setuptools clang-14 libclang-rt-14-dev valgrind chromium libsleef-dev
libopenblas-dev libopenmpi-dev openmpi-bin
libdnnl-dev"
missing=""
for p in $PKGS; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y $missing
fi
