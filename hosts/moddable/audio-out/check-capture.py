#!/usr/bin/env python3
# check-capture.py CAPTURE.raw RATE CHANNELS OUT_CHANNELS SECONDS: compares what ALSA's `file` PCM
# captured from the simulator's audio output with the sink's test tone (../audio-test-tone.ts,
# `audioTestTone`) of CHANNELS channels, as the sink hands it to an output of OUT_CHANNELS
# (`audioOutChannels`: a stereo tone on a mono output is (left + right) >> 1).
# The output plays silence before the first frame written and after the last, so whole silent
# frames are trimmed from both ends; what remains must be the tone, byte for byte.
import math, struct, sys

capture, rate, channels, out_channels, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
TONE_HZ, AMPLITUDE = (440, 660), 12000

def js_round(x):  # Math.round: halves toward +infinity
    return math.floor(x + 0.5)

frames = round(rate * seconds)
tone = [js_round(AMPLITUDE * math.cos(2 * math.pi * TONE_HZ[c] * n / rate)) for n in range(frames) for c in range(channels)]
if channels == 2 and out_channels == 1:
    tone = [(tone[i] + tone[i + 1]) >> 1 for i in range(0, len(tone), 2)]
elif channels == 1 and out_channels == 2:
    tone = [s for s in tone for _ in (0, 1)]
expected = struct.pack('<%dh' % len(tone), *tone)

data = open(capture, 'rb').read()
frame = 2 * out_channels
silent = bytes(frame)
start, end = 0, len(data) - len(data) % frame
while start < end and data[start:start + frame] == silent: start += frame
while end > start and data[end - frame:end] == silent: end -= frame
got = data[start:end]

def fnv1a(b):
    h = 0x811c9dc5
    for x in b: h = ((h ^ x) * 0x01000193) & 0xffffffff
    return h

print(f'capture {len(data)} bytes: {start} bytes of silence, {len(got)} bytes of sound, {len(data) - end} bytes of silence')
print(f'expected {len(expected)} bytes, fnv1a 0x{fnv1a(expected):08x}; sound fnv1a 0x{fnv1a(got):08x}')
if got == expected:
    print('EQUAL: the capture is the tone, byte for byte')
    sys.exit(0)
first = next((i for i in range(min(len(got), len(expected))) if got[i] != expected[i]), min(len(got), len(expected)))
print(f'DIFFERENT: first difference at byte {first} of the sound (frame {first // frame})')
sys.exit(1)
