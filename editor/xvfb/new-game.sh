#!/usr/bin/env bash
# Smoke run of the real window: starts it under Xvfb on the AHD module (the start
# screen), clicks through a new game against the computer and a first march (the points
# in clicks.txt, which the test editor/tests/it/xvfb_clicks.rs keeps true), checks the
# window title shows the march, ends the Union's player turn, lets the computer play
# the Confederacy's by itself, and saves a screenshot of what it did.
#
#   editor/xvfb/new-game.sh [SCREENSHOT.png]    (default: target/xvfb/new-game.png)
#
# Needs Xvfb, xdotool and ImageMagick (Debian: xvfb xdotool imagemagick) and Mesa's
# software OpenGL (libgl1-mesa-dri, libegl1). `.ci/run` installs them.
set -euo pipefail
cd "$(dirname "$0")/../.."

target=${CARGO_TARGET_DIR:-target}
out=${1:-$target/xvfb/new-game.png}
clicks=editor/xvfb/clicks.txt
for tool in Xvfb xdotool import identify; do
  command -v "$tool" >/dev/null || {
    echo "new-game.sh: needs $tool (apt-get install xvfb xdotool imagemagick)" >&2
    exit 1
  }
done
mkdir -p "$(dirname "$out")" "$target/xvfb"
log=$target/xvfb/editor.log

# The test that runs this script passes the binary cargo built for it.
bin=${MUSTER_EDITOR_BIN:-}
if [ -z "$bin" ]; then
  cargo build -p muster-editor --quiet
  bin=$target/debug/muster-editor
fi

read -r _ width height < <(grep '^size ' "$clicks")
# Xvfb picks a free display number and writes it to fd 3.
displayfile=$(mktemp)
Xvfb -displayfd 3 -screen 0 "${width}x${height}x24" -nolisten tcp 3>"$displayfile" >/dev/null 2>&1 &
xvfb=$!
app=
cleanup() {
  [ -n "$app" ] && kill "$app" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
  rm -f "$displayfile"
}
trap cleanup EXIT

for _ in $(seq 100); do
  [ -s "$displayfile" ] && break
  sleep 0.1
done
[ -s "$displayfile" ] || { echo "new-game.sh: Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$(head -n 1 "$displayfile")"
unset WAYLAND_DISPLAY
# Window pixels are egui points, as in the test that checks clicks.txt.
export WINIT_X11_SCALE_FACTOR=1

"$bin" mods/ahd >"$log" 2>&1 &
app=$!
fail() {
  echo "new-game.sh: $*" >&2
  echo "--- the editor's log ($log):" >&2
  tail -n 30 "$log" >&2
  exit 1
}
wid=$(timeout 60 xdotool search --sync --onlyvisible --name 'muster editor' | head -n 1) ||
  fail "no editor window within 60 s"
xdotool windowmove "$wid" 0 0
# Wait for the first painted frame: a blank window has a colour or two.
painted=
for _ in $(seq 120); do
  colours=$(import -window "$wid" png:- 2>/dev/null | identify -format '%k' - 2>/dev/null || echo 0)
  if [ "${colours:-0}" -gt 20 ]; then painted=1; break; fi
  sleep 0.5
done
[ -n "$painted" ] || fail "the window was never painted"

grep -v '^#' "$clicks" | grep -v '^size ' | grep -v '^end ' | grep -v '^[[:space:]]*$' |
  while read -r x y label; do
    echo "click ($x, $y): $label"
    xdotool mousemove --window "$wid" "$x" "$y"
    sleep 0.3
    xdotool click 1
    sleep 1
  done

# The title is the game's situation once a game is under way.
title=
for _ in $(seq 40); do
  title=$(xdotool getwindowname "$wid")
  case $title in *"marching from Washington"*) break ;; esac
  sleep 0.5
done
case $title in
  *"marching from Washington"*) ;;
  *) import -window "$wid" "$out" || true
     fail "the clicks did not make the march; window title: '$title' (screen: $out)" ;;
esac
echo "new-game.sh: Washington is marching ('$title')"

# End the march, then each segment of the Union's player turn, at the `end` point.
read -r _ ex ey < <(grep '^end ' "$clicks")
for _ in $(seq 12); do
  title=$(xdotool getwindowname "$wid")
  case $title in *"Confederacy player turn"*) break ;; esac
  xdotool mousemove --window "$wid" "$ex" "$ey"
  sleep 0.3
  xdotool click 1
  sleep 1
done
case $title in
  *"Confederacy player turn"*) ;;
  *) import -window "$wid" "$out" || true
     fail "the Union's turn did not end; window title: '$title' (screen: $out)" ;;
esac
# The computer plays by itself: wait until the title has not changed for 6 s (a human
# is to decide) or the Union's next player turn has begun.
last=$title
still=0
for _ in $(seq 240); do
  sleep 0.5
  title=$(xdotool getwindowname "$wid")
  case $title in *"Union player turn"*) break ;; esac
  if [ "$title" = "$last" ]; then still=$((still + 1)); else still=0; last=$title; fi
  [ "$still" -ge 12 ] && break
done
sleep 1
import -window "$wid" "$out"
echo "new-game.sh: the computer played ('$title'); screenshot $out"
