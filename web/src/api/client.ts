import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { CSRF_COOKIE, CSRF_HEADER, notifySessionLost, readCookie } from './session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Double-submit CSRF: every state-changing call echoes the arcvsa_csrf cookie in a header. */
const csrf: Middleware = {
  onRequest({ request }) {
    if (!SAFE_METHODS.has(request.method)) {
      const token = readCookie(CSRF_COOKIE);
      if (token) request.headers.set(CSRF_HEADER, token);
    }
    return request;
  },
};

/** A 401 anywhere but on the login call itself means the session is gone. */
const sessionWatch: Middleware = {
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.endsWith('/api/auth/login')) {
      notifySessionLost();
    }
    return response;
  },
};

// The api serves this app itself (same origin), so every URL is relative.
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
export const middlewares = [csrf, sessionWatch] as const;
api.use(...middlewares);
