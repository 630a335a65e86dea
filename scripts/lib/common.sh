# shellcheck shell=bash
# Shared helpers for scripts/quickstart and scripts/test. Source it; do not run it.
#
# Everything here is idempotent: a second run on a prepared machine installs
# nothing, reconfigures nothing that did not change, and lets ninja + ccache
# skip work already done.

# The system packages Quiver builds against (Debian 12 names).
# shellcheck disable=SC2034  # used by the scripts that source this file
QUIVER_APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  flatbuffers-compiler libflatbuffers-dev libcli11-dev libfmt-dev
  libzstd-dev liblz4-dev zlib1g-dev libsnappy-dev libbrotli-dev libfast-float-dev libxxhash-dev
  libgtest-dev libbenchmark-dev nlohmann-json3-dev
  libpg-query-dev libprotobuf-dev protobuf-compiler libssl-dev
  libgrpc++-dev protobuf-compiler-grpc libsodium-dev
  libedit-dev libre2-dev libsqlite3-dev libavro-dev
  clang libclang-rt-14-dev
  tzdata
)

QUIVER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Parallelism for builds and ctest; on the 2-core CI machine this is 2.
QUIVER_JOBS="${QUIVER_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# ccache: hash paths relative to the checkout so a fresh clone of the repo in
# another directory (what CI does) still hits the cache built by earlier runs.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$QUIVER_ROOT}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs "$@" as root (directly, or through sudo when we are not root).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

# ensure_apt_packages PKG...: installs whichever of PKG are not installed yet.
# Runs `apt-get update` only when something is missing, so a prepared machine
# never touches the network.
ensure_apt_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" != "installed" ]; then
      missing+=("$pkg")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 ||
    die "missing packages (${missing[*]}) and no apt-get; install them by hand"
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Quiet on success; on failure, show apt's whole output.
  local out
  if ! out=$(as_root apt-get update -qq 2>&1 &&
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" 2>&1); then
    printf '%s\n' "$out" >&2
    die "apt-get failed to install: ${missing[*]}"
  fi
}

# configure_build DIR [CMAKE_ARGS...]: configures a Ninja build in DIR.
# CMake is always re-run: with an existing cache it only checks the arguments
# and is quick, and it picks up option changes between runs.
configure_build() {
  local dir="$1"
  shift
  log "configure $dir"
  cmake -S "$QUIVER_ROOT" -B "$QUIVER_ROOT/$dir" -G Ninja "$@" >/dev/null
}

# build DIR [TARGET...]: builds DIR with ninja (ccache is picked up by CMake).
build() {
  local dir="$1"
  shift
  log "build $dir${*:+ ($*)}"
  cmake --build "$QUIVER_ROOT/$dir" -j "$QUIVER_JOBS" ${1:+--target "$@"}
}
