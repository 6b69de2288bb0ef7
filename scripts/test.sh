#!/usr/bin/env bash
# The project's test command, on a fresh machine as on CI: installs the
# Debian packages the tests drive (openssl for key interop, chromium for the
# in-browser checker in web/), then runs `go test ./...` and prints what
# the tests measured and which conformance tests did not run for want of
# the public corpora (go test hides the logs of passing tests). Arguments
# go to go test: `./scripts/test.sh -short` is the quick run (no browser,
# no real harnesses, shorter stress trials). The corpora are read from
# $LOGBOOK_CORPORA, else ../shared (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# npm installs the real Claude Code and Gemini CLI (pinned) for e2e/realharness_test.go,
# into $LOGBOOK_NPM_CACHE (default ~/.cache/logbook/npm) on first use.
command -v npm >/dev/null 2>&1 || missing+=(npm)
# GNU time: the benchmarks read a child's peak memory with /usr/bin/time -f %M.
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "scripts/test.sh: missing Debian packages: ${missing[*]} (install them as root: apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
  echo "scripts/test.sh: installing ${missing[*]}"
  # Another apt (unattended-upgrades on a fresh machine) may hold the
  # dpkg lock: wait for it, up to 10 minutes, rather than fail. A package
  # that still cannot be installed stops the run here, before a suite
  # that would run without it.
  if ! apt-get -o DPkg::Lock::Timeout=600 update -qq ||
    ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null; then
    echo "scripts/test.sh: could not install ${missing[*]} (apt-get failed: see above); the tests were not run" >&2
    exit 1
  fi
fi

# MariaDB for the transparency log's MySQL driver (internal/translog
# TestMySQL): installed from Debian if missing, started privately on
# 127.0.0.1, stopped on exit. If it cannot be, the run stops here:
# eval "$(…)" alone would go on without it.
MARIADB_DIR=
report=$(mktemp)
trap 'rm -f "$report"; [ -z "$MARIADB_DIR" ] || ./scripts/mariadb.sh stop "$MARIADB_DIR"' EXIT
if ! db=$(./scripts/mariadb.sh start); then
  echo "scripts/test.sh: could not start MariaDB for the MySQL tests (scripts/mariadb.sh: see above); the tests were not run" >&2
  exit 1
fi
eval "$db"
# A new report path each run also keeps go test from answering the browser
# tests from its cache.
# The report is printed whatever go test says: on a failure too, the lines
# naming what did not run belong with it.
status=0
# go test's own limit is 10 minutes per package, which a loaded 2-core
# machine can reach: the suite's is set here, well inside CI's 90 minutes
# for both of .ci/run's modes. -parallel 4: most e2e tests wait on other
# processes (a browser, a harness, a server), so four share two cores
# well. Either may be given again (the last one wins). Packages given
# (./internal/jcs …) run instead of ./...
#
# gotestsum (pinned; fetched through the Go module proxy and checked
# against go.sum's database like any module) runs go test and prints each
# package as it finishes, the failures in full, and a closing DONE line
# with the count and the time: a full run is about 6 minutes on 2 cores,
# and go test alone said nothing until its end. Its summary of skipped
# tests is left out: the report below names what did not run.
pkgs=(./...)
for a in "$@"; do
  case $a in ./*) pkgs=() ;; esac
done
echo "scripts/test.sh: running the tests (a full run takes about 6 minutes on 2 cores, more the first time; each package is listed as it finishes)"
LOGBOOK_TEST_REPORT="$report" go run gotest.tools/gotestsum@v1.13.0 --format pkgname --hide-summary=skipped -- \
  -timeout 30m -parallel 4 "$@" "${pkgs[@]}" || status=$?
echo
cat "$report"
exit $status
