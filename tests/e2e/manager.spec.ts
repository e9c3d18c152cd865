// The fleet manager looks like what it is (tests/e2e/test_browser.py starts its api with the role manager;
// a machine without OpenZFS and no role, as in make demo, is the same). Its nav has no Storage group, a storage page opened by its address
// says why there is nothing, no answer is a 5xx while pages poll (the alerts banner did every 15 s), and
// no raw tool error shows anywhere. Then two arcvsa on one host (ARCVSA_OTHER_URL, another port): logging
// in to one keeps the other's session.
import { type Page, type Response, expect, test } from '@playwright/test';
import { expectNoCriticalA11y } from './axe';
import { env, logIn } from './session';

async function shot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
}

test('the manager: no Storage group, explained pages, no background 5xx', async ({ page }) => {
  const failed: string[] = [];
  const alerts: number[] = [];
  page.on('response', (r: Response) => {
    if (r.status() >= 500) failed.push(`${r.status()} ${r.url()}`);
    if (new URL(r.url()).pathname === '/api/alerts') alerts.push(r.status());
  });
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  const presence = (await (await page.request.get('/api/storage/presence')).json()) as {
    present: boolean;
    reason: string;
  };
  expect(presence.present).toBe(false);

  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Deploy', exact: true })).toBeVisible();
  await expect(nav.getByRole('heading', { name: 'Storage' })).toHaveCount(0);
  for (const link of ['Dashboard', 'Disks', 'Pools', 'Datasets', 'NFS exports', 'iSCSI targets', 'Calibration']) {
    await expect(nav.getByRole('link', { name: link, exact: true })).toHaveCount(0);
  }
  await shot(page, 'manager-nav');
  await expectNoCriticalA11y(page, 'the manager\'s nav');

  for (const url of ['/storage', '/storage/disks', '/storage/pools', '/storage/calibration']) {
    await page.goto(url);
    const state = page.getByTestId('no-local-storage');
    await expect(state).toContainText('No storage on this machine');
    await expect(state).toContainText(presence.reason);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.locator('body')).not.toContainText(/is not installed|unknown column|lsblk|zpool/);
  }
  await shot(page, 'manager-storage-page');
  await expectNoCriticalA11y(page, 'a storage page on the manager');
  await page.getByRole('link', { name: 'Go to Appliances' }).click();
  await expect(page.getByRole('heading', { name: 'Appliances', level: 1 })).toBeVisible();

  // The banner polls every 15 s: wait for a poll after the first, each answered 200.
  await expect.poll(() => alerts.length, { timeout: 40_000 }).toBeGreaterThanOrEqual(2);
  expect(alerts.every((s) => s === 200)).toBe(true);
  expect(failed).toEqual([]);
});

test('two arcvsa on one host, other ports: each keeps its session', async ({ page }) => {
  const other = env('ARCVSA_OTHER_URL');
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  const here = page.url();
  await page.goto(`${other}/login`);
  await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
  await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_OTHER_PASSWORD'));
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
  const names = (await page.context().cookies()).map((c) => c.name).sort();
  const port = (url: string) => new URL(url).port;
  expect(names).toEqual(
    [`arcvsa_csrf_${port(here)}`, `arcvsa_csrf_${port(other)}`, `arcvsa_session_${port(here)}`, `arcvsa_session_${port(other)}`].sort(),
  );
  // Back to the first: still signed in, and a change (it needs its own CSRF cookie) goes through.
  await page.goto(here.replace(/\/[^/]*$/, '/settings'));
  await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await shot(page, 'first-still-signed-in');
  const out = page.waitForResponse((r) => r.url().endsWith('/api/auth/logout'));
  await page.getByRole('button', { name: /Log out/ }).click();
  expect((await out).status()).toBe(204);
  // Logging out of the first leaves the other signed in.
  await page.goto(`${other}/vcenters`);
  await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
  await shot(page, 'other-still-signed-in');
});
