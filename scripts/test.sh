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
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# MariaDB for the transparency log's MySQL driver (internal/translog
# TestMySQL): installed from Debian if missing, started privately on
# 127.0.0.1, stopped on exit.
eval "$(./scripts/mariadb.sh start)"
report=$(mktemp)
trap 'rm -f "$report"; ./scripts/mariadb.sh stop "$MARIADB_DIR"' EXIT
# A new report path each run also keeps go test from answering the browser
# tests from its cache.
# The report is printed whatever go test says: on a failure too, the lines
# naming what did not run belong with it.
status=0
# go test's own limit is 10 minutes per package, which a loaded 2-core
# machine can reach: the suite's is set here, well inside CI's 90 minutes
# for both of .ci/run's modes. -parallel 4: most e2e tests wait on other
# processes (a browser, a harness, a server), so four share two cores
# well. Either may be given again (the last one wins).
LOGBOOK_TEST_REPORT="$report" go test -timeout 30m -parallel 4 "$@" ./... || status=$?
echo
cat "$report"
exit $status
