// The browser session: the CSRF cookie the api sets at login, and a signal for "the session is gone".

// Cookies ignore ports, so the api names its cookies after the port the browser reached it on (api/deps.py
// cookie_suffix): the demo's manager and its lab appliance on one host keep a session each.
export const CSRF_COOKIE = `arcvsa_csrf${window.location.port ? `_${window.location.port}` : ''}`;
export const CSRF_HEADER = 'X-CSRF-Token';

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

type Listener = () => void;
const listeners = new Set<Listener>();

/** Subscribe to "a call answered 401"; returns the unsubscribe function. */
export function onSessionLost(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function notifySessionLost(): void {
  for (const listener of listeners) listener();
}

// Whether a signed-in session ended under the user (as opposed to nobody having logged in yet), so the
// login page can say so. Kept here, not in router state, because several redirects race to the login page.
let ended = false;

export function markSessionEnded(): void {
  ended = true;
}

export function sessionEnded(): boolean {
  return ended;
}

export function clearSessionEnded(): void {
  ended = false;
}
