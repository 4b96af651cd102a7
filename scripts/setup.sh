#!/usr/bin/env bash
# refcheck setup: installs every build and test dependency from Debian's archive.
# Idempotent: when everything is present it only checks and returns.
#
# Unicorn: Debian 12 ships libunicorn 2.0.1, whose guest memory stores run ~37x slower
# than 2.1.x. Debian 13 ("trixie") ships libunicorn-dev 2.1.1, which installs on Debian 12
# (it needs only libc6 >= 2.34). We add the trixie suite with the same mirror URI as the
# machine's configured Debian source, pin it at priority 100 so nothing else comes from it,
# and install libunicorn-dev from it. If that fails we fall back to 2.0.1, loudly.
set -euo pipefail

PKGS=(build-essential cmake pkg-config ninja-build
      libcapstone-dev liblief-dev nlohmann-json3-dev libgtest-dev libgmock-dev
      gcc-mingw-w64-i686 binutils-mingw-w64-i686
      libcli11-dev libfmt-dev libpng-dev libssl-dev zlib1g-dev
      python3 python3-jsonschema chromium libxml2-utils
      clang-14 lld-14 libclang-rt-14-dev clang-format-14 clang-tidy-14)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

unicorn_version() { dpkg-query -W -f='${Version}' libunicorn-dev 2>/dev/null || true; }
have_unicorn_21() { case "$(unicorn_version)" in 2.1*|2.2*|2.3*) return 0;; *) return 1;; esac; }

apt_updated=0
apt_update() { if [ $apt_updated = 0 ]; then $SUDO apt-get update -qq || true; apt_updated=1; fi; }

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  apt_update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The URI of the machine's own Debian source (deb822 or one-line format), never a literal host.
debian_uri() {
  local f uri=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk '/^URIs:/{u=$2} /^Suites:/{ if ($0 ~ /bookworm([ ]|$)/ && u != "") {print u; exit} }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    uri=$(awk '$1=="deb" && $0 ~ / bookworm / { for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit} }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
}

if ! have_unicorn_21; then
  uri=$(debian_uri || true)
  ok=0
  if [ -n "$uri" ]; then
    echo "setup: adding the trixie suite from $uri, pinned at priority 100, for libunicorn-dev 2.1"
    $SUDO tee /etc/apt/sources.list.d/refcheck-trixie.sources >/dev/null <<SRC
Types: deb
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    $SUDO tee /etc/apt/preferences.d/refcheck-trixie >/dev/null <<PIN
Package: *
Pin: release n=trixie
Pin-Priority: 100
PIN
    apt_updated=0; apt_update
    if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -t trixie libunicorn-dev; then
      have_unicorn_21 && ok=1
    fi
  fi
  if [ $ok = 0 ]; then
    if [ -z "$(unicorn_version)" ]; then
      apt_update
      $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libunicorn-dev
    fi
    cat >&2 <<WARN
################################################################################
# setup: WARNING: could not install libunicorn-dev 2.1 from trixie.
# Using libunicorn-dev $(unicorn_version): guest memory STORES WILL BE ~37x SLOWER.
# Everything works, but the default run and the benchmarks will take much longer.
################################################################################
WARN
  fi
fi
echo "setup: ok (libunicorn-dev $(unicorn_version))"
