#!/usr/bin/env bash
# The main job, end to end: build, record every hook event of a Claude Code
# session through record-step, seal, verify, then tamper with the record
# and watch each change get refused.
#
#   ./scripts/demo.sh [--synthesized] [SESSION]
#
# With the public transcripts at hand ($LOGBOOK_CORPORA, else ../shared
# beside the checkout), the session is a real recorded one, converted to
# hook events on the fly by tools/transcript2hooks: SESSION is short,
# tool_heavy, subagent or 258c7280 (the default). Without them, or with
# --synthesized, it is one the project makes itself (tools/synthsession):
# short, tool_heavy, subagent or long (the default). The demo says which.
# Its files are removed on exit unless LOGBOOK_DEMO_KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,14s/^# \{0,1\}//p' scripts/demo.sh; } # the header above; we are at the root now
synth=0
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --synthesized) synth=1; shift ;;
  -*) echo "demo.sh: unknown option ${1} (usage: ./scripts/demo.sh [--synthesized] [SESSION])" >&2; exit 2 ;;
esac
session=${1:-}
[ $# -le 1 ] || { echo "demo.sh: one SESSION at most (usage: ./scripts/demo.sh [--synthesized] [SESSION])" >&2; exit 2; }

corpora=${LOGBOOK_CORPORA:-../shared}
transcripts=$corpora/corpora/agent-sessions
if [ -n "${LOGBOOK_CORPORA:-}" ] && [ ! -d "$LOGBOOK_CORPORA" ]; then
  echo "demo.sh: LOGBOOK_CORPORA=$LOGBOOK_CORPORA is not a folder" >&2; exit 2
fi
[ -d "$transcripts" ] || synth=1
# A session name is checked before the build, which takes a while.
if [ $synth = 0 ]; then known="short tool_heavy subagent 258c7280"; else known="short tool_heavy subagent long"; fi
if [ -n "$session" ] && [[ " $known " != *" $session "* ]]; then
  kind=synthesized; [ $synth = 0 ] && kind=real
  echo "demo.sh: no $kind session '$session' (${known// /, })" >&2; exit 2
fi

# Everything goes in one temporary folder, removed on exit however the
# demo ends (its binaries alone are over 100 MB: each run used to leave
# 145 MB behind). LOGBOOK_DEMO_KEEP=1 keeps it, to look at the record.
work=$(mktemp -d "${TMPDIR:-/tmp}/logbook-demo.XXXXXX")
if [ "${LOGBOOK_DEMO_KEEP:-}" != 1 ]; then
  trap 'rm -rf "$work"' EXIT
fi
bin=$work/bin
echo "== build (go build ./cmd/... ./tools/...) into $bin"
mkdir -p "$bin"
go build -o "$bin" ./cmd/... ./tools/...

events=$work/events.jsonl
times=$work/events.times
if [ $synth = 0 ]; then
  session=${session:-258c7280}
  src=$transcripts/$session.jsonl
  [ "$session" = 258c7280 ] && src=$transcripts/258c7280-ae70-4798-800f-63464d01a85d.jsonl
  [ -f "$src" ] || { echo "demo.sh: no transcript for session '$session' in $transcripts (short, tool_heavy, subagent, 258c7280)" >&2; exit 2; }
  "$bin/transcript2hooks" -times "$times" "$src" > "$events"
  what="a REAL recorded Claude Code session ('$session', public transcript $src, converted to hook events)"
  goal="demo: replay of a real session"
else
  session=${session:-long}
  "$bin/synthsession" -times "$times" "$session" > "$events" || { echo "demo.sh: no synthesized session '$session' (short, tool_heavy, subagent, long)" >&2; exit 2; }
  what="a SYNTHESIZED Claude Code session ('$session', made by tools/synthsession; no public transcripts at $transcripts)"
  [ -d "$transcripts" ] && what="a SYNTHESIZED Claude Code session ('$session', made by tools/synthsession; --synthesized given)"
  goal="demo: replay of a synthesized session"
fi
echo "== session: $what"

export LOGBOOK_DIR=$work/sessions
n=$(wc -l < "$events")
echo "== record: $n hook events through record-step (clock from the session)"
paste -d '\t' "$times" "$events" | while IFS=$'\t' read -r at payload; do
  printf '%s' "$payload" | LOGBOOK_NOW=$at "$bin/record-step"
done
id=$(head -n 1 "$events" | sed -E 's/.*"session_id":"([^"]+)".*/\1/')
echo "   in-progress file: $LOGBOOK_DIR/$id.steps.jsonl ($(($(wc -l < "$LOGBOOK_DIR/$id.steps.jsonl") - 1)) steps)"

echo "== seal with a fresh Ed25519 key"
"$bin/logbook-seal" --new-key "$work/keys/signing.key"
"$bin/logbook-seal" --session "$id" --key "$work/keys/signing.key" --goal "$goal" --out "$work/record.json"

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
sed "s/\"goal\":\"$goal\"/\"goal\":\"something else\"/" "$work/record.json" > "$work/goal.json"
refused "the goal changed" "$work/goal.json"
head -c $(($(wc -c < "$work/record.json") / 2)) "$work/record.json" > "$work/cut.json"
refused "the file cut short" "$work/cut.json"
"$bin/logbook-seal" --new-key "$work/keys/other.key" > /dev/null
LOGBOOK_DIR=$LOGBOOK_DIR "$bin/logbook-seal" --session "$id" --key "$work/keys/other.key" --out "$work/resigned.json" > /dev/null
refused "re-signed with another key" "$work/resigned.json" --pubkey "$work/keys/signing.key.pub"

if [ "${LOGBOOK_DEMO_KEEP:-}" = 1 ]; then
  echo "== done ($what); files are in $work"
else
  echo "== done ($what); $work is removed on exit (LOGBOOK_DEMO_KEEP=1 keeps it)"
fi
