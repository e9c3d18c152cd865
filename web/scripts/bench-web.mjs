// Load each page of the production bundle cold in headless Chromium and measure it (lab/bench_web.py runs
// this against a real api serving web/dist; `make bench-web`).
//
// Per page and run: a fresh browser context (empty cache, the session cookie only), navigation start →
// the page's <h1> visible (read in the page with performance.now(), so Playwright's own round trips do not
// count), and the JS and CSS bytes that came over the wire for it (Resource Timing; also their size unzipped).
//
// env: ARCVSA_URL, ARCVSA_ADMIN_USER, ARCVSA_ADMIN_PASSWORD, BENCH_RUNS, BENCH_OUT (JSON file written),
// CHROMIUM_PATH (default /usr/bin/chromium).
/* global document -- the functions passed to page.waitForFunction and page.evaluate run in the page */
import { chromium } from '@playwright/test';
import { writeFileSync } from 'node:fs';

const need = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const base = need('ARCVSA_URL');
const runs = Number(process.env.BENCH_RUNS ?? '3');
const out = need('BENCH_OUT');

// Every page a person opens from the nav (and login); the inventory needs a vCenter and is left out.
const PAGES = [
  ['/login', 'arcvsa', false],
  ['/vcenters', 'vCenters', true],
  ['/deploy/vcenter', 'Deploy a desktop pool', true],
  ['/pools', 'Desktop pools', true],
  ['/appliances', 'Appliances', true],
  ['/settings', 'Settings', true],
  ['/storage', 'Storage dashboard', true],
  ['/storage/disks', 'Disks', true],
  ['/storage/pools', 'Pools', true],
  ['/storage/datasets', 'Datasets', true],
  ['/storage/exports', 'NFS exports', true],
  ['/storage/iscsi', 'iSCSI targets', true],
  ['/storage/tuning', 'Tuning', true],
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});

async function logIn() {
  const context = await browser.newContext({ baseURL: base, ignoreHTTPSErrors: true });
  const answer = await context.request.post('/api/auth/login', {
    data: { username: need('ARCVSA_ADMIN_USER'), password: need('ARCVSA_ADMIN_PASSWORD') },
  });
  if (!answer.ok()) throw new Error(`login failed: HTTP ${answer.status()}`);
  const state = await context.storageState();
  await context.close();
  return state;
}

async function measure(path, heading, storageState) {
  const context = await browser.newContext({ baseURL: base, ignoreHTTPSErrors: true, storageState, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(path, { waitUntil: 'commit' });
  // Polled every animation frame, in the page: the time is that of the first frame showing the heading.
  const shown = await page.waitForFunction(
    (text) => {
      const h1 = [...document.querySelectorAll('h1')].find((h) => h.textContent?.trim() === text && h.checkVisibility());
      return h1 ? performance.now() : false;
    },
    heading,
    { polling: 'raf', timeout: 30_000 },
  );
  const ms = await shown.jsonValue();
  const bytes = await page.evaluate(() => {
    const sum = { js: 0, css: 0, jsFiles: 0, cssFiles: 0, jsRaw: 0, cssRaw: 0 };
    for (const entry of performance.getEntriesByType('resource')) {
      const size = entry.transferSize || entry.encodedBodySize;
      const url = new URL(entry.name).pathname;
      if (url.endsWith('.js')) {
        sum.js += size;
        sum.jsFiles += 1;
        sum.jsRaw += entry.decodedBodySize;
      } else if (url.endsWith('.css')) {
        sum.css += size;
        sum.cssFiles += 1;
        sum.cssRaw += entry.decodedBodySize;
      }
    }
    return sum;
  });
  if (page.url().endsWith('/login') && path !== '/login') throw new Error(`${path}: sent to the login page`);
  await context.close();
  return { ms, ...bytes };
}

try {
  const state = await logIn();
  const results = [];
  for (const [path, heading, signedIn] of PAGES) {
    await measure(path, heading, signedIn ? state : undefined); // warm the api and the OS page cache
    const samples = [];
    for (let i = 0; i < runs; i += 1) samples.push(await measure(path, heading, signedIn ? state : undefined));
    results.push({ path, heading, samples });
  }
  writeFileSync(out, JSON.stringify({ chromium: browser.version(), results }, null, 2));
} finally {
  await browser.close();
}
