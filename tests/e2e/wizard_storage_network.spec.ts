// The wizard's storage port group against the real api and vcsim, started by
// tests/e2e/test_browser.py::test_wizard_storage_port_group_reaches_the_plan (ARCVSA_URL, ARCVSA_ADMIN_*, VCSIM_*).
// One appliance whose storage NIC goes on a port group of its own: its storage address is asked only once a
// storage port group is chosen, refused inline when wrong, and reaches the stored plan (the NFS server too)
// and the Review step, whose diff vCenter answered for the plan with it. Nothing is deployed.
import { expect, type Locator, type Page, test } from '@playwright/test';
import path from 'node:path';
import { connectVcsim, env, logIn } from './session';

// lab/vcsim.py's site
const DATACENTER = 'vdi-dc';
const HOST = 'DC0_C0_H0';
const MANAGEMENT = 'vsa-nfs';
const STORAGE = 'vdi-desktops';
const GOLDEN = 'golden-win11';
const PASSWORD = 'storage-e2e-pass';

const stepHeading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name });

async function expectRefused(field: Locator, message: RegExp) {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(message);
}

interface StoredPlan {
  fleet: {
    network: string;
    storage_network: string | null;
    properties: Record<string, string>;
    appliances: { properties: Record<string, string> }[];
  };
  nfs: { server: string };
}

test('a storage port group and each appliance’s storage address reach the plan and the review', async ({ page }, testInfo) => {
  const shot = (name: string) => page.screenshot({ path: path.join(testInfo.project.outputDir, `${name}.png`), fullPage: true });
  const next = (name = 'Next') => page.getByRole('button', { name, exact: true }).click();
  const storageAddress = page.getByLabel('Storage address of arcvsa-01');

  await test.step('log in, open a fresh wizard, connect vcsim and choose one host', async () => {
    await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
    await page.evaluate(() => localStorage.removeItem('arcvsa.wizard.draft'));
    await page.goto('/deploy');
    await connectVcsim(page, 'storage-vcsim');
    await next();
    await expect(page.getByLabel('Datacenter', { exact: true })).toHaveValue(DATACENTER, { timeout: 60_000 });
    await page.locator(`[data-testid="placement-host"][data-host="${HOST}"]`).getByRole('checkbox').check();
    await next();
  });

  await test.step('3. Back end: no storage fields until a storage port group is chosen, then refused inline', async () => {
    await expect(stepHeading(page, '3. Back end')).toBeVisible();
    const storage = page.getByLabel('Storage port group');
    await expect(storage).toHaveValue('', { timeout: 60_000 });
    await expect(storage).toHaveAccessibleDescription(/storage VMkernel ports; leave empty to serve NFS on the management network/);
    await expect(storageAddress).toHaveCount(0);
    await expect(page.getByLabel('Storage MTU')).toHaveCount(0);

    await page.getByLabel('Appliance OVA').fill('/srv/arcvsa/arcvsa.ova');
    await page.getByLabel('Network', { exact: true }).selectOption(MANAGEMENT);
    await page.getByLabel('Boot datastore').selectOption('san-lun-01');
    await page.getByLabel('IPv4 address of arcvsa-01').fill('192.0.2.11');
    const card = page.locator(`[data-testid="backend-host"][data-host="${HOST}"]`);
    await card.getByRole('button', { name: /Add a LUN/ }).click();
    await card.getByLabel('LUN 1 datastore').selectOption('san-lun-01');
    await card.getByLabel('LUN 1 size (GiB)').fill('100');
    await page.getByLabel('Appliance admin password').fill(PASSWORD);
    await page.getByLabel('Confirm the password').fill(PASSWORD);

    await storage.selectOption(STORAGE);
    await expect(storageAddress).toBeVisible();
    await expect(page.getByLabel('Storage prefix')).toHaveValue('24');
    await expect(page.getByLabel('Storage MTU')).toHaveValue('1500');
    await expect(page.getByLabel('Storage MTU')).toHaveAccessibleDescription(/jumbo frames.*every hop/);
    await next();
    await expectRefused(storageAddress, /Enter the storage address of the appliance on DC0_C0_H0/);
    await storageAddress.fill('192.0.2.11');
    await page.getByLabel('Storage MTU').fill('9001');
    await next();
    await expectRefused(storageAddress, /This is its IPv4 address/);
    await expectRefused(page.getByLabel('Storage MTU'), /from 1280 to 9000/);
    await shot('3-backend-storage-refused');

    await storageAddress.fill('198.51.100.11');
    await page.getByLabel('Storage MTU').fill('9000');
    await shot('3-backend-storage');
    await next();
  });

  await test.step('4 and 5: the pool type as it is, the desktops from the golden image', async () => {
    await expect(stepHeading(page, '4. Pool type')).toBeVisible();
    await next();
    await expect(stepHeading(page, '5. Desktops')).toBeVisible();
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await expect(field('Golden VM')).toBeVisible({ timeout: 60_000 });
    await field('Deployment name').fill('storage-net');
    await field('Golden VM').selectOption(GOLDEN);
    await field('Snapshot').selectOption('base');
  });

  await test.step('6. Review: the stored plan has the storage port group and address, vCenter diffs it', async () => {
    const stored = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/deployments');
    await next('Next: review');
    const plan = ((await stored).postDataJSON() as { plan: StoredPlan }).plan;
    expect(plan.fleet.network).toBe(MANAGEMENT);
    expect(plan.fleet.storage_network).toBe(STORAGE);
    expect(plan.fleet.appliances[0]!.properties).toMatchObject({ ipv4_address: '192.0.2.11', storage_address: '198.51.100.11' });
    expect(plan.fleet.properties).toMatchObject({ storage_prefix: '24', storage_mtu: '9000' });
    expect(plan.nfs.server, 'the hosts mount the datastore on the storage network').toBe('198.51.100.11');

    await expect(stepHeading(page, '6. Review')).toBeVisible();
    const summary = page.locator('.review-summary');
    await expect(summary).toContainText(`Storage network${STORAGE} (MTU 9000): 198.51.100.11/24`);
    const diff = page.getByTestId('review-diff');
    await expect(diff).toBeVisible({ timeout: 60_000 });
    await expect(diff.getByRole('list', { name: 'Changes by kind' }).locator('[data-count="create appliance"]')).toHaveText('Create 1 appliance');
    await shot('6-review-storage');
  });
});
