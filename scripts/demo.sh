#!/usr/bin/env bash
# The main job, end to end, on a real Claude Code session:
# build, record every hook event through record-step, seal, verify,
# then tamper with the record and watch each change get refused.
#
#   ./scripts/demo.sh [SESSION]      SESSION: a name in testdata/sessions (default 258c7280)
set -euo pipefail
cd "$(dirname "$0")/.."
session=${1:-258c7280}
events=testdata/sessions/$session.hooks.jsonl
times=testdata/sessions/$session.times
[ -f "$events" ] || { echo "no such session: $events" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/logbook-demo.XXXXXX")
bin=$work/bin
echo "== build (go build ./cmd/...) into $bin"
mkdir -p "$bin"
go build -o "$bin" ./cmd/...

export LOGBOOK_DIR=$work/sessions
n=$(wc -l < "$events")
echo "== record: $n real hook events of session '$session' through record-step (clock from the transcript)"
paste -d '\t' "$times" "$events" | while IFS=$'\t' read -r at payload; do
  printf '%s' "$payload" | LOGBOOK_NOW=$at "$bin/record-step"
done
id=$(head -n 1 "$events" | sed -E 's/.*"session_id":"([^"]+)".*/\1/')
echo "   in-progress file: $LOGBOOK_DIR/$id.steps.jsonl ($(($(wc -l < "$LOGBOOK_DIR/$id.steps.jsonl") - 1)) steps)"

echo "== seal with a fresh Ed25519 key"
"$bin/logbook-seal" --new-key "$work/keys/signing.key"
"$bin/logbook-seal" --session "$id" --key "$work/keys/signing.key" --goal "demo: replay of a real session" --out "$work/record.json"

echo "== verify (pinned to the public key)"
"$bin/logbook-verify" --pubkey "$work/keys/signing.key.pub" "$work/record.json"

refused() { # name, file, [extra flags]: expect a refusal and show it
  local name=$1 file=$2; shift 2
  printf '%-34s ' "$name:"
  if "$bin/logbook-verify" "$@" "$file"; then echo "   ^ NOT REFUSED: this is a bug" >&2; exit 1; fi
}
echo "== tamper with copies of the record; every one must be refused"
sed 's/"kind":"exec"/"kind":"read"/' "$work/record.json" > "$work/edited.json"
refused "a step's kind edited" "$work/edited.json"
sed 's/"goal":"demo: replay of a real session"/"goal":"something else"/' "$work/record.json" > "$work/goal.json"
refused "the goal changed" "$work/goal.json"
head -c $(($(wc -c < "$work/record.json") / 2)) "$work/record.json" > "$work/cut.json"
refused "the file cut short" "$work/cut.json"
"$bin/logbook-seal" --new-key "$work/keys/other.key" > /dev/null
LOGBOOK_DIR=$LOGBOOK_DIR "$bin/logbook-seal" --session "$id" --key "$work/keys/other.key" --out "$work/resigned.json" > /dev/null
refused "re-signed with another key" "$work/resigned.json" --pubkey "$work/keys/signing.key.pub"

echo "== done; files are in $work"
