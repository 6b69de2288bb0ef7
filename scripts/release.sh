#!/usr/bin/env bash
# Builds a release from a tag: one archive per platform (tar.gz, zip for
# Windows), SHA256SUMS and SHA256SUMS.sig, into dist/TAG. The same tag and
# Go version give the same bytes on any machine (docs/release.md).
#
#   LOGBOOK_RELEASE_KEY=/path/release.key ./scripts/release.sh v1.2.3
#
# The key is the project's release key (PKCS#8 PEM, made once with
# logbook-seal --new-key FILE); its public half is docs/release-key.pub.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: LOGBOOK_RELEASE_KEY=FILE $0 TAG (docs/release.md)"
case "${1:-}" in -h|--help) echo "$usage"; exit 0;; esac
if [ $# -ne 1 ] || [ -z "${LOGBOOK_RELEASE_KEY:-}" ]; then
  echo "$usage" >&2
  exit 2
fi
go run ./tools/release -key "$LOGBOOK_RELEASE_KEY" -o "dist/$1" "$1"
if [ -f docs/release-key.pub ]; then
  go run ./tools/release verify -key docs/release-key.pub "dist/$1"
else
  echo "scripts/release.sh: no docs/release-key.pub in this checkout: the signature was not checked against the published key" >&2
  exit 1
fi
