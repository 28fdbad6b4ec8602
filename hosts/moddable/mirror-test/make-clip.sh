#!/bin/sh
# The built-in test clip of hosts/moddable/mirror-test/manifest.json (README "Screen mirroring"):
# 2 s of H.264 Annex B at 25 fps, 320x180, four colour quadrants (red, green / blue, yellow) with
# a white square moving along the top, a key frame every second, no B-frames (as mirroring
# senders send). Written next to this script as mirror-test.h264 (gitignored).
set -e
cd "$(dirname "$0")"
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "color=red:s=160x90:r=25,format=yuv420p" -f lavfi -i "color=lime:s=160x90:r=25,format=yuv420p" \
  -f lavfi -i "color=blue:s=160x90:r=25,format=yuv420p" -f lavfi -i "color=yellow:s=160x90:r=25,format=yuv420p" \
  -f lavfi -i "color=white:s=20x20:r=25,format=yuv420p" \
  -filter_complex "[0][1][2][3]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0[grid];[grid][4]overlay=x='mod(t*150,300)':y=4" \
  -t 2 -c:v libx264 -profile:v main -bf 0 -g 25 -tune zerolatency -f h264 mirror-test.h264
echo "$(pwd)/mirror-test.h264"
