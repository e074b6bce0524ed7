# Sourced by the VS Code installers: runs a long, noisy command with its output in $LOG, and
# says every 15 s that it is still at work (elapsed time and the log's last line), so a
# compile of native modules that takes many minutes on a busy machine is never silent.
# Needs $LOG and a `say` function; on failure shows the end of the log and stops the script.
progress() {
  echo "\$ $*" >>"$LOG"
  "$@" >>"$LOG" 2>&1 &
  local pid=$! start=$SECONDS tick=0 last
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    tick=$((tick + 1))
    if [ $((tick % 15)) = 0 ] && kill -0 "$pid" 2>/dev/null; then
      last=$(tail -n 1 "$LOG" 2>/dev/null | tr -d '\r' | cut -c1-90)
      say "  still at work, $((SECONDS - start)) s: ${last:-...}"
    fi
  done
  if ! wait "$pid"; then
    echo "failed: $*" >&2
    echo "----- last 40 lines of $LOG -----" >&2
    tail -n 40 "$LOG" >&2
    exit 1
  fi
}
