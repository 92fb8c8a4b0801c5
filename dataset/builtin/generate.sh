#!/usr/bin/env bash
# generate.sh — regenerate the bundled `builtin` dataset (committed output).
#
# Each clip: espeak-ng speech (voice en-us, 160 wpm), converted by sox to
# 16 kHz mono PCM16 WAV, with 0.3 s of leading and 1.5 s of trailing digital
# silence so an energy VAD (the simulator's) sees the turn end.
# Needs: espeak-ng, sox (Debian: apt-get install espeak-ng sox).
# Output is deterministic for a given espeak-ng/sox version.
set -euo pipefail
cd "$(dirname "$0")"
command -v espeak-ng >/dev/null || { echo "generate.sh: espeak-ng missing (apt-get install espeak-ng)" >&2; exit 1; }
command -v sox >/dev/null || { echo "generate.sh: sox missing (apt-get install sox)" >&2; exit 1; }

clips=(
  "greeting|Hello there. Can you hear me clearly?"
  "weather|What will the weather be like tomorrow morning?"
  "recipe|How long should I boil an egg for a soft yolk?"
  "math|What is seventeen plus twenty five?"
  "travel|Which train goes to the airport from the central station?"
  "story|Tell me a very short story about a small red boat."
  "reminder|Please remind me to call my sister at six."
  "cup|Where did I put the blue cup this morning?"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > manifest.jsonl
for entry in "${clips[@]}"; do
  id=${entry%%|*}
  text=${entry#*|}
  espeak-ng -v en-us -s 160 -w "$tmp/$id.raw.wav" "$text"
  sox -D "$tmp/$id.raw.wav" -r 16000 -c 1 -b 16 -e signed-integer "$id.wav" pad 0.3 1.5
  printf '{"sample_id":"%s","split":"builtin","audio":"%s.wav","text":"%s"}\n' "$id" "$id" "$text" >> manifest.jsonl
done
du -ch ./*.wav | tail -1
