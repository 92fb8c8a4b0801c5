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
if [[ ${1:-all} != video ]]; then
command -v espeak-ng >/dev/null || { echo "generate.sh: espeak-ng missing (apt-get install espeak-ng)" >&2; exit 1; }
command -v sox >/dev/null || { echo "generate.sh: sox missing (apt-get install sox)" >&2; exit 1; }
fi

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
what=${1:-all} # all | clips | turntaking | video
if [[ $what == all || $what == clips ]]; then
: > manifest.jsonl
for entry in "${clips[@]}"; do
  id=${entry%%|*}
  text=${entry#*|}
  espeak-ng -v en-us -s 160 -w "$tmp/$id.raw.wav" "$text"
  sox -D "$tmp/$id.raw.wav" -r 16000 -c 1 -b 16 -e signed-integer "$id.wav" pad 0.3 1.5
  printf '{"sample_id":"%s","split":"builtin","audio":"%s.wav","text":"%s"}\n' "$id" "$id" "$text" >> manifest.jsonl
done
fi

# ---- turntaking/: labelled Full-Duplex-Bench style cases (dataset "turntaking") ----
# Each clip is built from espeak-ng phrases whose leading/trailing silence is
# trimmed at -40 dBFS (sox silence), joined with digital silence, so every
# label is exact on the clip's own clock (ms from its first sample):
#   onset_ms/offset_ms  the labelled user speech (pause: the speech before the
#                       pause; backchannel: the "mm hmm"; turn_end: the turn;
#                       interruption: the interrupting speech)
#   anchor_ms           where the case window starts: offset_ms, except
#                       interruption (onset_ms)
#   window_ms           the case window length
# The layout assumes the model answers ~0.3-0.8 s after a turn end (a long
# answer for the backchannel and interruption cases: the simulator runs them
# with sim_response_ms=6000).
say() { # say ID TEXT → $tmp/ID.wav (16 kHz, trimmed); prints duration in ms
  espeak-ng -v en-us -s 160 -w "$tmp/$1.raw.wav" "$2"
  sox -D "$tmp/$1.raw.wav" -r 16000 -c 1 -b 16 -e signed-integer "$tmp/$1.wav" \
    silence 1 0.01 -40d reverse silence 1 0.01 -40d reverse
  soxi -s "$tmp/$1.wav" | awk '{printf "%d", $1/16}'
}
sil() { sox -n -r 16000 -c 1 -b 16 -e signed-integer "$tmp/sil$1.wav" trim 0 "$(awk "BEGIN{print $1/1000}")"; echo "$tmp/sil$1.wav"; }
if [[ $what == all || $what == turntaking ]]; then
mkdir -p turntaking
: > turntaking/manifest.jsonl
case_line() { # id text category onset offset anchor window
  printf '{"sample_id":"%s","split":"turntaking","audio":"%s.wav","text":"%s","turntaking":{"cases":[{"id":"%s","category":"%s","onset_ms":%d,"offset_ms":%d,"anchor_ms":%d,"window_ms":%d}]}}\n' \
    "$1" "$1" "$2" "$1" "$3" "$4" "$5" "$6" "$7" >> turntaking/manifest.jsonl
}
lead=300
# pause: 350 ms silence inside one utterance (a 500 ms end-of-turn rule waits; a 150 ms one takes the turn)
a=$(say pa "I was thinking that maybe we could"); b=$(say pb "go to the lake on Saturday.")
sox "$(sil $lead)" "$tmp/pa.wav" "$(sil 350)" "$tmp/pb.wav" "$(sil 1200)" turntaking/pause.wav
case_line pause "I was thinking that maybe we could ... go to the lake on Saturday." pause $lead $((lead + a)) $((lead + a)) 1000
# backchannel: a question, 1.8 s of silence (the model answers), "mm hmm" while it talks, then silence
a=$(say bq "Tell me about the old harbour."); b=$(say bm "mm hmm")
on=$((lead + a + 1800))
sox "$(sil $lead)" "$tmp/bq.wav" "$(sil 1800)" "$tmp/bm.wav" "$(sil 2700)" turntaking/backchannel.wav
case_line backchannel "Tell me about the old harbour. ... mm hmm" backchannel $on $((on + b)) $((on + b)) 3000
# turn_end: one complete question, then silence
a=$(say tq "What time does the museum open on Sunday?")
sox "$(sil $lead)" "$tmp/tq.wav" "$(sil 1600)" turntaking/turn_end.wav
case_line turn_end "What time does the museum open on Sunday?" turn_end $lead $((lead + a)) $((lead + a)) 3000
# interruption: a question, 1.6 s of silence (the model answers), then the user cuts in
a=$(say iq "Describe the solar system."); b=$(say ii "Wait, what about Mars?")
on=$((lead + a + 1600))
sox "$(sil $lead)" "$tmp/iq.wav" "$(sil 1600)" "$tmp/ii.wav" "$(sil 2400)" turntaking/interruption.wav
case_line interruption "Describe the solar system. ... Wait, what about Mars?" interruption $on $((on + b)) $on 3000
fi
if [[ $what == all || $what == video ]]; then
# video: one small clip for the video path (dataset name "video"): ffmpeg's
# testsrc2 pattern, 96x72 at 2 fps, with greeting.wav as its soundtrack.
# Needs ffmpeg (Debian: apt-get install ffmpeg).
command -v ffmpeg >/dev/null || { echo "generate.sh: ffmpeg missing (apt-get install ffmpeg)" >&2; exit 1; }
mkdir -p video
dur=$(awk "BEGIN{print $(stat -c %s greeting.wav)/32000}")
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=96x72:rate=2:duration=$dur" -i greeting.wav \
  -map 0:v -map 1:a -c:v libx264 -preset veryslow -crf 45 -pix_fmt yuv420p -g 10 -bf 0 \
  -c:a aac -b:a 12k -ar 16000 -ac 1 -shortest -map_metadata -1 -fflags +bitexact -flags:v +bitexact -flags:a +bitexact video/greeting.mp4
printf '{"sample_id":"greeting_video","split":"video","video":"greeting.mp4","text":"Hello there. Can you hear me clearly?"}\n' > video/manifest.jsonl
fi
du -cb ./*.wav turntaking/*.wav video/*.mp4 2>/dev/null | tail -1
