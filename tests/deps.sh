#!/bin/sh
# Make sure the build and test dependencies are present.  Installs them with
# apt-get when running as root on a Debian-like system; otherwise prints the
# exact command to run.  "deps.sh probe" does the same for Open MPI, which
# only commtime-probe needs.
pkgs=""
want="libgsl-dev libcsv-dev libyajl-dev zlib1g-dev gnuplot-nox pkg-config"
[ "$1" = probe ] && want="openmpi-bin libopenmpi-dev"
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
command -v dpkg-query >/dev/null 2>&1 || exit 0
for p in $want; do
	have_pkg "$p" || pkgs="$pkgs $p"
done
# gnuplot from another package (gnuplot-qt, gnuplot-x11) serves as well.
case "$pkgs" in
*gnuplot-nox*) command -v gnuplot >/dev/null 2>&1 &&
	pkgs=$(echo "$pkgs" | sed 's/ gnuplot-nox//') ;;
esac
[ -z "$pkgs" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing:$pkgs"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >/dev/null ||
		{ echo "apt-get failed; run: apt-get install$pkgs" >&2; exit 1; }
else
	echo "missing packages:$pkgs" >&2
	echo "run: sudo apt-get install$pkgs" >&2
	exit 1
fi
