#!/bin/sh
# The background data campaign: `black-numba datagen` at nice 19 in a session of its own,
# with that session's scheduling group niced too (autogroup: nice alone ranks a process only
# within its session), so it takes only the CPU nothing else wants. It resumes where it
# stopped; pause it for timed matches and speed measurements. Whole games (--format games), so
# that `pack` can put them into the repository's data/ as chunks (docs/data.md).
#   tools/campaign.sh start SEED DIR [POSITIONS] [FIRST_GAME]   start or resume
#   tools/campaign.sh pack SEED DIR    finished games into data/ chunks (commit them)
#   tools/campaign.sh pause|resume|stop|status DIR
# The build that plays is this checkout's, or $CHECKOUT's (a worktree held at one commit, so
# that the whole campaign comes from one build: the manifest records it). $DATAGEN_ARGS adds
# datagen options (a recipe other than the default: --opponent, --rescore, --evalfile ...).
set -eu
root=${CHECKOUT:-$(cd "$(dirname "$0")/.." && pwd)}
cmd=${1:-status}
case "$cmd" in
  start) seed=$2; dir=$3; positions=${4:-20000000}; first=${5:-0} ;;
  pack) seed=$2; dir=$3 ;;
  pause|resume|stop|status) dir=$2 ;;
  *) echo "usage: tools/campaign.sh start SEED DIR [POSITIONS] [FIRST_GAME] | pack SEED DIR | pause|resume|stop|status DIR" >&2; exit 2 ;;
esac
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
pidfile="$dir/campaign.pid"
pid=$(cat "$pidfile" 2>/dev/null || true)
alive() { [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }
case "$cmd" in
  start)
    if alive; then echo "campaign: already running (pid $pid)"; exit 0; fi
    setsid nice -n 19 "$root/bin/black-numba" datagen --positions "$positions" --jobs 2 \
      --seed "$seed" --format games --first-game "$first" --out "$dir" ${DATAGEN_ARGS:-} \
      >> "$dir/campaign.log" 2>&1 < /dev/null &
    pid=$!
    echo "$pid" > "$pidfile"
    sleep 1
    echo 19 > "/proc/$pid/autogroup" 2>/dev/null || echo "campaign: could not nice the group"
    echo "campaign: pid $pid, seed $seed, into $dir" ;;
  pack) "$(cd "$(dirname "$0")/.." && pwd)/bin/black-numba" data pack "$dir" --seed "$seed" --rest \
      --out "$(cd "$(dirname "$0")/.." && pwd)/data" ;;
  pause) alive && kill -STOP "-$pid" && echo "campaign: paused" ;;
  resume) alive && kill -CONT "-$pid" && echo "campaign: resumed" ;;
  stop) alive && kill -CONT "-$pid" && kill -TERM "$pid" && echo "campaign: stopping (every finished task is kept)" ;;
  status)
    if alive; then state=$(ps -o stat= -p "$pid" | cut -c1); echo "campaign: pid $pid ($([ "$state" = T ] && echo paused || echo running))"; else echo "campaign: not running"; fi
    cat "$dir"/datagen_s*.progress 2>/dev/null && echo ;;
esac
