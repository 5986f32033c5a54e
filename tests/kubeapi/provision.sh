#!/usr/bin/env bash
# Provision a real kube-apiserver (1.20.2, built from Debian bookworm's source
# package) and etcd for the tests in tests/kubeapi/.
#
# Idempotent; meant to run as root on Debian bookworm (CI runs it on a fresh
# machine). The built binary is cached outside the clone, under
#   ${KUBEGAP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/incident-library}/kube-apiserver-1.20.2/
# so only the first run pays for the build (about 6 minutes on 2 cores).
#
# Steps (each skipped when its result already exists):
#   1. apt-get install golang-go rsync etcd-server golang-github-modern-go-reflect2-dev
#      (plus make and dpkg-dev, which the build uses, and openssl, which the tests use).
#   2. A deb-src entry for bookworm main on the mirror apt is already configured
#      with, in a private apt directory (the system's sources are left alone);
#      apt-get source --download-only kubernetes (1.20.5+really1.20.2).
#   3. dpkg-source -x; vendor/github.com/modern-go/reflect2 replaced by Debian's
#      1.0.2 (the vendored 1.0.1 crashes the API server under Go >= 1.18 with
#      "fatal error: fault" in mapiterinit).
#   4. make WHAT=cmd/kube-apiserver; the binary is copied into the cache and the
#      build tree removed (KUBEGAP_KEEP_BUILD=1 keeps it).
#
# Prints the paths the tests use at the end. Exit status is non-zero, with a
# message naming the failed step, on any failure.
set -euo pipefail

K8S_VERSION="1.20.2"
DEB_VERSION_PATTERN="1.20.5+really1.20.2"
SUITE="bookworm"
APT_PACKAGES=(golang-go rsync etcd-server golang-github-modern-go-reflect2-dev make dpkg-dev openssl)

CACHE_ROOT="${KUBEGAP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/incident-library}"
BIN_DIR="$CACHE_ROOT/kube-apiserver-$K8S_VERSION"
BIN="$BIN_DIR/kube-apiserver"
APT_DIR="$CACHE_ROOT/apt-src"
DOWNLOAD_DIR="$CACHE_ROOT/kubernetes-source"
BUILD_DIR="$CACHE_ROOT/kubernetes-build"

STEP="start"
log() { printf '[provision %(%H:%M:%S)T] %s\n' -1 "$*"; }
die() { printf '[provision] ERROR during "%s": %s\n' "$STEP" "$*" >&2; exit 1; }
trap 'rc=$?; if [ $rc -ne 0 ]; then printf "[provision] FAILED during \"%s\" (exit %d); see the output above\n" "$STEP" "$rc" >&2; fi' EXIT

binary_ok() {
    [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qx "Kubernetes v$K8S_VERSION"
}

install_packages() {
    STEP="apt packages"
    local missing=() pkg
    for pkg in "${APT_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "apt packages already installed: ${APT_PACKAGES[*]}"
        return
    fi
    [ "$(id -u)" -eq 0 ] || die "packages missing (${missing[*]}) and not running as root"
    log "apt-get update"
    apt-get update -q
    log "apt-get install -y ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The mirror that serves bookworm main for binary packages, as apt is configured
# here (one-line or deb822 sources alike).
detect_mirror() {
    if [ -n "${KUBEGAP_DEBIAN_MIRROR:-}" ]; then
        echo "$KUBEGAP_DEBIAN_MIRROR"
        return
    fi
    apt-get indextargets --no-release-info \
        --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(TARGET_OF)' 2>/dev/null \
        | awk -v suite="$SUITE" '$2 == suite && $3 == "main" && $4 == "deb" { print $1; exit }'
}

download_source() {
    STEP="download kubernetes source"
    # apt-get source checks files already in $DOWNLOAD_DIR against the signed index and fetches
    # only what is missing, so an interrupted download is completed, not trusted.
    local dsc mirror keyring
    mirror=$(detect_mirror)
    [ -n "$mirror" ] || die "no apt source for '$SUITE main' is configured (see /etc/apt/sources.list*); set KUBEGAP_DEBIAN_MIRROR"
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    [ -r "$keyring" ] || die "$keyring is missing (package debian-archive-keyring)"
    log "private deb-src entry: $mirror $SUITE main (in $APT_DIR)"
    mkdir -p "$APT_DIR/sources.list.d" "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
    : > "$APT_DIR/sources.list"
    cat > "$APT_DIR/sources.list.d/$SUITE-src.sources" <<EOF
Types: deb-src
URIs: $mirror
Suites: $SUITE
Components: main
Signed-By: $keyring
EOF
    local apt_opts=(
        -o "Dir::Etc::SourceList=$APT_DIR/sources.list"
        -o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d"
        -o "Dir::State::Lists=$APT_DIR/lists"
        -o "Dir::Cache=$APT_DIR/cache"
    )
    log "apt-get update (private source index)"
    apt-get "${apt_opts[@]}" update -q
    mkdir -p "$DOWNLOAD_DIR"
    log "apt-get source --download-only kubernetes (into $DOWNLOAD_DIR; present files are kept)"
    (cd "$DOWNLOAD_DIR" && apt-get "${apt_opts[@]}" source --download-only kubernetes)
    dsc=$(find "$DOWNLOAD_DIR" -maxdepth 1 -name "kubernetes_${DEB_VERSION_PATTERN}*.dsc" | head -n1)
    [ -n "$dsc" ] || die "downloaded kubernetes source is not version $DEB_VERSION_PATTERN: $(ls "$DOWNLOAD_DIR")"
}

prepare_tree() {
    STEP="unpack kubernetes source"
    local dsc reflect2_dir
    dsc=$(find "$DOWNLOAD_DIR" -maxdepth 1 -name "kubernetes_${DEB_VERSION_PATTERN}*.dsc" | head -n1)
    # Always unpack afresh: a tree left by an interrupted run is not trusted.
    rm -rf "$BUILD_DIR"
    mkdir -p "$(dirname "$BUILD_DIR")"
    log "dpkg-source -x $(basename "$dsc")"
    dpkg-source --no-copy -x "$dsc" "$BUILD_DIR" >/dev/null
    [ -f "$BUILD_DIR/vendor/github.com/modern-go/reflect2/reflect2.go" ] \
        || die "unpacked source has no vendor/github.com/modern-go/reflect2"

    STEP="replace vendored reflect2"
    reflect2_dir=$(dpkg -L golang-github-modern-go-reflect2-dev \
        | grep -E '/github.com/modern-go/reflect2/reflect2.go$' | head -n1 | xargs -r dirname)
    [ -n "$reflect2_dir" ] || die "dpkg -L golang-github-modern-go-reflect2-dev lists no reflect2.go"
    log "vendor/github.com/modern-go/reflect2 <- $reflect2_dir (without go.mod)"
    rsync -a --delete --exclude go.mod --exclude go.sum \
        "$reflect2_dir/" "$BUILD_DIR/vendor/github.com/modern-go/reflect2/"
}

build() {
    STEP="make WHAT=cmd/kube-apiserver"
    log "go: $(go version)"
    log "make WHAT=cmd/kube-apiserver in $BUILD_DIR (about 6 minutes on 2 cores)"
    local start=$SECONDS
    # Everything the build needs is vendored; GOPROXY=off makes a missing
    # module fail here instead of reaching for the network.
    (cd "$BUILD_DIR" && GOPROXY=off GOFLAGS=-mod=vendor make WHAT=cmd/kube-apiserver)
    log "build took $((SECONDS - start)) s"
    [ -x "$BUILD_DIR/_output/bin/kube-apiserver" ] || die "_output/bin/kube-apiserver was not produced"

    STEP="cache binary"
    mkdir -p "$BIN_DIR"
    cp "$BUILD_DIR/_output/bin/kube-apiserver" "$BIN.tmp"
    mv -f "$BIN.tmp" "$BIN"
    binary_ok || die "$BIN --version does not report Kubernetes v$K8S_VERSION"
    {
        echo "kube-apiserver v$K8S_VERSION built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "source: $(basename "$(find "$DOWNLOAD_DIR" -maxdepth 1 -name '*.dsc' | head -n1)")"
        echo "reflect2: $(dpkg-query -W -f='${Version}' golang-github-modern-go-reflect2-dev)"
        echo "go: $(go version)"
    } > "$BIN_DIR/PROVENANCE"
    if [ "${KUBEGAP_KEEP_BUILD:-0}" != "1" ]; then
        log "removing build tree $BUILD_DIR (set KUBEGAP_KEEP_BUILD=1 to keep it)"
        rm -rf "$BUILD_DIR"
    fi
}

main() {
    mkdir -p "$CACHE_ROOT"
    exec 9>"$CACHE_ROOT/.provision.lock"
    STEP="lock"
    flock -w 3600 9 || die "another provision.sh holds $CACHE_ROOT/.provision.lock"

    install_packages
    STEP="check etcd"
    command -v etcd >/dev/null || die "etcd is not on PATH after installing etcd-server"

    STEP="check cached kube-apiserver"
    if binary_ok; then
        log "cached kube-apiserver v$K8S_VERSION found: $BIN (no build needed)"
    else
        [ -e "$BIN" ] && log "cached $BIN is not v$K8S_VERSION; rebuilding"
        download_source
        prepare_tree
        build
    fi
    STEP="done"
    log "ready: kube-apiserver=$BIN etcd=$(command -v etcd)"
    log "tests find the binary there (or via KUBEGAP_KUBE_APISERVER=$BIN)"
}

main "$@"
