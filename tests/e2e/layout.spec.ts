// Layout: on every page of the app (every route of web/src/app/pages.ts, each wizard step, Settings with its
// forms open, Calibration with stored runs, the storage pages with their forms open where the page offers
// them), no heading, legend or label has its text under a form control. Run by
// tests/e2e/test_browser.py::test_no_heading_overlaps_a_field (ARCVSA_URL, ARCVSA_ADMIN_*, VCSIM_*).
//
// The check compares boxes as the browser laid them out: each line box of a heading's or label's own text
// (a Range over its text nodes, so a label that wraps its checkbox is not its own overlap) against the box of
// every visible input, select, textarea and button of the same view. A failure lists the page and the pair.
// axe (WCAG 2.x A/AA) runs on the views this check was written with: no critical violation.
import AxeBuilder from '@axe-core/playwright';
import { type Page, expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this spec through tests/e2e/test_browser.py`);
  return value;
}

/** The URL patterns the app routes, as web/src/app/pages.ts declares them: each must be visited here. */
function routes(): string[] {
  const source = readFileSync(path.join(__dirname, '../../web/src/app/pages.ts'), 'utf8');
  const found = [...source.matchAll(/\[\s*'(\/[^']*)'\s*,\s*\w+Page\s*\]/g)].map((m) => m[1]!);
  expect(found.length, 'routes read from pages.ts').toBeGreaterThan(5);
  return found;
}

function matches(pattern: string, url: string): boolean {
  const pathname = url.split('?')[0]!;
  const re = new RegExp(`^${pattern.replace(/:[a-z]+/g, '[^/]+').replace(/\/\*$/, '/.*')}$`);
  return re.test(pathname);
}

/**
 * In the page: every pair whose boxes intersect of (a line of heading, legend, label or field-message text)
 * and (a visible form control, or a line of another such text that is not part of it).
 */
function overlapsInPage(): string[] {
  const CONTROLS = 'input:not([type="hidden"]), select, textarea, button, cds-button, [role="button"]';
  const TEXTS = 'h1, h2, h3, h4, legend, label, cds-control-message';
  // An open dialog is the view: what lies behind it is inert and may sit under it.
  const dialogs = [...document.querySelectorAll('dialog[open], [role="dialog"], cds-modal:not([hidden])')].filter(
    (d) => d.getBoundingClientRect().width > 0,
  );
  const scope: ParentNode = dialogs.at(-1) ?? document;

  const shown = (el: Element) => {
    if (el.closest('details:not([open]) > :not(summary)')) return false;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    // visually hidden (sr-only: 1 px, clipped) elements take no room on screen
    return r.width > 2 && r.height > 2;
  };
  const words = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 50);
  const describe = (el: Element) => {
    const name = el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.getAttribute('name') ?? el.textContent ?? '';
    const type = el.getAttribute('type');
    return `<${el.tagName.toLowerCase()}${type ? ` type=${type}` : ''}> "${name.replace(/\s+/g, ' ').trim().slice(0, 50)}"`;
  };
  const controls = [...scope.querySelectorAll(CONTROLS)]
    // a native button inside a cds-button is the host's box, counted once
    .filter((c) => !(c.tagName === 'BUTTON' && c.parentElement?.closest('cds-button')))
    .filter(shown)
    .map((el) => ({ el, box: el.getBoundingClientRect(), what: describe(el) }));

  /** The line boxes of an element's own text (not the text of a control inside it, as a button's label). */
  const linesOf = (text: Element): DOMRect[] => {
    const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
    const lines: DOMRect[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent?.trim()) continue;
      const parent = node.parentElement;
      const control = parent?.closest(CONTROLS);
      if (control && text.contains(control)) continue;
      if (parent && !shown(parent)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      lines.push(...[...range.getClientRects()].filter((r) => r.width > 1 && r.height > 1));
    }
    return lines;
  };
  const texts = [...scope.querySelectorAll(TEXTS)].filter(shown).map((el) => ({ el, lines: linesOf(el), what: `<${el.tagName.toLowerCase()}> "${words(el)}"` }));

  const cross = (a: DOMRect, b: DOMRect) => {
    const width = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const height = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    // touching edges and sub-pixel rounding are not an overlap
    return width > 2 && height > 2 ? `${Math.round(width)}x${Math.round(height)} px` : null;
  };
  const found = new Set<string>();
  texts.forEach((text, i) => {
    for (const line of text.lines) {
      for (const control of controls) {
        const by = cross(line, control.box);
        if (by) found.add(`${text.what} overlaps ${control.what} by ${by}`);
      }
      for (const other of texts.slice(i + 1)) {
        if (text.el.contains(other.el) || other.el.contains(text.el)) continue;
        for (const line2 of other.lines) {
          const by = cross(line, line2);
          if (by) found.add(`${text.what} overlaps ${other.what} by ${by}`);
        }
      }
    }
  });
  return [...found];
}

const visited: string[] = [];
const problems: string[] = [];

/** Check the view as shown now: no overlap (collected, so every page is still visited), optionally axe. */
async function check(page: Page, name: string, opts: { axe?: boolean } = {}) {
  await page.evaluate(async () => {
    await document.fonts.ready;
    window.scrollTo(0, 0);
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  });
  visited.push(page.url().replace(/^https?:\/\/[^/]+/, ''));
  const found = await page.evaluate(overlapsInPage);
  for (const f of found) problems.push(`${name}: ${f}`);
  expect.soft(found, `headings over fields on ${name}`).toEqual([]);
  // A table wider than the window scrolls in its own box: the page itself never scrolls sideways.
  const [scrollWidth, clientWidth] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  if (scrollWidth > clientWidth) problems.push(`${name}: the page is ${scrollWidth} px wide in a ${clientWidth} px window`);
  expect.soft(scrollWidth, `page wider than the window on ${name}`).toBeLessThanOrEqual(clientWidth);
  const file = name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'root';
  await page.screenshot({ path: test.info().outputPath(`${file}.png`), fullPage: true });
  if (opts.axe) {
    const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const critical = result.violations.filter((v) => v.impact === 'critical');
    expect.soft(critical.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`), `axe critical on ${name}`).toEqual([]);
  }
}

/** The page's title is up and nothing is still loading. */
async function settled(page: Page, heading?: string | RegExp) {
  await expect(page.getByRole('heading', { level: 1, ...(heading ? { name: heading } : {}) }).first()).toBeVisible();
  await expect(page.locator('[role="status"]').filter({ hasText: /^(Loading|Reading|Looking|Checking|Calculating)/ })).toHaveCount(0, { timeout: 60_000 });
}

async function visit(page: Page, url: string, opts: { heading?: string | RegExp; axe?: boolean } = {}) {
  await test.step(url, async () => {
    visited.push(url); // as asked: '/' shows the vCenters page under its own URL
    await page.goto(url);
    await settled(page, opts.heading);
    await check(page, url, opts);
  });
}

/** Click the first enabled button with this name, if the page offers one; says whether it did. */
async function open(page: Page, name: string | RegExp): Promise<boolean> {
  const button = page.getByRole('button', { name, exact: typeof name === 'string' }).first();
  if (!(await button.isVisible()) || !(await button.isEnabled())) return false;
  await button.click();
  return true;
}

async function connectVcsim(page: Page): Promise<number> {
  const csrf = (await page.context().cookies()).find((c) => c.name.startsWith('arcvsa_csrf'))?.value ?? '';
  const created = await page.request.post('/api/vcenters', {
    headers: { 'X-CSRF-Token': csrf },
    data: {
      name: `vcsim-${Date.now().toString(36)}`,
      host: env('VCSIM_HOST'),
      port: Number(env('VCSIM_PORT')),
      username: env('VCSIM_USER'),
      password: env('VCSIM_PASSWORD'),
      thumbprint_sha256: env('VCSIM_THUMBPRINT'),
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  return ((await created.json()) as { id: number }).id;
}

interface Inventory {
  datacenters: { name: string; moid: string }[];
  clusters: { name: string; datacenter: string; moid: string }[];
  hosts: { name: string; cluster: string | null }[];
}

const STEPS = ['vcenter', 'placement', 'backend', 'pooltype', 'desktops', 'review', 'deploy'];

test('no heading, legend or label overlaps a form control, on any page', async ({ page }) => {
  test.setTimeout(420_000);
  const patterns = routes();

  await test.step('/login', async () => {
    await page.goto('/login');
    await expect(page.getByRole('button', { name: 'Log in' })).toBeVisible();
    await check(page, '/login');
    await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
    await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_ADMIN_PASSWORD'));
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
  });
  const vcId = await connectVcsim(page);
  const inventory = (await (await page.request.get(`/api/vcenters/${vcId}/inventory`)).json()) as Inventory;

  await visit(page, '/', { heading: 'vCenters' });
  await test.step('/vcenters: the saved connection tested on load, and the connect form', async () => {
    await page.goto('/vcenters');
    await settled(page, 'vCenters');
    // a connection made a moment ago shows its real state, never "Not tested"
    await expect(page.getByTestId('vcenter-state').first()).toHaveAttribute('data-state', 'connected', { timeout: 60_000 });
    await expect(page.getByText('Not tested')).toHaveCount(0);
    await check(page, '/vcenters', { axe: true });
  });
  await visit(page, `/vcenters/${vcId}/inventory`, { heading: /vcsim-/ });
  await visit(page, '/pools');
  await visit(page, '/fleet');
  await visit(page, '/appliances');

  await test.step('/settings and its forms', async () => {
    await page.goto('/settings');
    await settled(page, 'Settings');
    await check(page, '/settings', { axe: true });
    await open(page, 'Add user');
    if (await open(page, 'Upload a certificate')) await open(page, 'Install certificate'); // empty: its errors shown
    await page.getByTestId('backup-form').getByRole('button', { name: 'Download backup' }).click(); // empty: refused
    await page.getByTestId('restore-form').getByRole('button', { name: 'Restore' }).click();
    await check(page, '/settings (forms open, refusals shown)', { axe: true });
    if (await open(page, /^Change password of/)) {
      await expect(page.getByRole('heading', { name: 'Change your password' })).toBeVisible();
      await check(page, '/settings (password dialog)');
      await page.keyboard.press('Escape');
    }
  });

  for (const url of ['/storage', '/storage/disks', '/storage/pools', '/storage/datasets', '/storage/exports', '/storage/iscsi']) {
    await visit(page, url);
  }
  await test.step('/storage forms open where the page offers them', async () => {
    for (const [url, button] of [
      ['/storage/pools', 'Create pool'],
      ['/storage/pools', 'Import pool'],
      ['/storage/exports', 'Add export'],
      ['/storage/iscsi', 'Add target'],
    ] as const) {
      await page.goto(url);
      await settled(page);
      if (await open(page, button)) await check(page, `${url} (${button})`);
    }
  });
  await test.step('/storage/tuning with a calculation shown', async () => {
    await page.goto('/storage/tuning');
    await settled(page);
    await check(page, '/storage/tuning');
    if (await open(page, 'Calculate')) {
      await settled(page);
      await check(page, '/storage/tuning (calculated)');
    }
  });
  await test.step('/storage/calibration with its stored runs', async () => {
    await page.goto('/storage/calibration');
    await settled(page, 'Calibration');
    await check(page, '/storage/calibration', { axe: true });
    const show = page.getByRole('button', { name: /^Show calibration/ });
    for (let i = 0; i < (await show.count()); i++) {
      await show.nth(i).click();
      await check(page, `/storage/calibration (run ${i + 1} shown)`);
    }
  });

  // The wizard: every step reachable through a saved draft (as after a reload), on vcsim's first datacenter,
  // cluster and two hosts; the steps with disclosures are checked with them open too.
  const dc = inventory.datacenters[0]!;
  const cluster = inventory.clusters.find((c) => c.datacenter === dc.moid)!;
  const hosts = inventory.hosts.filter((h) => h.cluster === cluster.moid).slice(0, 2).map((h) => h.name);
  await page.evaluate(
    (draft) => localStorage.setItem('arcvsa.wizard.draft', draft),
    JSON.stringify({ vcenterId: vcId, datacenter: dc.name, cluster: cluster.name, hosts, reached: STEPS.length - 1 }),
  );
  for (const step of STEPS) {
    await test.step(`/deploy/${step}`, async () => {
      await page.goto(`/deploy/${step}`);
      await settled(page, 'Deploy a desktop pool');
      // Review and Deploy send an incomplete plan back to the step that asks for the refused field: whichever
      // step is shown is checked.
      await expect(page.getByRole('heading', { level: 2, name: /^\d\. / })).toBeVisible();
      if (step === 'vcenter') {
        // each saved connection shows its state now, as the vCenters page does
        await expect(page.getByTestId('vcenter-option').first().getByTestId('vcenter-state')).toHaveAttribute('data-state', 'connected', { timeout: 60_000 });
      }
      await check(page, `/deploy/${step}`, { axe: ['vcenter', 'pooltype', 'desktops'].includes(step) });
      if (step === 'vcenter' && (await open(page, 'Add a vCenter…'))) await check(page, '/deploy/vcenter (add form)');
      if (step === 'backend') {
        for (const add of await page.getByRole('button', { name: /Add a LUN/ }).all()) await add.click();
        for (const more of await page.getByText('Advanced', { exact: true }).all()) await more.click();
        await open(page, 'Next'); // empty answers: every refusal shown under its field
        await check(page, '/deploy/backend (LUNs, advanced, refusals)');
      }
      if (step === 'pooltype') {
        const details = page.getByText('All tuning values and why', { exact: false });
        if (await details.count()) {
          await details.first().click();
          await check(page, '/deploy/pooltype (all tuning values)', { axe: true });
        }
      }
      if (step === 'desktops') {
        await page.getByRole('checkbox', { name: /Horizon/ }).check();
        await open(page, 'Next: review');
        await check(page, '/deploy/desktops (Horizon, refusals)', { axe: true });
      }
    });
  }

  await test.step('every route of pages.ts was visited', async () => {
    const missed = patterns.filter((p) => !visited.some((url) => matches(p, url)));
    expect(missed, 'routes of web/src/app/pages.ts this spec did not visit').toEqual([]);
  });
  console.log(`layout: ${visited.length} views checked, ${problems.length} overlaps`);
  for (const p of problems) console.log(`  ${p}`);
});
