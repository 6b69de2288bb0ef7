# setup.sh — make logbook's commands available to a CI job and name the
# job's session. POSIX sh.
#
# Source it (`. setup.sh`) where the job's later commands run in the same
# shell (GitLab before_script, a plain CI script); on GitHub Actions run it:
# it also writes $GITHUB_ENV and $GITHUB_PATH for the job's later steps.
#
#   LOGBOOK_SRC      a checkout of logbook to build from (required when sourced;
#                    default when run: the repository this script is in)
#   LOGBOOK_BIN      where the commands go; kept if they are there already
#                    (default: $RUNNER_TEMP/logbook-bin, else $TMPDIR/logbook-bin)
#   LOGBOOK_DIR      where the job's sessions are recorded (default: $PWD/.logbook)
#   LOGBOOK_SESSION  the session logbook-wrap appends to (default: from the
#                    CI's run and job ids)
#
# Afterwards PATH starts with $LOGBOOK_BIN, which also holds a copy of
# seal-and-verify.sh for the job's last step.

logbook_setup() {
  if [ -z "${LOGBOOK_SRC:-}" ]; then
    case $0 in
      */hooks/ci/setup.sh) LOGBOOK_SRC=${0%/hooks/ci/setup.sh} ;;
      *) echo "logbook setup: set LOGBOOK_SRC to a checkout of logbook" >&2; return 2 ;;
    esac
  fi
  LOGBOOK_SRC=$(cd "$LOGBOOK_SRC" && pwd) || return 2
  LOGBOOK_BIN=${LOGBOOK_BIN:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/logbook-bin}
  LOGBOOK_DIR=${LOGBOOK_DIR:-$PWD/.logbook}
  if [ -z "${LOGBOOK_SESSION:-}" ]; then
    if [ -n "${GITHUB_RUN_ID:-}" ]; then
      # Matrix legs share the job id: a random part keeps records apart.
      LOGBOOK_SESSION=gh-$GITHUB_RUN_ID-${GITHUB_RUN_ATTEMPT:-1}-${GITHUB_JOB:-job}-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
    elif [ -n "${CI_JOB_ID:-}" ]; then
      LOGBOOK_SESSION=gl-${CI_PIPELINE_ID:-0}-$CI_JOB_ID
    else
      LOGBOOK_SESSION=ci-$(date -u +%Y%m%dT%H%M%SZ)-$$
    fi
  fi
  # Session ids are [A-Za-z0-9._-], not starting with . or -.
  LOGBOOK_SESSION=$(printf '%s' "$LOGBOOK_SESSION" | tr -c 'A-Za-z0-9._-' '_' | sed 's/^[.-]/_/')

  have=yes
  for c in record-step logbook-wrap logbook-seal logbook-verify; do
    [ -x "$LOGBOOK_BIN/$c" ] || have=no
  done
  if [ "$have" = no ]; then
    echo "logbook setup: building the commands from $LOGBOOK_SRC into $LOGBOOK_BIN" >&2
    mkdir -p "$LOGBOOK_BIN" || return 2
    (cd "$LOGBOOK_SRC" && go build -o "$LOGBOOK_BIN/" ./cmd/...) || return 2
  fi
  cp "$LOGBOOK_SRC/hooks/ci/seal-and-verify.sh" "$LOGBOOK_BIN/seal-and-verify.sh" || return 2
  chmod +x "$LOGBOOK_BIN/seal-and-verify.sh"
  mkdir -p "$LOGBOOK_DIR" || return 2

  PATH=$LOGBOOK_BIN:$PATH
  export PATH LOGBOOK_SRC LOGBOOK_BIN LOGBOOK_DIR LOGBOOK_SESSION
  if [ -n "${GITHUB_ENV:-}" ]; then
    printf 'LOGBOOK_BIN=%s\nLOGBOOK_DIR=%s\nLOGBOOK_SESSION=%s\n' "$LOGBOOK_BIN" "$LOGBOOK_DIR" "$LOGBOOK_SESSION" >> "$GITHUB_ENV"
  fi
  if [ -n "${GITHUB_PATH:-}" ]; then
    printf '%s\n' "$LOGBOOK_BIN" >> "$GITHUB_PATH"
  fi
  echo "logbook: recording session $LOGBOOK_SESSION in $LOGBOOK_DIR" >&2
}

logbook_setup
