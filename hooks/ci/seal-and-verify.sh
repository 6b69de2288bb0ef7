#!/bin/sh
# seal-and-verify.sh [seal|verify] — the last step of a recorded CI job, for
# any CI. POSIX sh.
#
#   seal (default)  seal every session recorded in $LOGBOOK_DIR (logbook-wrap's
#                   and any agent's, recorded by its hooks), then verify each
#                   record against the pinned public key
#   verify          only verify the records in $LOGBOOK_DIR (a later job that
#                   received them as an artifact)
#
#   LOGBOOK_PUBKEY       the public key committed in the repository (required)
#   LOGBOOK_SIGNING_KEY  the signing key's PEM text, from a secret variable, or
#                        the path of a file holding it (a GitLab "file" variable)
#   LOGBOOK_DIR          the sessions and records (default: ./.logbook)
#   LOGBOOK_GOAL         the records' goal (default: none)
#   LOGBOOK_BIN          where the commands are (default: $PATH)
#
# Exit status: 0 every session sealed and every record verified against the
# pinned key; 1 a seal or a verification failed, or there was nothing to
# verify (the job must fail); 2 a setting is missing.

mode=${1:-seal}
dir=${LOGBOOK_DIR:-.logbook}
pub=${LOGBOOK_PUBKEY:-}
bin=${LOGBOOK_BIN:+$LOGBOOK_BIN/}

say() { echo "logbook: $*" >&2; }

case $mode in
  seal|verify) ;;
  *) say "usage: seal-and-verify.sh [seal|verify]"; exit 2 ;;
esac
if [ -z "$pub" ] || [ ! -r "$pub" ]; then
  say "LOGBOOK_PUBKEY must name the public key committed in the repository (got '${pub}')"
  exit 2
fi

failed=0
if [ "$mode" = seal ]; then
  key=${LOGBOOK_SIGNING_KEY:-}
  if [ -z "$key" ]; then
    say "LOGBOOK_SIGNING_KEY is empty: give it the signing key from a secret variable"
    exit 2
  fi
  # A GitLab file variable holds the path of a file with the key.
  keyflag=
  case $key in
    *-----BEGIN*) ;;
    *) if [ -r "$key" ]; then keyflag=$key; fi ;;
  esac
  sealed=0
  for steps in "$dir"/*.steps.jsonl; do
    [ -e "$steps" ] || continue
    id=$(basename "$steps" .steps.jsonl)
    if [ -n "$keyflag" ]; then
      LOGBOOK_SIGNING_KEY= "${bin}logbook-seal" --dir "$dir" --session "$id" --key "$keyflag" --goal "${LOGBOOK_GOAL:-}" --out "$dir/$id.record.json" --force >&2
    else
      "${bin}logbook-seal" --dir "$dir" --session "$id" --goal "${LOGBOOK_GOAL:-}" --out "$dir/$id.record.json" --force >&2
    fi
    if [ $? -ne 0 ]; then
      say "session $id was NOT sealed"
      failed=1
    fi
    sealed=$((sealed + 1))
  done
  if [ "$sealed" -eq 0 ]; then
    say "no sessions in $dir: nothing was recorded"
    exit 1
  fi
fi

verified=0
for rec in "$dir"/*.record.json; do
  [ -e "$rec" ] || continue
  if ! "${bin}logbook-verify" --pubkey "$pub" "$rec"; then
    say "$rec is REFUSED"
    failed=1
  fi
  verified=$((verified + 1))
done
if [ "$verified" -eq 0 ]; then
  say "no records in $dir to verify"
  exit 1
fi
if [ "$failed" -ne 0 ]; then
  exit 1
fi
say "$verified record(s) verified against $pub"
