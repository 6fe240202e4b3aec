#!/bin/sh
# Installer for tinyagent.
#
#   curl --proto '=https' --tlsv1.2 -fsSL https://<host>/install.sh | sh                     # latest release
#   curl --proto '=https' --tlsv1.2 -fsSL https://<host>/install.sh | sh -s -- v1.2.3        # a given release
#   curl --proto '=https' --tlsv1.2 -fsSL https://<host>/install.sh | sh -s -- --uninstall   # remove it again
#
# Every download, redirects included, is https only, with TLS 1.2 at least (as
# rustup's installer does); a TINYAGENT_DOWNLOAD_URL that is not https is
# refused unless it is on this machine (a loopback address, or file:///).
#
# Downloads the release archive for this machine, checks it against the
# release's SHA256SUMS, verifies its build provenance with
# `gh attestation verify` when gh is installed, and puts the `tinyagent`
# binary in $TINYAGENT_INSTALL_DIR (default: $HOME/.local/bin). That binary is
# the only file it writes: no receipt, no shell profile edits. Never uses sudo
# and never prompts.
#
# Environment:
#   TINYAGENT_VERSION           version to install when no argument is given
#                               (v1.2.3 or 1.2.3; default: the latest release)
#   TINYAGENT_INSTALL_DIR       directory to install into (default: $HOME/.local/bin)
#   TINYAGENT_REPO              GitHub owner/name (default: $TINYAGENT_DEFAULT_REPO),
#                               the repository the attestation must name
#   TINYAGENT_DOWNLOAD_URL      releases base URL, for mirrors
#                               (default: https://github.com/$TINYAGENT_REPO/releases);
#                               https, or else http on a loopback address
#                               (127.x.x.x, localhost, [::1]) or a file:/// URL
#   TINYAGENT_NO_MODIFY_PATH    set to 1 to print no PATH advice (for CI and
#                               managed machines; the profile is never edited anyway)
#   TINYAGENT_SKIP_ATTESTATION  set to 1 to install on the checksum alone even
#                               when gh is installed (when gh cannot reach GitHub)
#   NO_COLOR                    set to anything to turn colour off
#
# Test hooks (for the installer's own tests; leave unset otherwise):
#   TINYAGENT_UNAME_S            used instead of `uname -s`
#   TINYAGENT_UNAME_M            used instead of `uname -m`
#   TINYAGENT_PROC_TRANSLATED    used instead of `sysctl -n sysctl.proc_translated`
#                                (1 = running under Rosetta 2)
#
# The whole script is made of functions and only does something on its last
# line, so a download cut off half-way runs nothing.

set -eu

TINYAGENT_DEFAULT_REPO="tinyagent/tinyagent"
TINYAGENT_RELAY_URL="https://relay.example.test"

# --- output -----------------------------------------------------------------

setup_colour() {
	C_RED=""
	C_YELLOW=""
	C_BOLD=""
	C_RESET=""
	if [ -t 1 ] && [ -t 2 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != "dumb" ]; then
		C_RED=$(printf '\033[31m')
		C_YELLOW=$(printf '\033[33m')
		C_BOLD=$(printf '\033[1m')
		C_RESET=$(printf '\033[0m')
	fi
}

# Progress and errors go to stderr; only the final summary goes to stdout.
info() {
	printf 'tinyagent-install: %s\n' "$*" >&2
}

warn() {
	printf '%stinyagent-install: warning:%s %s\n' "$C_YELLOW" "$C_RESET" "$*" >&2
}

die() {
	printf '%stinyagent-install: error:%s %s\n' "$C_RED" "$C_RESET" "$*" >&2
	exit 1
}

usage() {
	cat >&2 <<EOF
usage: install.sh [VERSION]
       install.sh --uninstall

Installs tinyagent (the latest release, or VERSION such as v1.2.3) into
\$TINYAGENT_INSTALL_DIR (default: \$HOME/.local/bin), or removes it from there.
EOF
}

# --- temporary files ----------------------------------------------------------

TMP_DIR=""
INSTALL_TMP=""

cleanup() {
	if [ -n "$INSTALL_TMP" ]; then
		rm -f "$INSTALL_TMP"
		INSTALL_TMP=""
	fi
	if [ -n "$TMP_DIR" ]; then
		rm -rf "$TMP_DIR"
		TMP_DIR=""
	fi
}

on_signal() {
	cleanup
	trap - EXIT
	exit "$1"
}

make_tmp_dir() {
	trap cleanup EXIT
	trap 'on_signal 129' HUP
	trap 'on_signal 130' INT
	trap 'on_signal 143' TERM
	TMP_DIR=$(mktemp -d 2>/dev/null || mktemp -d -t tinyagent) ||
		die "could not create a temporary directory"
	[ -d "$TMP_DIR" ] || die "could not create a temporary directory"
}

# --- environment --------------------------------------------------------------

has() {
	command -v "$1" >/dev/null 2>&1
}

# Whether an opt-in variable's value turns it on: anything but empty or 0.
flag_on() {
	case ${1:-} in
	"" | 0) return 1 ;;
	esac
	return 0
}

# Sets REPO to the GitHub owner/name the release (and its attestation) belongs to.
resolve_repo() {
	REPO=${TINYAGENT_REPO:-$TINYAGENT_DEFAULT_REPO}
	case $REPO in
	*/*/* | /* | */ | *[!A-Za-z0-9_./-]*) ;;
	*/*) return 0 ;;
	esac
	die "TINYAGENT_REPO is '$REPO', not a GitHub owner/name such as $TINYAGENT_DEFAULT_REPO"
}

releases_url() {
	base=${TINYAGENT_DOWNLOAD_URL:-https://github.com/$REPO/releases}
	# Drop trailing slashes so "<base>/download/..." stays well formed.
	while [ "${base%/}" != "$base" ]; do
		base=${base%/}
	done
	printf '%s\n' "$base"
}

# Sets HTTPS_ONLY to 1, unless TINYAGENT_DOWNLOAD_URL names this machine (plain
# http to a loopback address, as the installer's own tests serve their fake
# releases, or a file:/// URL, as the release workflow installs from its
# files): then to 0, and the downloads are not limited to https. Any other URL
# that is not https is refused.
check_download_url() {
	HTTPS_ONLY=1
	case $BASE_URL in
	https://*) return 0 ;;
	file:///*)
		HTTPS_ONLY=0
		return 0
		;;
	http://*) ;;
	*) refuse_download_url ;;
	esac
	# The authority (host and port) is everything up to the path, query or
	# fragment. It must be exactly a loopback host with at most a port: no
	# user@, no character but [0-9a-z.:[]] (with a newline, grep would match one
	# line of it), no octet above 255 or with a leading zero (which a resolver
	# may send to DNS, or read as octal).
	authority=${BASE_URL#http://}
	authority=${authority%%[/?#]*}
	case $authority in
	"" | *[!]0-9a-z.:[]*) refuse_download_url ;;
	esac
	octet='(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
	printf '%s\n' "$authority" |
		grep -Eq "^(localhost|127\.$octet\.$octet\.$octet|\[::1\])(:[0-9]{1,5})?\$" ||
		refuse_download_url
	HTTPS_ONLY=0
}

refuse_download_url() {
	die "TINYAGENT_DOWNLOAD_URL is '${TINYAGENT_DOWNLOAD_URL:-$BASE_URL}', not an https:// URL; nothing was installed. Only a mirror on this machine may use plain http (http://127.0.0.1, http://localhost or http://[::1], with any port) or file:///"
}

# Sets TARGET to the Rust-style target triple of the release asset to use.
detect_target() {
	os=${TINYAGENT_UNAME_S:-$(uname -s)}
	arch=${TINYAGENT_UNAME_M:-$(uname -m)}

	case $os in
	Linux) os_part="unknown-linux-gnu" ;;
	Darwin) os_part="apple-darwin" ;;
	*) unsupported "$os" "$arch" ;;
	esac

	case $arch in
	x86_64 | amd64) arch_part="x86_64" ;;
	arm64 | aarch64) arch_part="aarch64" ;;
	*) unsupported "$os" "$arch" ;;
	esac

	# An x86_64 shell on Apple silicon runs under Rosetta 2: use the native build.
	if [ "$os" = "Darwin" ] && [ "$arch_part" = "x86_64" ]; then
		translated=${TINYAGENT_PROC_TRANSLATED:-$(sysctl -n sysctl.proc_translated 2>/dev/null || true)}
		if [ "$translated" = "1" ]; then
			info "running under Rosetta 2; installing the native arm64 build"
			arch_part="aarch64"
		fi
	fi

	TARGET="${arch_part}-${os_part}"
}

# Deno publishes Linux builds for glibc only, so tinyagent's cannot start on a
# musl system (Alpine, Void's musl flavour): say so instead of installing one.
check_libc() {
	[ "$os" = "Linux" ] || return 0
	if has ldd; then
		# musl's ldd says "musl libc" (on stderr, exit 1); glibc's names glibc.
		case $(ldd --version 2>&1 </dev/null || true) in
		*[Mm]usl*) refuse_musl ;;
		esac
	else
		for loader in /lib/ld-musl-*; do
			[ -e "$loader" ] && refuse_musl
		done
	fi
	return 0
}

refuse_musl() {
	die "this Linux uses musl libc (as Alpine does), and tinyagent's Linux builds need glibc: Deno publishes glibc builds only, so the binary could not start here; nothing was installed. Use a glibc-based system or container (Debian, Ubuntu, Fedora, ...)"
}

unsupported() {
	die "unsupported platform: $1/$2 (tinyagent is built for Linux and macOS on x86_64 and arm64); see $(releases_url) for the available builds"
}

# Sets DOWNLOADER to curl or wget.
pick_downloader() {
	if has curl; then
		DOWNLOADER=curl
	elif has wget; then
		DOWNLOADER=wget
		# BusyBox's wget has none of these, so it cannot be held to https.
		wget_help=$(wget --help 2>&1 || true)
		for option in --https-only --secure-protocol --max-redirect --server-response; do
			case $wget_help in
			*"$option"*) ;;
			*) die "this wget has no $option option (is it BusyBox's?), so its downloads cannot be limited to https; install curl or GNU wget and try again" ;;
			esac
		done
	else
		die "neither curl nor wget was found; install one of them and try again"
	fi
}

# Sets SHA_TOOL to the command that prints a file's SHA-256.
pick_sha_tool() {
	if has sha256sum; then
		SHA_TOOL=sha256sum
	elif has shasum; then
		SHA_TOOL=shasum
	else
		die "neither sha256sum nor shasum was found, so the download cannot be checked; install one of them (coreutils or perl) and try again"
	fi
}

# curl, limited to https with TLS 1.2 at least unless HTTPS_ONLY is 0. --proto
# also holds for redirects: --proto-redir could only narrow it further, and a
# redirect to http:// fails ("Protocol "http" not supported or disabled").
tls_curl() {
	if [ "$HTTPS_ONLY" = 1 ]; then
		curl --proto '=https' --tlsv1.2 "$@"
	else
		curl "$@"
	fi
}

# wget, likewise. --secure-protocol=TLSv1_2 is a minimum for GNU wget with
# GnuTLS or a recent OpenSSL (TLS 1.3 is still used); builds on an OpenSSL
# older than 1.1.0 speak exactly TLS 1.2, which GitHub serves too. Unlike
# curl's --proto, --https-only holds only for links followed in recursive mode:
# wget 1.x follows a redirect to http:// all the same. So wget_fetch never lets
# wget follow a redirect.
tls_wget() {
	if [ "$HTTPS_ONLY" = 1 ]; then
		wget --https-only --secure-protocol=TLSv1_2 "$@"
	else
		wget "$@"
	fi
}

# wget_fetch URL FILE: downloads URL into FILE and prints the URL it finally
# came from. Each redirect is followed by hand, one request at a time, and
# only to an https:// URL unless HTTPS_ONLY is 0.
wget_fetch() {
	wget_url=$1
	wget_hops=0
	while :; do
		wget_status=0
		# -S shows the response's headers (indented, on stderr, even with -q);
		# a redirect not followed makes wget exit 8.
		wget_log=$(tls_wget -q -S --max-redirect=0 -O "$2" "$wget_url" 2>&1) || wget_status=$?
		if [ "$wget_status" -eq 0 ]; then
			printf '%s\n' "$wget_url"
			return 0
		fi
		wget_location=$(printf '%s\n' "$wget_log" | tr -d '\r' |
			sed -n 's/^[[:space:]][[:space:]]*[Ll][Oo][Cc][Aa][Tt][Ii][Oo][Nn]:[[:space:]]*\([^[:space:]]*\).*/\1/p' |
			tail -n 1)
		# Not a redirect: a plain failure, which the caller reports.
		[ -n "$wget_location" ] || return "$wget_status"
		wget_hops=$((wget_hops + 1))
		if [ "$wget_hops" -gt 20 ]; then
			warn "more than 20 redirects from $1"
			return 1
		fi
		case $wget_location in
		http://* | https://*) ;;
		//*) wget_location="${wget_url%%//*}$wget_location" ;;
		/*)
			wget_rest=${wget_url#*://}
			wget_location="${wget_url%%://*}://${wget_rest%%[/?#]*}$wget_location"
			;;
		*)
			warn "cannot follow the redirect from $wget_url to '$wget_location'"
			return 1
			;;
		esac
		if [ "$HTTPS_ONLY" = 1 ]; then
			case $wget_location in
			https://*) ;;
			*)
				warn "refused the redirect from $wget_url to $wget_location: downloads are https only"
				return 1
				;;
			esac
		fi
		wget_url=$wget_location
	done
}

# download URL FILE
download() {
	case $DOWNLOADER in
	curl) tls_curl -fsSL --retry 2 -o "$2" "$1" ;;
	wget) wget_fetch "$1" "$2" >/dev/null ;;
	esac
}

# Prints the URL that `<base>/latest` redirects to.
latest_redirect() {
	case $DOWNLOADER in
	curl) tls_curl -sSL -o /dev/null -w '%{url_effective}' "$1" ;;
	wget) wget_fetch "$1" /dev/null ;;
	esac
}

# --- version ------------------------------------------------------------------

# normalize_version TEXT -> prints 1.2.3 for v1.2.3 / 1.2.3, or fails.
normalize_version() {
	v=${1#v}
	case $v in
	"" | *[!0-9A-Za-z.+-]*) return 1 ;;
	esac
	printf '%s\n' "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$' || return 1
	printf '%s\n' "$v"
}

# Sets VERSION.
resolve_version() {
	requested=${1:-${TINYAGENT_VERSION:-}}
	if [ -n "$requested" ]; then
		VERSION=$(normalize_version "$requested") ||
			die "not a version: '$requested' (expected something like v1.2.3 or 1.2.3)"
		return 0
	fi

	info "looking up the latest release at $BASE_URL/latest"
	if ! final_url=$(latest_redirect "$BASE_URL/latest"); then
		die "could not reach $BASE_URL/latest to find the latest release"
	fi
	case $final_url in
	*/tag/*) tag=${final_url##*/tag/} ;;
	*) die "could not find the latest release: $BASE_URL/latest did not redirect to a release tag (got '${final_url:-nothing}'); pass a version, e.g. 'sh -s -- v1.2.3'" ;;
	esac
	tag=${tag%%[?#]*}
	tag=${tag%/}
	VERSION=$(normalize_version "$tag") ||
		die "the latest release tag '$tag' does not look like a version"
}

# --- download and check -----------------------------------------------------------

# Prints the SHA-256 listed for asset $2 in sums file $1 (empty when absent).
expected_sum() {
	awk -v name="$2" '$2 == name || $2 == "*" name { print tolower($1); exit }' "$1"
}

actual_sum() {
	case $SHA_TOOL in
	sha256sum) sha256sum "$1" ;;
	shasum) shasum -a 256 "$1" ;;
	esac | awk '{ print tolower($1) }'
}

fetch_and_verify() {
	ASSET="tinyagent-${VERSION}-${TARGET}.tar.gz"
	dl_url="$BASE_URL/download/v$VERSION"
	archive="$TMP_DIR/$ASSET"
	sums="$TMP_DIR/SHA256SUMS"

	info "downloading $dl_url/$ASSET"
	download "$dl_url/$ASSET" "$archive" ||
		die "could not download $dl_url/$ASSET (is v$VERSION a release with a $TARGET build? see $BASE_URL)"

	download "$dl_url/SHA256SUMS" "$sums" ||
		die "could not download $dl_url/SHA256SUMS, so the archive cannot be checked; nothing was installed"

	want=$(expected_sum "$sums" "$ASSET")
	[ -n "$want" ] ||
		die "SHA256SUMS of v$VERSION has no checksum for $ASSET; nothing was installed"
	case $want in
	*[!0-9a-f]*) die "SHA256SUMS of v$VERSION has a malformed checksum for $ASSET; nothing was installed" ;;
	esac
	[ "${#want}" -eq 64 ] ||
		die "SHA256SUMS of v$VERSION has a malformed checksum for $ASSET; nothing was installed"

	got=$(actual_sum "$archive") || die "could not compute the checksum of $ASSET"
	if [ "$got" != "$want" ]; then
		die "checksum mismatch for $ASSET: expected $want, got $got; the download is corrupt or was tampered with, nothing was installed"
	fi
	info "checksum verified ($want)"

	verify_provenance

	mkdir "$TMP_DIR/extract"
	tar -xzf "$archive" -C "$TMP_DIR/extract" || die "could not unpack $ASSET"
	NEW_BIN="$TMP_DIR/extract/tinyagent"
	[ -f "$NEW_BIN" ] || die "$ASSET does not contain a tinyagent binary"
}

# A checksum served next to the archive proves nothing if both were replaced.
# The attestation does: a Sigstore-signed statement, made by $REPO's release
# workflow, about the archive's SHA-256. gh checks it against the bundle the
# release carries (no login needed), or else fetches it from GitHub's API.
verify_provenance() {
	by_hand="gh attestation verify $ASSET --repo $REPO"
	if flag_on "${TINYAGENT_SKIP_ATTESTATION:-}"; then
		warn "TINYAGENT_SKIP_ATTESTATION is set, so the build provenance of $ASSET was not verified (its checksum was); to verify it by hand: $by_hand"
		return 0
	fi
	if ! has gh; then
		info "gh is not installed, so the build provenance of $ASSET was not verified (its checksum was); to verify it by hand: $by_hand"
		return 0
	fi

	bundle_name="tinyagent-${VERSION}.intoto.jsonl"
	set -- "$archive" --repo "$REPO"
	if download "$dl_url/$bundle_name" "$TMP_DIR/$bundle_name" 2>/dev/null; then
		set -- "$@" --bundle "$TMP_DIR/$bundle_name"
	fi
	info "checking the build provenance of $ASSET with gh"
	gh_status=0
	gh attestation verify "$@" </dev/null >"$TMP_DIR/gh.log" 2>&1 || gh_status=$?
	if [ "$gh_status" -eq 0 ]; then
		info "build provenance verified: $ASSET was built by $REPO's release workflow"
		return 0
	fi
	sed 's/^/  gh: /' "$TMP_DIR/gh.log" >&2
	case $gh_status in
	4) hint="gh is not logged in and this release has no attestation bundle: run 'gh auth login' and try again" ;;
	*) hint="the archive may have been tampered with (or this gh is too old to have 'gh attestation': see its output above)" ;;
	esac
	die "gh attestation verify could not confirm that $ASSET was built by $REPO's release workflow (exit $gh_status); $hint. Nothing was installed. Only if gh cannot reach GitHub from here, TINYAGENT_SKIP_ATTESTATION=1 installs on the checksum alone"
}

# --- install --------------------------------------------------------------------

# Sets dir to the install directory as given (not created, not resolved).
install_dir() {
	dir=${TINYAGENT_INSTALL_DIR:-}
	if [ -z "$dir" ]; then
		[ -n "${HOME:-}" ] || die "HOME is not set; set TINYAGENT_INSTALL_DIR to choose where to install"
		dir="$HOME/.local/bin"
	fi
}

# Sets INSTALLED to the absolute path of the installed binary.
install_binary() {
	install_dir
	mkdir -p "$dir" || die "could not create $dir"
	INSTALL_DIR=$(cd "$dir" && pwd) || die "could not enter $dir"
	INSTALLED="$INSTALL_DIR/tinyagent"
	if [ -d "$INSTALLED" ]; then
		die "$INSTALLED is a directory; remove it or choose another TINYAGENT_INSTALL_DIR"
	fi

	# Copy next to the target, then rename over it: the rename is atomic, so a
	# running or concurrently started tinyagent never sees a half-written file.
	INSTALL_TMP="$INSTALL_DIR/.tinyagent.install.$$"
	cp "$NEW_BIN" "$INSTALL_TMP" || die "could not write to $INSTALL_DIR (is it writable?)"
	chmod 755 "$INSTALL_TMP" || die "could not make $INSTALL_TMP executable"
	mv -f "$INSTALL_TMP" "$INSTALLED" || die "could not replace $INSTALLED"
	INSTALL_TMP=""
	info "installed $INSTALLED"
}

# Prints a YAML scalar for $1, quoted when it needs to be.
yaml_scalar() {
	case $1 in
	"" | *[!A-Za-z0-9_./-]*)
		printf '"%s"\n' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"
		;;
	*) printf '%s\n' "$1" ;;
	esac
}

# Prints $1 quoted for a POSIX shell when it needs to be.
shell_word() {
	case $1 in
	"" | *[!A-Za-z0-9_./-]*)
		printf "'%s'\n" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
		;;
	*) printf '%s\n' "$1" ;;
	esac
}

# Escapes $1 for use inside double quotes in a shell profile.
dq_escape() {
	printf '%s\n' "$1" | sed 's/[\\"$`]/\\&/g'
}

on_path() {
	case ":${PATH:-}:" in
	*":$1:"* | *":$1/:"*) return 0 ;;
	esac
	return 1
}

# Prints the name of the profile file in $HOME that the user's shell reads.
profile_hint() {
	case ${SHELL:-} in
	*/zsh) printf '%s\n' .zshrc ;;
	*/fish) printf '%s\n' .config/fish/config.fish ;;
	*/bash)
		if [ "${os:-}" = "Darwin" ]; then
			printf '%s\n' .bash_profile
		else
			printf '%s\n' .bashrc
		fi
		;;
	*) printf '%s\n' .profile ;;
	esac
}

print_summary() {
	printf '\n%stinyagent %s installed to %s%s\n' "$C_BOLD" "$VERSION" "$INSTALLED" "$C_RESET"

	if ! flag_on "${TINYAGENT_NO_MODIFY_PATH:-}" && ! on_path "$INSTALL_DIR"; then
		shown_dir=$(dq_escape "$INSTALL_DIR")
		if [ -n "${HOME:-}" ]; then
			case $INSTALL_DIR in
			"$HOME"/*) shown_dir="\$HOME/$(dq_escape "${INSTALL_DIR#"$HOME"/}")" ;;
			esac
		fi
		printf '\n%s is not on your PATH. Add this line to ~/%s (or your shell'"'"'s profile):\n\n' \
			"$INSTALL_DIR" "$(profile_hint)"
		case ${SHELL:-} in
		*/fish) printf '  fish_add_path "%s"\n' "$shown_dir" ;;
		*) printf '  export PATH="%s:%s"\n' "$shown_dir" "\$PATH" ;;
		esac
		printf '\nthen open a new terminal.\n'
	fi

	printf '\nTo use it from Hermes, add this to your Hermes config:\n\n'
	printf 'mcp_servers:\n'
	printf '  tiny:\n'
	printf '    command: %s\n' "$(yaml_scalar "$INSTALLED")"
	printf '    args: ["mcp", "--relay", "%s"]\n' "$TINYAGENT_RELAY_URL"
	printf '    env:\n'
	printf '      TINY_PRIVATE_KEY: "%s"\n' "\${TINY_PRIVATE_KEY}"
	printf '\nCreate a key with:\n\n'
	printf '  %s keygen >> ~/.hermes/.env\n\n' "$(shell_word "$INSTALLED")"
}

check_installed() {
	if ! VERSION_OUTPUT=$("$INSTALLED" --version 2>&1 </dev/null); then
		die "installed $INSTALLED, but '$INSTALLED --version' failed: $VERSION_OUTPUT"
	fi
	# The first line is "tinyagent <version>"; target, Deno and commit follow.
	newline='
'
	if [ "${VERSION_OUTPUT%%"$newline"*}" != "tinyagent $VERSION" ]; then
		warn "expected 'tinyagent $VERSION', but '$INSTALLED --version' printed: $VERSION_OUTPUT"
	fi
}

# Removes what an install wrote: the binary, and nothing else (there is nothing else).
uninstall() {
	install_dir
	bin="$dir/tinyagent"
	if [ -d "$bin" ]; then
		die "$bin is a directory, not tinyagent; nothing was removed"
	elif [ -e "$bin" ] || [ -L "$bin" ]; then
		rm -f "$bin" || die "could not remove $bin"
		printf 'removed %s\n' "$bin"
	else
		printf 'tinyagent is not installed in %s, so nothing was removed (set TINYAGENT_INSTALL_DIR to where you installed it)\n' "$dir"
	fi
	printf 'install.sh writes nothing else; the key you created (the TINY_PRIVATE_KEY line in ~/.hermes/.env) and your MCP host configuration are yours to remove.\n'
}

# --- main ---------------------------------------------------------------------

main() {
	setup_colour
	if [ "$#" -gt 1 ]; then
		usage
		die "expected at most one argument (a version, or --uninstall), got $#"
	fi
	case ${1:-} in
	-h | --help)
		usage
		exit 0
		;;
	--uninstall)
		uninstall
		exit 0
		;;
	-*)
		usage
		die "unknown option: $1"
		;;
	esac

	resolve_repo
	BASE_URL=$(releases_url)
	check_download_url
	detect_target
	check_libc
	pick_downloader
	pick_sha_tool
	has tar || die "tar was not found; install it and try again"
	resolve_version "${1:-}"
	info "installing tinyagent $VERSION for $TARGET"

	make_tmp_dir
	fetch_and_verify
	install_binary
	check_installed
	print_summary
	printf '%s\n' "$VERSION_OUTPUT"
}

main "$@"
