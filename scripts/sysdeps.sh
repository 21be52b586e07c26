#!/usr/bin/env bash
# System packages scorekit's full install and test suite need, from Debian:
#   wordnet-base + wordnet-sense-index  WordNet 3.0 for METEOR's synonym stage (/usr/share/wordnet)
#   default-jre-headless                Java: konlpy's Okt for `scorekit caption --recipe spec`, and
#                                       pycocoevalcap's PTBTokenizer/METEOR (test oracles)
#   chromium + chromium-driver          headless browser for the HTML report tests
#   fonts-nanum                         a Korean font, so reports/PNG plots show Hangul in the browser tests
# Installs only what is missing; needs root (or prints what to install).
set -u
pkgs=(wordnet-base wordnet-sense-index chromium chromium-driver fonts-nanum)
command -v java >/dev/null 2>&1 || pkgs+=(default-jre-headless)
need=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "scorekit: missing system packages: ${need[*]}" >&2
  echo "          install them as root: apt-get install -y ${need[*]}" >&2
  exit 0
fi
echo "installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
