// Disks free again, on the api_wipe recording (tests/fixtures/appliance/api_flows.py API_WIPE: what the
// appliance's api answered live in the lab VM). page.route answers the Disks and Pools pages from it: reads
// with the recorded answer of the moment, each change only when the page sends exactly the recorded one;
// anything else under /api/storage/disks or /api/storage/pools fails the test.
//
// 1. Pool tank on four disks: none of them offers a wipe (an imported pool's disks are never wiped).
// 2. Destroy tank (its name typed out): the dialog says its disks are freed, the page sends free_disks, and
//    the Disks page shows all four free (before, a new pool on them needed force).
// 3. A disk with an old pool's label (the recording's pool "old", made on lun0 and exported): Wipe, with the
//    disk's name typed out (a wrong name leaves the button off), then the disk is free.
import { type Page, type Route, expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expectNoCriticalA11y } from './axe';
import { env, logIn } from './session';

type Answer = { status: number; body: unknown };
type Disk = { path: string; in_use: string | null; system: boolean };
const file = path.resolve('..', 'tests/fixtures/appliance/recordings/api_wipe.json');
const api = (JSON.parse(readFileSync(file, 'utf8')) as { api: Answer[] }).api;
const LUN0 = '/dev/disk/by-id/virtio-lun0';
const POOL_DISKS = [LUN0, '/dev/disk/by-id/virtio-lun1', '/dev/disk/by-id/virtio-ssd-slog', '/dev/disk/by-id/virtio-ssd-l2arc'];

// What the reads answer at each moment of the flow (indices into API_WIPE's answers).
const MOMENTS = {
  pool: { disks: 1, pools: 2, datasets: 3 },
  destroyed: { disks: 9, pools: 10, datasets: null },
  oldLabel: { disks: 13, pools: 14, datasets: null }, // after steps 11-12: "old" made on lun0 and exported
  wiped: { disks: 16, pools: 17, datasets: null },
} as const;
type Moment = keyof typeof MOMENTS;

async function shot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
}

test('destroy frees the pool’s disks; a disk with an old label is wiped by name', async ({ page }) => {
  let moment: Moment = 'pool';
  const changes = [
    { method: 'DELETE', path: '/api/storage/pools/tank', query: 'free_disks=true', body: null, answer: api[8], then: 'destroyed' },
    { method: 'POST', path: '/api/storage/disks/wipe', query: '', body: { path: LUN0, confirm: 'virtio-lun0' }, answer: api[15], then: 'wiped' },
  ] as const;
  let next = 0;
  const unexpected: string[] = [];
  const answer = async (route: Route) => {
    const request = route.request();
    const url = new URL(request.url());
    const reads = MOMENTS[moment];
    if (request.method() === 'GET') {
      const at =
        url.pathname === '/api/storage/disks' ? reads.disks
        : url.pathname === '/api/storage/pools' ? reads.pools
        : url.pathname === '/api/storage/pools/tank/datasets' ? reads.datasets
        : null;
      if (at !== null) return route.fulfill({ status: api[at]!.status, json: api[at]!.body });
    } else {
      const change = changes[next];
      const sent = request.postData();
      if (
        change &&
        change.method === request.method() &&
        change.path === url.pathname &&
        change.query === url.search.replace(/^\?/, '') &&
        JSON.stringify(change.body) === JSON.stringify(sent ? JSON.parse(sent) : null)
      ) {
        next += 1;
        moment = change.then;
        return route.fulfill({ status: change.answer.status, json: change.answer.body ?? undefined });
      }
    }
    unexpected.push(`${moment}: ${request.method()} ${request.url()} ${request.postData() ?? ''}`);
    return route.abort('failed');
  };
  await page.route('**/api/storage/disks**', answer);
  await page.route('**/api/storage/pools**', answer);
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  const nav = page.getByRole('navigation', { name: 'Main' });

  await test.step('1. tank’s disks are in use and offer no wipe', async () => {
    await nav.getByRole('link', { name: 'Disks', exact: true }).click();
    await expect(page.getByTestId('disk-row')).toHaveCount((api[1]!.body as Disk[]).length);
    for (const disk of POOL_DISKS) {
      const row = page.locator(`[data-testid="disk-row"][data-path="${disk}"]`);
      await expect(row).toContainText('Pool tank');
      await expect(row.getByRole('button', { name: /^Wipe/ })).toHaveCount(0);
    }
    await shot(page, 'disks-in-pool');
  });

  await test.step('2. destroy tank: the page asks to free its disks, and they are free', async () => {
    await nav.getByRole('link', { name: 'Pools', exact: true }).click();
    await page.getByRole('button', { name: 'Destroy pool tank' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('disks-freed')).toHaveText(
      "Its 4 disks are cleared of the pool's labels and become free for a new pool.",
    );
    await dialog.getByLabel('Type tank to confirm').fill('tank');
    await shot(page, 'destroy-dialog');
    await expectNoCriticalA11y(page, 'the destroy dialog');
    await dialog.getByRole('button', { name: 'Destroy tank' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId('pool-card')).toHaveCount(0);
    await nav.getByRole('link', { name: 'Disks', exact: true }).click();
    for (const disk of POOL_DISKS) {
      await expect(page.locator(`[data-testid="disk-row"][data-path="${disk}"]`)).toContainText('Free');
    }
    await expect(page.getByText('4 free disks')).toBeVisible();
    await shot(page, 'disks-freed');
  });

  await test.step('3. a disk with an old pool’s label: wiped once its name is typed', async () => {
    moment = 'oldLabel';
    await page.reload();
    const row = page.locator(`[data-testid="disk-row"][data-path="${LUN0}"]`);
    await expect(row).toContainText('zfs_member');
    await row.getByRole('button', { name: `Wipe ${LUN0}` }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('heading', { name: 'Wipe disk virtio-lun0?' })).toBeVisible();
    const confirm = dialog.getByLabel('Type virtio-lun0 to confirm');
    const go = dialog.getByRole('button', { name: 'Wipe virtio-lun0' });
    await confirm.fill('virtio-lun1');
    await expect(go).toBeDisabled();
    await confirm.fill('virtio-lun0');
    await shot(page, 'wipe-dialog');
    await expectNoCriticalA11y(page, 'the wipe dialog');
    await go.click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByRole('status').filter({ hasText: `${LUN0} is wiped` })).toBeVisible();
    await expect(row).toContainText('Free');
    await expect(row.getByRole('button', { name: /^Wipe/ })).toHaveCount(0);
    await shot(page, 'disk-wiped');
    await expectNoCriticalA11y(page, 'the Disks page after a wipe');
  });

  expect(unexpected).toEqual([]);
  expect(next).toBe(changes.length);
});
