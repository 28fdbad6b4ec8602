#!/usr/bin/env python3
# check-stream.py CAPTURE.raw SOURCE.wav OUT_CHANNELS: whether what ALSA captured from the
# simulator's audio output holds the source's PCM (16-bit WAV, as a sender streamed it) whole and
# in order, as the sink hands it to an output of OUT_CHANNELS (stereo to mono: (l + r) >> 1).
# The capture starts and ends with silence (before the stream, the output's drain) and the sender's
# own silence may precede or follow the source, so the source is found by its first sounding
# frames and compared from there, byte for byte, but for the single frames the playout engine drops or
# repeats to follow the sender's clock (counted). A paced capture is needed (README "Realtime
# audio"): over ALSA's null PCM the output outruns a real stream and plays silence between packets.
import struct, sys, wave

capture, source, out_channels = sys.argv[1], sys.argv[2], int(sys.argv[3])
with wave.open(source, 'rb') as w:
    assert w.getsampwidth() == 2, 'a 16-bit WAV'
    channels, rate, pcm = w.getnchannels(), w.getframerate(), w.readframes(w.getnframes())
samples = struct.unpack('<%dh' % (len(pcm) // 2), pcm)
if channels == 2 and out_channels == 1:
    samples = [(samples[i] + samples[i + 1]) >> 1 for i in range(0, len(samples), 2)]
elif channels == 1 and out_channels == 2:
    samples = [s for s in samples for _ in (0, 1)]
expected = struct.pack('<%dh' % len(samples), *samples)
frame = 2 * out_channels
data = open(capture, 'rb').read()

first = next((i for i in range(0, len(expected), frame) if expected[i:i + frame] != bytes(frame)), None)
assert first is not None, 'the source is silent'
probe = expected[first:first + 64 * frame]
found = data.find(probe)
print(f'source {len(expected) // frame} frames at {rate} Hz as {out_channels} channel(s); capture {len(data) // frame} frames')
if found < 0:
    print('NOT FOUND: the source\'s first sounding frames are not in the capture')
    sys.exit(1)
start = found - first
print(f'source found at capture frame {start // frame} ({start / frame / rate:.3f} s in)')

# Walk both in step. The playout engine keeps the stream on the receiver's clock by dropping or
# repeating single frames (its log: "drift: N frames dropped, M repeated"), so where they part,
# one frame skipped on either side must bring them together again for the next 64 frames.
SETTLE = 64 * frame
src, cap, dropped, repeated, at = 0, start, [], [], []
while src < len(expected):
    n = min(len(expected) - src, len(data) - cap)
    if n <= 0: break
    if data[cap:cap + n] == expected[src:src + n]:
        src += n; cap += n
        break
    lo = 0
    while data[cap + lo:cap + lo + frame] == expected[src + lo:src + lo + frame]: lo += frame
    src += lo; cap += lo
    settle = min(SETTLE, len(expected) - src - frame)
    if data[cap:cap + settle] == expected[src + frame:src + frame + settle]:
        dropped.append(src // frame); src += frame
    elif data[cap + frame:cap + frame + settle] == expected[src:src + settle]:
        repeated.append(src // frame); cap += frame
    else:
        print(f'DIFFERENT at frame {src // frame} of the source ({src / frame / rate:.3f} s), not a single frame dropped or repeated')
        sys.exit(1)
if src < len(expected):
    print(f'SHORT: the capture ends at frame {src // frame} of the source')
    sys.exit(1)
print(f'EQUAL: all {len(expected) // frame} frames of the source in order, byte for byte, but for '
      f'{len(dropped)} single frames dropped and {len(repeated)} repeated (clock drift correction)')
if dropped or repeated:
    print(f'  dropped at source frames {dropped[:8]}{" ..." if len(dropped) > 8 else ""}; repeated at {repeated[:8]}{" ..." if len(repeated) > 8 else ""}')
