// The status line's "reset wrong PINs" button: a person at the receiver resets its count of wrong
// pairing PINs (past limits.pairingMaxFailures, pairing with a fixed PIN is refused until then).
// The page's own POST (the screen server takes it from this origin only); the button says how it went.

import { PAGE_PATHS } from '../page-protocol';
import { byId } from './dom';

export function startResetTries(): void {
  const button = byId('reset-tries', HTMLButtonElement);
  const label = button.textContent ?? '';
  button.addEventListener('click', () => {
    button.disabled = true;
    fetch(PAGE_PATHS.resetPairingTries, { method: 'POST' })
      .then((response) => {
        button.textContent = response.ok ? 'wrong PINs reset' : `not reset (${response.status})`;
      })
      .catch(() => {
        button.textContent = 'not reset (no answer)';
      })
      .finally(() => {
        setTimeout(() => {
          button.textContent = label;
          button.disabled = false;
        }, 3000);
      });
  });
}
