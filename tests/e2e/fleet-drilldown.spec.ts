// An appliance's storage pages on the fleet manager (tests/e2e/test_browser.py::test_an_appliances_storage_pages_through_the_manager
// stores a deployment of one appliance: the real arcvsa api on the strict replay of the lab VM's 'api_pools'
// recording, with pool tank already on one LUN). From the Fleet page to its Pools page, a LUN added there,
// and the manager's own storage pages still its own. Screenshots land in web/test-results/fleet-drilldown.
import { type Page, expect, test } from '@playwright/test';
import path from 'node:path';
import { expectNoCriticalA11y } from './axe';
import { env, logIn } from './session';

const shot = (page: Page, dir: string, name: string) => page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });

test("an appliance's pools through the manager: found from the Fleet page and grown by a LUN", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const dir = testInfo.project.outputDir;
  const lun = env('ARCVSA_FREE_LUN');
  const device = lun.split('/').pop()!; // a vdev row names the device as zpool status does
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  const nav = page.getByRole('navigation', { name: 'Main' });

  await test.step('the Fleet page leads to the appliance’s storage', async () => {
    await nav.getByRole('link', { name: 'Fleet', exact: true }).click();
    await expect(page.getByTestId('fleet-answering')).toContainText('1 of 1', { timeout: 60_000 });
    await page.getByRole('link', { name: 'Storage of vsa-p0' }).click();
    await expect(page).toHaveURL(/\/fleet\/\d+\/vsa-p0\/storage$/);
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    await expect(crumbs).toContainText('Fleet › e2e-fleet-p › vsa-p0');
    await expect(nav.getByRole('heading', { name: 'Storage of vsa-p0' })).toBeVisible();
    // the manager has no storage of its own: no Storage group of its own beside the appliance's
    await expect(nav.getByRole('heading', { name: 'Storage', exact: true })).toHaveCount(0);
    await shot(page, dir, '01-dashboard');
  });

  await test.step('its pools, asked of it through the manager', async () => {
    await nav.getByRole('link', { name: 'Pools', exact: true }).click();
    await expect(page).toHaveURL(/\/fleet\/\d+\/vsa-p0\/storage\/pools$/);
    const card = page.locator('[data-testid="pool-card"][data-pool="tank"]');
    await expect(card).toBeVisible({ timeout: 30_000 });
    await expect(card.getByTestId('vdev-row')).toHaveCount(1);
    await expect(card.getByTestId('vdev-row').filter({ hasText: device })).toHaveCount(0);
    await expectNoCriticalA11y(page, 'an appliance\'s pools through the manager');
    await shot(page, dir, '02-pools');
  });

  await test.step('a free LUN added to tank there; the card shows it', async () => {
    const card = page.locator('[data-testid="pool-card"][data-pool="tank"]');
    await card.getByRole('button', { name: 'Add LUNs to pool tank' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('Add LUNs to tank');
    await dialog.getByLabel(lun, { exact: true }).check();
    await shot(page, dir, '03-grow-dialog');
    await dialog.getByRole('button', { name: 'Add 1 LUN' }).click();
    await expect(dialog).toHaveCount(0, { timeout: 60_000 });
    await expect(card.getByTestId('vdev-row').filter({ hasText: device })).toHaveCount(1);
    await expect(card).toContainText('stripe of 2 LUNs');
    await shot(page, dir, '04-grown');
  });

  await test.step('the same page under /storage is the manager’s own: it has none', async () => {
    await page.goto('/storage/pools');
    await expect(page.getByTestId('no-local-storage')).toBeVisible();
  });
});
