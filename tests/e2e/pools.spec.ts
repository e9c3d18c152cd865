// The Desktop pools and Appliances pages against the real api and vcsim (tests/e2e/test_browser.py
// stores and applies a 3-desktop pool through the api first, gives the golden VM a second snapshot, and
// stores a fleet of two appliances: the api itself stands in for one, nothing answers for the other).
// Grow by 2, recompose to the new snapshot and delete, all through the pages; screenshots of each step
// land in the run's output folder (web/test-results/pools).
import { type Locator, type Page, expect, test } from '@playwright/test';
import path from 'node:path';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: tests/e2e/test_browser.py sets it`);
  return value;
}

const POOL = process.env.ARCVSA_POOL ?? 'pool-e2e';
const GOLDEN = env('ARCVSA_GOLDEN_VM');
const NEW_SNAPSHOT = env('ARCVSA_NEW_SNAPSHOT');
const FLEET = process.env.ARCVSA_FLEET ?? 'e2e-fleet';

async function logIn(page: Page) {
  await page.goto('/');
  await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
  await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_ADMIN_PASSWORD'));
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
}

async function open(page: Page, link: string, heading: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
}

/** Wait until the card's latest job is the next one after `before` and it succeeded. */
async function nextJobSucceeds(card: Locator, before: string | null) {
  const state = card.getByTestId('job-state').first();
  await expect
    .poll(async () => [await state.getAttribute('data-job'), await state.getAttribute('data-state')], { timeout: 60_000 })
    .toEqual([String(Number(before) + 1), 'succeeded']);
}

const shot = (page: Page, dir: string, name: string) => page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });

test('desktop pools: see, grow, recompose and delete a pool; the appliances page', async ({ page }, testInfo) => {
  const dir = testInfo.project.outputDir;
  await logIn(page);
  await open(page, 'Desktop pools', 'Desktop pools');
  const card = page.getByTestId('deployment-card').filter({ has: page.getByRole('heading', { name: POOL }) });

  await test.step('the applied pool with its size, golden image, datastore and health', async () => {
    const fleetCard = page.getByTestId('deployment-card').filter({ has: page.getByRole('heading', { name: FLEET }) });
    await expect(fleetCard).toContainText('No desktop pool');
    await expect(card).toBeVisible();
    await expect(card.getByTestId('pool-count')).toContainText('3 desktops');
    await expect(card.getByTestId('pool-source')).toHaveText(`${GOLDEN}@base`);
    // which vCenter and which Horizon it belongs to, as the Add vCenter step named them
    await expect(card.getByTestId('deployment-vcenter')).toHaveText(/^lab-vc \(127\.0\.0\.1\)$/);
    await expect(card.getByTestId('deployment-horizon')).toHaveText('not handed to Horizon');
    await expect(card.getByTestId('job-state').first()).toHaveAttribute('data-state', 'succeeded');
    await expect(card.getByTestId('desktops-present')).toHaveText('3 of 3');
    await shot(page, dir, '01-pools');
  });

  await test.step('grow by 2: the names added, the diff, then apply', async () => {
    await card.getByRole('button', { name: `Grow or shrink ${POOL}` }).click();
    const dialog = page.getByRole('dialog');
    const count = dialog.getByLabel('Desktops', { exact: true });
    await count.fill('0');
    await expect(count).toHaveAttribute('aria-invalid', 'true');
    await count.fill('5');
    await expect(dialog.getByTestId('resize-added')).toContainText('Grows by 2: e2e-04, e2e-05');
    await dialog.getByRole('button', { name: 'Show changes' }).click();
    const diff = dialog.getByTestId('plan-diff');
    await expect(diff.locator('li[data-op="create"][data-kind="desktop"]')).toHaveCount(2);
    await expect(diff.locator('li[data-name="e2e-05"]')).toBeVisible();
    await expect(dialog.getByTestId('resize-added')).toContainText('Grows by 2: e2e-04, e2e-05');
    await expect(dialog.getByText('pool-e2e has 3 desktops (e2e-01, e2e-02, e2e-03).')).toBeVisible();
    await shot(page, dir, '02-grow-diff');
    const before = await card.getByTestId('job-state').first().getAttribute('data-job');
    await dialog.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await nextJobSucceeds(card, before);
    await expect(card.getByTestId('pool-count')).toContainText('5 desktops');
    await expect(card.getByTestId('desktops-present')).toHaveText('5 of 5');
    await shot(page, dir, '03-grown');
  });

  await test.step('recompose to a new snapshot of the golden VM', async () => {
    await card.getByRole('button', { name: `Recompose ${POOL}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(`Snapshot of ${GOLDEN}`).selectOption(NEW_SNAPSHOT);
    await dialog.getByRole('button', { name: 'Show changes' }).click();
    await expect(dialog.getByTestId('plan-diff').locator('li[data-op="replace"][data-kind="desktop"]')).toHaveCount(5);
    await expect(dialog.getByLabel(`Snapshot of ${GOLDEN}`)).toHaveValue(NEW_SNAPSHOT);
    await expect(dialog.getByText(`clones of ${GOLDEN}@base`)).toBeVisible();
    await shot(page, dir, '04-recompose-diff');
    const before = await card.getByTestId('job-state').first().getAttribute('data-job');
    await dialog.getByRole('button', { name: 'Apply', exact: true }).click();
    await nextJobSucceeds(card, before);
    await expect(card.getByTestId('pool-source')).toHaveText(`${GOLDEN}@${NEW_SNAPSHOT}`);
    await expect(card.getByTestId('desktops-present')).toHaveText('5 of 5');
  });

  await test.step('the appliances page: this machine, then the fleet with health, version and alerts', async () => {
    await open(page, 'Appliances', 'Appliances');
    await expect(page.getByTestId('this-appliance')).toContainText('outside an appliance image');
    const rows = page.getByTestId('fleet-table').getByTestId('appliance-row');
    await expect(rows).toHaveCount(2);
    const standIn = rows.filter({ has: page.getByRole('rowheader', { name: 'vsa-e2e-0' }) });
    await expect(standIn.getByTestId('appliance-health')).toHaveAttribute('data-health', 'warning');
    await expect(standIn).toContainText(/\d+\.\d+\.\d+/); // the version its api reports
    await expect(standIn.getByTestId('appliance-alerts')).toContainText('pool state unreadable'); // no ZFS here
    const dead = rows.filter({ has: page.getByRole('rowheader', { name: 'vsa-e2e-1' }) });
    await expect(dead.getByTestId('appliance-health')).toHaveText('Unreachable');
    await expect(dead.getByTestId('appliance-alerts')).toContainText('unreachable');
    await shot(page, dir, '05-appliances');
  });

  await test.step('delete: the objects that go listed, the name typed, destroyed and forgotten', async () => {
    await open(page, 'Desktop pools', 'Desktop pools');
    await card.getByRole('button', { name: `Delete ${POOL}` }).click();
    const dialog = page.getByRole('dialog');
    const doomed = dialog.getByTestId('doomed-objects');
    await expect(doomed.locator('li[data-kind="desktop"]')).toHaveCount(5);
    await expect(doomed.locator('li[data-kind="folder"]')).toHaveCount(1);
    const remove = dialog.getByRole('button', { name: `Delete ${POOL}` });
    await expect(remove).toBeDisabled();
    await dialog.getByLabel(`Type ${POOL} to confirm`).fill(POOL);
    await shot(page, dir, '06-delete-confirm');
    await remove.click();
    await expect(card).toHaveCount(0, { timeout: 60_000 });
    await expect(page.getByTestId('deployment-card')).toHaveCount(1); // the fleet's, which has no pool
    await shot(page, dir, '07-deleted');
  });
});
