// Times as the screen page writes them: a track's progress, a paused video's position.

/** `m:ss`, or `h:mm:ss` from an hour. */
export function clockText(seconds: number): string {
  const whole = Math.floor(Math.max(0, seconds));
  const s = String(whole % 60).padStart(2, '0');
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes}:${s}`;
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}:${s}`;
}
