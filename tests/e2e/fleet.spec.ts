// The Fleet page against the real api (tests/e2e/test_browser.py::test_the_fleet_dashboard_with_a_dead_and_a_slow_appliance
// stores two deployments of five appliances: three real appliance apis on recorded outputs, two of them with
// recorded samples; one address nothing listens on; one that accepts and never answers). What the page shows
// is checked against what the manager's api answers; screenshots land in web/test-results/fleet.
import { type Page, expect, test } from '@playwright/test';
import path from 'node:path';
import { expectNoCriticalA11y } from './axe';
import { env, logIn } from './session';

interface Figures {
  arc_hit_ratio: number | null;
  read_offload: number | null;
  compressratio: number | null;
  client_iops: number;
}
interface Appliance {
  name: string;
  state: string;
  reason: string | null;
  figures: Figures | null;
}
interface View {
  timeout_seconds: number;
  deployments: { name: string; appliances: Appliance[] }[];
}

const shot = (page: Page, dir: string, name: string) => page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
const row = (page: Page, name: string) => page.locator(`[data-testid="fleet-row"][data-name="${name}"]`);
const detail = (page: Page, name: string) => page.locator(`[data-testid="fleet-detail"][data-name="${name}"]`);
const names = async (page: Page, deployment: string) =>
  page.locator(`[data-testid="fleet-deployment"][data-name="${deployment}"] [data-testid="fleet-row"]`).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));

test('the fleet: every appliance with its figures, the dead and the slow one named, sorted and charted', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const dir = testInfo.project.outputDir;
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fleet', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Fleet', level: 1 })).toBeVisible();
  await expect(page.getByTestId('fleet-answering')).toContainText('3 of 5', { timeout: 60_000 });

  const answer = await page.request.get('/api/fleet?minutes=60');
  expect(answer.ok()).toBe(true);
  const view = (await answer.json()) as View;
  const all = new Map(view.deployments.flatMap((d) => d.appliances.map((a) => [a.name, a] as const)));

  await test.step('each deployment with its appliances, and why two could not be read', async () => {
    await expect(page.getByTestId('fleet-deployment')).toHaveCount(2);
    await expect.poll(() => names(page, 'e2e-fleet-a')).toEqual(['vsa-a0', 'vsa-a1', 'vsa-a2']);
    const slow = row(page, 'vsa-a2');
    await expect(slow.getByTestId('fleet-state')).toHaveText('Too slow');
    await expect(detail(page, 'vsa-a2').getByTestId('fleet-reason')).toHaveText(`no answer within ${view.timeout_seconds} s`);
    const dead = row(page, 'vsa-b0');
    await expect(dead.getByTestId('fleet-state')).toHaveText('Unreachable');
    await expect(detail(page, 'vsa-b0').getByTestId('fleet-reason')).toContainText('cannot be reached');
    await expect(dead.locator('[data-column="read_offload"]')).toHaveText('—');
    // every appliance's alerts reach the manager's banner, each naming its appliance
    const banner = page.getByTestId('alert-banner');
    await expect(banner).toContainText('vsa-b0: the manager cannot read this appliance of deployment e2e-fleet-b');
    await expect(banner).toContainText('vsa-a2: the manager cannot read this appliance of deployment e2e-fleet-a: no answer within');
    await expect(banner).toContainText('vsa-a0: time synchronisation');
    await shot(page, dir, '01-fleet');
  });

  await test.step('an appliance read: its figures as its api gave them', async () => {
    const busy = all.get('vsa-a0');
    expect(busy?.state).toBe('ok');
    const f = busy?.figures;
    expect(f?.compressratio).not.toBeNull();
    const line = row(page, 'vsa-a0');
    await expect(line.locator('[data-column="compressratio"]')).toHaveText(`${f?.compressratio?.toFixed(2)}x`);
    await expect(line.locator('[data-column="arc_hit_ratio"]')).toHaveText(`${Math.round((f?.arc_hit_ratio ?? 0) * 100)} %`);
    // the page's "times" format: one decimal below 10, none above, a trailing ".0" dropped
    const offload = f?.read_offload ?? null;
    expect(offload).not.toBeNull();
    const shown = ((offload ?? 0) >= 10 ? (offload ?? 0).toFixed(0) : (offload ?? 0).toFixed(1)).replace(/\.0$/, '');
    await expect(line.locator('[data-column="read_offload"]')).toHaveText(`${shown}x`);
    await expect(detail(page, 'vsa-a0').getByTestId('fleet-alerts')).toContainText('chronyd');
    await expect(line.locator('[data-column="alerts"]')).toHaveText('1'); // the recording's clock alert
    await expect(row(page, 'vsa-a1').locator('[data-column="client_iops"]')).toHaveText('0'); // no samples
  });

  await test.step('sorted by a figure, and by state with the worst first', async () => {
    const table = page.locator('[data-testid="fleet-deployment"][data-name="e2e-fleet-a"]');
    const header = table.getByRole('button', { name: 'Client IOPS', exact: true });
    await header.click(); // ascending: the idle one first, the one not measured always last
    await expect(table.locator('th[aria-sort="ascending"]')).toHaveText(/Client IOPS/);
    await expect.poll(() => names(page, 'e2e-fleet-a')).toEqual(['vsa-a1', 'vsa-a0', 'vsa-a2']);
    await header.click(); // descending: the busiest first
    await expect(table.locator('th[aria-sort="descending"]')).toHaveText(/Client IOPS/);
    await expect.poll(() => names(page, 'e2e-fleet-a')).toEqual(['vsa-a0', 'vsa-a1', 'vsa-a2']);
    await table.getByRole('button', { name: 'State', exact: true }).click();
    await expect.poll(() => names(page, 'e2e-fleet-a')).toEqual(['vsa-a2', 'vsa-a0', 'vsa-a1']); // too slow, then the alerts
    await expect.poll(() => names(page, 'e2e-fleet-b')).toEqual(['vsa-b0', 'vsa-b1']);
    await shot(page, dir, '02-sorted-by-state');
  });

  await test.step('charts for the fleet, then for one appliance', async () => {
    await expect(page.getByTestId('fleet-charts').getByTestId('chart')).toHaveCount(6);
    await expect(page.getByLabel('Charts for')).toHaveValue('fleet');
    await row(page, 'vsa-b1').getByRole('button', { name: 'vsa-b1' }).click();
    await expect(page.getByLabel('Charts for')).toHaveValue(/vsa-b1$/);
    await expect(page.getByTestId('fleet-charts').getByTestId('chart')).toHaveCount(6);
    await expect(row(page, 'vsa-b1')).toHaveClass(/charted/);
    await page.getByTestId('fleet-charts').scrollIntoViewIfNeeded();
    await shot(page, dir, '03-charts-of-one');
    await expectNoCriticalA11y(page, '/fleet');
  });

  await test.step('back up all: one archive of the three that answer, the dead and the silent one named', async () => {
    await page.getByRole('button', { name: 'Back up all' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Passphrase', { exact: true }).fill('too short');
    await dialog.getByLabel('Passphrase again', { exact: true }).fill('too short');
    await dialog.getByRole('button', { name: 'Back up', exact: true }).click();
    await expect(dialog).toContainText('At least 12 characters');
    const passphrase = 'fleet backup passphrase';
    await dialog.getByLabel('Passphrase', { exact: true }).fill(passphrase);
    await dialog.getByLabel('Passphrase again', { exact: true }).fill(passphrase);
    await dialog.getByRole('button', { name: 'Back up', exact: true }).click();
    const result = dialog.getByTestId('fleet-backup-result');
    await expect(result).toContainText('3 of 5 appliances backed up', { timeout: 60_000 });
    const state = (name: string) => result.locator(`[data-testid="fleet-backup-row"][data-name="${name}"]`);
    for (const name of ['vsa-a0', 'vsa-a1', 'vsa-b1']) await expect(state(name)).toHaveAttribute('data-state', 'taken');
    for (const name of ['vsa-a2', 'vsa-b0']) await expect(state(name)).toHaveAttribute('data-state', 'failed');
    await expect(state('vsa-b0')).toContainText('cannot be reached');
    await expect(state('vsa-a0')).toContainText('e2e-fleet-a/vsa-a0.arcvsa-backup');
    await shot(page, dir, '04-backup');
    const kept = dialog.getByTestId('fleet-backups-kept').getByRole('button');
    await expect(kept).toHaveCount(1);
    const name = (await kept.textContent())!.trim();
    const saved = page.waitForEvent('download');
    await kept.click();
    expect((await saved).suggestedFilename()).toBe(name);
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(dialog).toHaveCount(0);
  });
});
