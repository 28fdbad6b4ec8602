#!/bin/sh
# The built-in test clip of hosts/moddable/mirror-test/manifest.json (README "Screen mirroring"):
# 2 s of H.264 Annex B at 25 fps, 320x180 or the WIDTHxHEIGHT given (halves even), four colour
# quadrants (red, green / blue, yellow) with a white square moving along the top, a key frame
# every second, no B-frames (as mirroring senders send). Written next to this script as
# mirror-test.h264 (gitignored).
set -e
cd "$(dirname "$0")"
size=${1:-320x180}
width=${size%x*}
height=${size#*x}
quadrant="s=$((width / 2))x$((height / 2)):r=25,format=yuv420p"
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "color=red:$quadrant" -f lavfi -i "color=lime:$quadrant" \
  -f lavfi -i "color=blue:$quadrant" -f lavfi -i "color=yellow:$quadrant" \
  -f lavfi -i "color=white:s=$((width / 16))x$((width / 16)):r=25,format=yuv420p" \
  -filter_complex "[0][1][2][3]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0[grid];[grid][4]overlay=x='mod(t*$((width * 15 / 32)),$((width * 15 / 16)))':y=$((height / 45))" \
  -t 2 -c:v libx264 -profile:v main -bf 0 -g 25 -tune zerolatency -f h264 mirror-test.h264
echo "$(pwd)/mirror-test.h264"
