// Placement against the real api and vcsim, started by tests/e2e/test_browser.py::test_placement_admission_and_nfs_addresses
// (ARCVSA_URL, ARCVSA_ADMIN_*, VCSIM_*, VCSIM_ADDED_HOST). What the user sees and does, nothing hidden:
// the only datacenter and cluster are chosen already; each host shows what an appliance of the size chosen in
// the Back end step takes against what it has free, and a host without room (the lab's 24 GiB host, for a
// Large appliance) is refused on the hosts field; the NFS export form offers the hosts' VMkernel addresses.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import path from 'node:path';
import { connectVcsim, env, logIn } from './session';

const DATACENTER = 'vdi-dc';
const CLUSTER = 'vdi-cluster';

test('placement: only choices preselected, a host without room for the chosen size refused; the export form offers NFS addresses', async ({ page }, testInfo) => {
  const shot = async (name: string) => {
    await page.evaluate(() => window.scrollTo(0, 0)); // the header is sticky: from the top, nothing hides under it
    await page.screenshot({ path: path.join(testInfo.project.outputDir, `${name}.png`), fullPage: true });
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const bad = axe.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
    expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`), name).toEqual([]);
  };
  const next = () => page.getByRole('button', { name: 'Next' }).click();

  await test.step('connect vcsim in the wizard', async () => {
    await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
    await page.goto('/deploy');
    await connectVcsim(page, 'lab-vc');
    await next();
  });

  await test.step('2. Placement: the only datacenter and the only cluster are chosen already', async () => {
    await expect(page.getByRole('heading', { level: 2, name: '2. Placement' })).toBeVisible();
    await expect(page.getByLabel('Datacenter', { exact: true })).toHaveValue(DATACENTER, { timeout: 60_000 });
    await expect(page.getByLabel('Cluster', { exact: true })).toHaveValue(CLUSTER);
  });

  const row = (host: string) => page.locator(`[data-testid="placement-host"][data-host="${host}"]`);
  const room = (host: string) => row(host).getByTestId('placement-room');

  await test.step('each host shows its free memory against what a Small appliance takes: Small fits every host', async () => {
    await expect(page.getByText(/A Small appliance takes\s*8 GiB of memory and 2 CPU cores/)).toBeVisible();
    // the lab's hosts (lab/vcsim.py): 128, 128, 128 and 24 GiB of memory, 1404 MiB of each in use
    for (const host of ['DC0_C0_H0', 'DC0_C0_H1', 'DC0_C0_H2']) {
      await expect(row(host)).toContainText('127 GiB free');
      await expect(room(host)).toHaveText('Fits a Small appliance');
    }
    await expect(row('DC0_C0_H3')).toContainText('22.6 GiB free');
    await expect(room('DC0_C0_H3')).toHaveText('Fits a Small appliance');
    await row('DC0_C0_H3').getByRole('checkbox').check();
    await next();
    await expect(page.getByRole('heading', { level: 2, name: '3. Back end' })).toBeVisible();
  });

  await test.step('a Large appliance chosen in the Back end step does not fit the 24 GiB host: refused on the hosts field', async () => {
    await page.getByLabel('Appliance size', { exact: true }).selectOption('large');
    await page.getByRole('button', { name: 'Back', exact: true }).click();
    await expect(page.getByRole('heading', { level: 2, name: '2. Placement' })).toBeVisible();
    await expect(page.getByText(/A Large appliance takes\s*32 GiB of memory and 8 CPU cores/)).toBeVisible();
    await expect(room('DC0_C0_H0')).toHaveText('Fits a Large appliance');
    await expect(room('DC0_C0_H3')).toHaveText(/^Does not fit: 22\.6 GiB of memory free: a Large appliance needs 32\.0 GiB$/);
    await expect(room(env('VCSIM_ADDED_HOST'))).toHaveText(/^Does not fit: 22\.6 GiB/); // a host added later has 24 GiB too
    const box = row('DC0_C0_H3').getByRole('checkbox');
    await expect(box).toBeChecked(); // the choice made before is kept
    await next();
    await expect(box).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByTestId('placement-host').first().getByRole('checkbox')).toBeFocused(); // the field's first box
    await expect(page.locator('[data-field-message="hosts"]')).toHaveText(
      /^DC0_C0_H3 has 22\.6 GiB of memory free: a Large appliance needs 32\.0 GiB: clear it, free room on it, or choose a smaller size in the Back end step\.$/,
    );
    await expect(page.getByRole('heading', { level: 2, name: '2. Placement' })).toBeVisible();
    await shot('placement-refused');
  });

  await test.step('the same Large appliance on a 128 GiB host is accepted', async () => {
    await row('DC0_C0_H3').getByRole('checkbox').uncheck();
    await expect(page.locator('[data-field-message="hosts"]')).toHaveCount(0);
    await row('DC0_C0_H0').getByRole('checkbox').check();
    await next();
    await expect(page.getByRole('heading', { level: 2, name: '3. Back end' })).toBeVisible();
  });

  await test.step('a Medium appliance (16 GiB) fits the 24 GiB host again', async () => {
    await page.getByLabel('Appliance size', { exact: true }).selectOption('medium');
    await page.getByRole('button', { name: 'Back', exact: true }).click();
    await expect(page.getByRole('heading', { level: 2, name: '2. Placement' })).toBeVisible();
    await expect(room('DC0_C0_H3')).toHaveText('Fits a Medium appliance');
    await row('DC0_C0_H3').getByRole('checkbox').check();
    await next();
    await expect(page.getByRole('heading', { level: 2, name: '3. Back end' })).toBeVisible();
  });

  await test.step('the NFS export form offers the hosts and their VMkernel addresses from vCenter', async () => {
    await page.goto('/storage/exports');
    await page.getByRole('button', { name: 'Add export' }).first().click();
    const form = page.getByRole('region', { name: 'Add an export' });
    await expect(form.getByLabel('vCenter', { exact: true })).toHaveValue(/\d+/); // the only one, chosen already
    const hosts = form.getByTestId('nfs-client-host');
    const added = env('VCSIM_ADDED_HOST'); // a host the test added to the cluster by its address
    const row = hosts.filter({ hasText: added });
    await expect(row).toHaveCount(1, { timeout: 60_000 });
    await expect(row).toContainText(`vmk0 ${added} (management)`);
    await expect(hosts.filter({ hasText: 'DC0_C0_H1' })).toContainText('(vdi-cluster)');
    await row.getByRole('checkbox').check();
    await expect(form.getByLabel('ESXi host addresses')).toHaveValue(added);
    await shot('export-form-hosts');
    await row.getByRole('checkbox').uncheck();
    await expect(form.getByLabel('ESXi host addresses')).toHaveValue('');
  });
});
