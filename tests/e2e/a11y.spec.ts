// axe-core on every page of the app, against a live arcvsa api (ARCVSA_URL, ARCVSA_ADMIN_USER,
// ARCVSA_ADMIN_PASSWORD); with VCSIM_* set (test_browser.py passes vcsim's) a vCenter is connected first so
// the inventory page and every wizard step have content.
//
// A critical violation fails the run; serious ones are listed in the output (and in a11y.json in the run's
// output folder) for the page owners to fix.
import AxeBuilder from '@axe-core/playwright';
import { type Page, expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: point ARCVSA_URL and the admin credentials at an arcvsa api`);
  return value;
}

// WCAG 2.1 A and AA, as the axe rules tag them; best practices are left out (they are not failures).
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface Finding {
  page: string;
  impact: string;
  rule: string;
  help: string;
  targets: string[];
}

const findings: Finding[] = [];

async function logIn(page: Page) {
  await page.goto('/login');
  await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
  await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_ADMIN_PASSWORD'));
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
}

/** Wait for the page's title and for its loads to end: axe looks at what a person would see. */
async function settled(page: Page, heading: string | RegExp) {
  await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
  await expect(page.locator('[role="status"]').filter({ hasText: /^(Loading|Reading|Looking|Checking)/ })).toHaveCount(0);
}

/** Run axe on what is on screen; critical violations fail (softly: every page is still checked). */
async function check(page: Page, name: string) {
  const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  for (const v of result.violations) {
    findings.push({
      page: name,
      impact: v.impact ?? 'unknown',
      rule: v.id,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    });
  }
  const critical = result.violations.filter((v) => v.impact === 'critical');
  const serious = result.violations.filter((v) => v.impact === 'serious');
  console.log(`a11y ${name}: ${critical.length} critical, ${serious.length} serious (${result.passes.length} rules pass)`);
  for (const v of [...critical, ...serious]) {
    console.log(`  [${v.impact}] ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`);
  }
  expect.soft(critical.map((v) => `${v.id}: ${v.help}`), `critical accessibility violations on ${name}`).toEqual([]);
}

async function visit(page: Page, url: string, heading: string | RegExp, name = url) {
  await test.step(name, async () => {
    await page.goto(url);
    await settled(page, heading);
    await check(page, name);
  });
}

interface Inventory {
  datacenters: { name: string; moid: string }[];
  clusters: { name: string; datacenter: string; moid: string }[];
  hosts: { name: string; cluster: string | null }[];
}

/** Connect vcsim through the api (the connect journey itself is connect-vcenter.spec.ts). */
async function connectVcsim(page: Page): Promise<{ id: number; inventory: Inventory } | null> {
  if (!process.env.VCSIM_HOST) return null;
  const csrf = (await page.context().cookies()).find((c) => c.name.startsWith('arcvsa_csrf'))?.value ?? '';
  const created = await page.request.post('/api/vcenters', {
    headers: { 'X-CSRF-Token': csrf },
    data: {
      name: 'vcsim',
      host: env('VCSIM_HOST'),
      port: Number(env('VCSIM_PORT')),
      username: env('VCSIM_USER'),
      password: env('VCSIM_PASSWORD'),
      thumbprint_sha256: process.env.VCSIM_THUMBPRINT ?? null,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { id: number }).id;
  const inventory = await page.request.get(`/api/vcenters/${id}/inventory`);
  expect(inventory.ok()).toBe(true);
  return { id, inventory: (await inventory.json()) as Inventory };
}

const STEPS = ['vcenter', 'placement', 'backend', 'pooltype', 'desktops', 'review', 'deploy'];

test('every page: no critical accessibility violation', async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  await test.step('login', async () => {
    await page.goto('/login');
    await expect(page.getByRole('button', { name: 'Log in' })).toBeVisible();
    await check(page, '/login');
  });
  await logIn(page);
  const vc = await connectVcsim(page);

  await visit(page, '/vcenters', 'vCenters');
  if (vc) await visit(page, `/vcenters/${vc.id}/inventory`, /vcsim/, '/vcenters/:id/inventory');
  await visit(page, '/pools', 'Desktop pools');
  await visit(page, '/fleet', 'Fleet');
  await visit(page, '/appliances', 'Appliances');
  await visit(page, '/settings', 'Settings');
  await test.step('/settings with its forms open', async () => {
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('button', { name: 'Upload a certificate' }).click();
    await page.getByRole('button', { name: 'Install certificate' }).click(); // empty: the inline errors
    await expect(page.locator('[data-field-message="certificate"]')).toContainText('Paste the certificate');
    await check(page, '/settings (add user, certificate upload, errors shown)');
    await page.getByRole('button', { name: /^Change password of/ }).first().click();
    await expect(page.getByRole('heading', { name: 'Change your password' })).toBeVisible();
    await check(page, '/settings (password dialog)');
    await page.keyboard.press('Escape');
  });
  for (const [url, heading] of [
    ['/storage', 'Storage dashboard'],
    ['/storage/disks', 'Disks'],
    ['/storage/pools', 'Pools'],
    ['/storage/datasets', 'Datasets'],
    ['/storage/exports', 'NFS exports'],
    ['/storage/iscsi', 'iSCSI targets'],
    ['/storage/tuning', 'Tuning'],
    ['/storage/calibration', 'Calibration'],
  ] as const) {
    await visit(page, url, heading);
  }

  // The wizard: every step, each made reachable by a saved draft (as after a reload), with vcsim's
  // datacenter, cluster and first host when there is a vCenter.
  const dc = vc?.inventory.datacenters[0];
  const cluster = vc?.inventory.clusters.find((c) => c.datacenter === dc?.moid);
  const host = vc?.inventory.hosts.find((h) => h.cluster === cluster?.moid);
  await page.evaluate(
    ([draft]) => localStorage.setItem('arcvsa.wizard.draft', draft),
    [
      JSON.stringify({
        vcenterId: vc?.id ?? null,
        datacenter: dc?.name ?? '',
        cluster: cluster?.name ?? '',
        hosts: host ? [host.name] : [],
        reached: STEPS.length - 1,
      }),
    ],
  );
  for (const step of STEPS) {
    await visit(page, `/deploy/${step}`, 'Deploy a desktop pool', `/deploy/${step}`);
  }

  writeFileSync(testInfo.outputPath('a11y.json'), JSON.stringify(findings, null, 2));
  const counts = (impact: string) => findings.filter((f) => f.impact === impact).length;
  console.log(`a11y total: ${counts('critical')} critical, ${counts('serious')} serious, ${counts('moderate')} moderate, ${counts('minor')} minor`);
});
