// Wizard steps 1-4 (vCenter, placement, back end, pool type) against the real api and vcsim, started by
// tests/e2e/test_browser.py::test_wizard_steps_1_to_4 (ARCVSA_URL, ARCVSA_ADMIN_*, VCSIM_*).
// Every step refuses bad input inline before it lets the admin on; a reload keeps the answers.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import path from 'node:path';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this spec through tests/e2e/test_browser.py`);
  return value;
}

// lab/vcsim.py's site
const DATACENTER = 'vdi-dc';
const CLUSTER = 'vdi-cluster';
const HOSTS = ['DC0_C0_H0', 'DC0_C0_H1'];
const APPLIANCE_PASSWORD = 'wizard-e2e-pass';

async function expectRefused(page: Page, field: ReturnType<Page['getByLabel']>, message: RegExp) {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(message);
}

const stepHeading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name });

test('wizard steps 1 to 4: refusals inline, answers kept over a reload', async ({ page }, testInfo) => {
  const shot = async (name: string) => {
    // From the top: a refusal focuses (and scrolls to) the first refused field, and the header is sticky.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(testInfo.project.outputDir, `${name}.png`), fullPage: true });
    // axe on the step as shown (WCAG 2.x A/AA): no critical or serious violation
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const bad = axe.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
    expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`), name).toEqual([]);
  };
  const next = () => page.getByRole('button', { name: 'Next' }).click();
  const vcName = `wizard-vcsim-${Date.now().toString(36)}`;

  await test.step('log in and open the wizard', async () => {
    await page.goto('/');
    await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
    await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_ADMIN_PASSWORD'));
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByTestId('signed-in-user')).toBeVisible();
    await page.goto('/deploy');
    await expect(stepHeading(page, '1. vCenter')).toBeVisible();
  });

  await test.step('1. vCenter: nothing chosen is refused; add vcsim after checking its thumbprint', async () => {
    await next();
    await expect(page.locator('[data-field-message="vcenter"]')).toHaveText(/Choose a vCenter/);
    await expect(stepHeading(page, '1. vCenter')).toBeVisible();

    await page.getByLabel('Name', { exact: true }).fill(vcName);
    await page.getByLabel('Address', { exact: true }).fill(env('VCSIM_HOST'));
    await page.getByLabel('Port', { exact: true }).fill(env('VCSIM_PORT'));
    await page.getByLabel('User name', { exact: true }).fill(env('VCSIM_USER'));
    await page.getByLabel('Password', { exact: true }).fill(env('VCSIM_PASSWORD'));
    await page.getByRole('button', { name: 'Connect' }).click();
    const thumbprint = page.getByTestId('cert-thumbprint');
    await expect(thumbprint).toHaveText(env('VCSIM_THUMBPRINT'));
    await page.getByRole('button', { name: 'Accept and connect' }).click();

    const option = page.getByTestId('vcenter-option').filter({ hasText: vcName });
    await expect(option.getByRole('radio')).toBeChecked({ timeout: 60_000 });
    await expect(page.locator('[data-field-message="vcenter"]')).toHaveCount(0);
    await shot('1-vcenter');
    await next();
  });

  await test.step('2. Placement: the only datacenter and cluster preselected; at least one host required', async () => {
    await expect(stepHeading(page, '2. Placement')).toBeVisible();
    const datacenter = page.getByLabel('Datacenter', { exact: true });
    await expect(datacenter).toHaveValue(DATACENTER, { timeout: 60_000 });
    const cluster = page.getByLabel('Cluster', { exact: true });
    await expect(cluster).toHaveValue(CLUSTER);

    const rows = page.getByTestId('placement-host');
    await expect(rows).toHaveCount(4);
    await expect(rows.first()).toContainText('free');
    await expect(rows.first()).toContainText('san-lun-01');
    await next();
    const firstBox = rows.first().getByRole('checkbox');
    await expectRefused(page, firstBox, /at least one host/);
    for (const host of HOSTS) await page.locator(`[data-testid="placement-host"][data-host="${host}"]`).getByRole('checkbox').check();
    await shot('2-placement');

    // The answers are in the draft: a reload lands on this step with them.
    await page.reload();
    await expect(page.getByLabel('Datacenter', { exact: true })).toHaveValue(DATACENTER, { timeout: 60_000 });
    await expect(page.getByLabel('Cluster', { exact: true })).toHaveValue(CLUSTER);
    for (const host of HOSTS) {
      await expect(page.locator(`[data-testid="placement-host"][data-host="${host}"]`).getByRole('checkbox')).toBeChecked();
    }
    await next();
  });

  const hostCard = (i: number) => page.locator(`[data-testid="backend-host"][data-host="${HOSTS[i]}"]`);

  await test.step('3. Back end: empty fields, a bad IPv4 and a VMDK over the free space are refused', async () => {
    await expect(stepHeading(page, '3. Back end')).toBeVisible();
    await expect(page.getByLabel('Appliance OVA')).toBeVisible({ timeout: 60_000 });
    await next();
    await expectRefused(page, page.getByLabel('Appliance OVA'), /path of the arcvsa OVA/);
    await expectRefused(page, page.getByLabel('Network', { exact: true }), /port group/);
    await expectRefused(page, page.getByLabel('Boot datastore'), /every chosen host/);
    await expectRefused(page, page.getByLabel('IPv4 address of arcvsa-01'), /Enter the IPv4 address/);
    await expectRefused(page, page.getByLabel('Appliance admin password'), /8 to 128/);
    await expect(hostCard(0).locator(`[data-field-message="luns:${HOSTS[0]}"]`)).toHaveText(/at least one LUN/);

    await page.getByLabel('Appliance OVA').fill('/srv/arcvsa/arcvsa.ova');
    await page.getByLabel('Appliance size').selectOption('medium');
    await page.getByLabel('Network', { exact: true }).selectOption('vsa-nfs');
    await page.getByLabel('Boot datastore').selectOption('san-lun-01');
    await page.getByLabel('Gateway').fill('192.0.2.1');
    await page.getByLabel('DNS servers').fill('192.0.2.53, 192.0.2.54');
    await page.getByLabel('IPv4 address of arcvsa-01').fill('192.0.2.300');
    await page.getByLabel('IPv4 address of arcvsa-02').fill('192.0.2.12');
    for (const i of [0, 1]) await hostCard(i).getByRole('button', { name: /Add a LUN/ }).click();
    await hostCard(0).getByLabel('LUN 1 datastore').selectOption('san-lun-01');
    await hostCard(0).getByLabel('LUN 1 size (GiB)').fill('20000'); // vcsim's datastores have 10 TiB free
    await hostCard(1).getByLabel('LUN 1 datastore').selectOption('san-lun-02');
    await hostCard(1).getByLabel('LUN 1 size (GiB)').fill('200');
    await page.getByLabel('Appliance admin password').fill(APPLIANCE_PASSWORD);
    await page.getByLabel('Confirm the password').fill(`${APPLIANCE_PASSWORD}-typo`);
    await hostCard(0).getByText('Advanced').click();
    await hostCard(0).getByLabel('Api address of arcvsa-01').fill('no-port-here');
    await next();

    await expectRefused(page, page.getByLabel('IPv4 address of arcvsa-01'), /not an IPv4 address/);
    await expectRefused(page, hostCard(0).getByLabel('LUN 1 size (GiB)'), /more than the \d+ GiB free on san-lun-01/);
    await expectRefused(page, page.getByLabel('Confirm the password'), /differ/);
    await expectRefused(page, page.getByLabel('Api address of arcvsa-01'), /host:port/);
    await expect(page.getByLabel('Appliance OVA')).not.toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByLabel('IPv4 address of arcvsa-02')).not.toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText(/SLOG.*L2ARC.*local SSD datastore/)).toBeVisible();
    await shot('3-backend-refused');

    // A storage port group asks each appliance's storage address (and the shared prefix and MTU); none, and
    // they are gone again: NFS stays on the management network.
    const storage = page.getByLabel('Storage port group');
    await expect(storage).toHaveValue('');
    await expect(page.getByLabel('Storage address of arcvsa-01')).toHaveCount(0);
    await storage.selectOption('vdi-desktops');
    await page.getByLabel('Storage address of arcvsa-02').fill('192.0.2.12');
    await page.getByLabel('Storage prefix').fill('33');
    await next();
    await expectRefused(page, page.getByLabel('Storage address of arcvsa-01'), /Enter the storage address/);
    await expectRefused(page, page.getByLabel('Storage address of arcvsa-02'), /its IPv4 address/);
    await expectRefused(page, page.getByLabel('Storage prefix'), /from 1 to 32/);
    await shot('3-backend-storage-refused');
    await storage.selectOption('');
    await expect(page.getByLabel('Storage address of arcvsa-01')).toHaveCount(0);
    await expect(page.getByLabel('Storage prefix')).toHaveCount(0);

    await page.getByLabel('IPv4 address of arcvsa-01').fill('192.0.2.11');
    await hostCard(0).getByLabel('LUN 1 size (GiB)').fill('500');
    await page.getByLabel('Api address of arcvsa-01').fill('127.0.0.1:8443');
    await page.getByLabel('Gateway').fill('198.51.100.1');
    await page.getByLabel('Confirm the password').fill(APPLIANCE_PASSWORD);
    await next();
    await expectRefused(page, page.getByLabel('Gateway'), /not in 192\.0\.2\.11\/24/);
    await page.getByLabel('Gateway').fill('192.0.2.1');

    // A reload keeps every answer but the password, which is never stored in the browser.
    await page.reload();
    await expect(page.getByLabel('Appliance OVA')).toHaveValue('/srv/arcvsa/arcvsa.ova', { timeout: 60_000 });
    await expect(page.getByLabel('Appliance size')).toHaveValue('medium');
    await expect(page.getByLabel('IPv4 address of arcvsa-01')).toHaveValue('192.0.2.11');
    await expect(hostCard(0).getByLabel('LUN 1 size (GiB)')).toHaveValue('500');
    await expect(page.getByLabel('Api address of arcvsa-01')).toHaveValue('127.0.0.1:8443');
    await expect(page.getByLabel('Appliance admin password')).toHaveValue('');
    const stored = await page.evaluate(() => localStorage.getItem('arcvsa.wizard.draft') ?? '');
    expect(stored).toContain('192.0.2.11');
    expect(stored).not.toContain(APPLIANCE_PASSWORD);
    await next();
    await expectRefused(page, page.getByLabel('Appliance admin password'), /8 to 128/);
    await page.getByLabel('Appliance admin password').fill(APPLIANCE_PASSWORD);
    await page.getByLabel('Confirm the password').fill(APPLIANCE_PASSWORD);
    // A SLOG SSD for the first appliance: a 16 GiB VMDK on a datastore of its host, kept after the SAN LUNs
    await hostCard(0).getByRole('checkbox', { name: /SLOG SSD/ }).check();
    await hostCard(0).getByLabel('SLOG datastore').selectOption('san-lun-02');
    await expect(hostCard(0).getByLabel('SLOG size (GiB)')).toHaveValue('16');
    await expect(hostCard(0).getByLabel('LUN 1 size (GiB)')).toHaveValue('500');
    await shot('3-backend');
    await next();
  });

  await test.step('4. Pool type: the key figures follow the choice, each value once; details on demand', async () => {
    await expect(stepHeading(page, '4. Pool type')).toBeVisible();
    // 20 desktops over 2 appliances, medium size (16 GiB RAM)
    await expect(page.getByRole('heading', { name: /10 desktops, 16 GiB RAM/ })).toBeVisible();
    const figures = page.getByTestId('key-figure');
    await expect(figures).toHaveCount(7);
    for (const row of await figures.all()) await expect(row.locator('td').last()).not.toBeEmpty();
    await expect(page.getByTestId('expected-offload')).toHaveText(/^\d+(\.\d+)?x$/);
    // The SLOG is the 16 GiB SSD of step 3, named once with its size; the calculator's figure is what the log holds.
    const slog = figures.and(page.locator('[data-name="slog"]'));
    await expect(slog.locator('td').first()).toHaveText('16 GiB SSD');
    await expect(slog).toContainText(/holds at most 1\.0 GiB of sync writes/);
    await expect(figures.and(page.locator('[data-name="layout"]'))).toContainText('Stripe of 1 SAN LUN, SLOG on 1 SSD');
    await expect(figures.and(page.locator('[data-name="l2arc"]')).locator('td').first()).toHaveText('None');
    await expect(page.getByText(/SLOG \d+ GiB/)).toHaveCount(0);
    // Every tuning value is behind the disclosure, each once.
    const details = page.getByTestId('pooltype-profile');
    await expect(details).toHaveAttribute('data-profile', 'stateless-linked');
    const all = page.getByTestId('recommendation');
    await expect(all.first()).toBeHidden();
    await details.getByText('All tuning values and why').click();
    await expect(all.first()).toBeVisible();
    const names = await all.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));
    expect(names.length).toBeGreaterThan(10);
    expect(new Set(names).size, 'each tuning value once').toBe(names.length);
    await expect(all.and(page.locator('[data-name="slog_size"]'))).toContainText('Sync writes the log holds at most');
    const draft = await page.evaluate(() => localStorage.getItem('arcvsa.wizard.draft') ?? '');
    expect(draft).toContain('"role":"log"');

    await page.getByRole('radio', { name: /Persistent \(dedicated\)/ }).check();
    await page.getByRole('radio', { name: /Full clones \(space-efficient: ZFS clones of the golden image\)/ }).check();
    await expect(details).toHaveAttribute('data-profile', 'persistent-full');
    await page.getByRole('radio', { name: /NFS 4\.1/ }).check();

    const name = page.getByLabel('Datastore name');
    const exported = page.getByLabel('Exported path');
    await name.fill('san-lun-01');
    await exported.fill('tank');
    await page.getByLabel('Desktops in the pool').fill('');
    await next();
    await expectRefused(page, name, /already has a datastore named san-lun-01/);
    await expectRefused(page, exported, /\/<pool>\/<dataset>/);
    await expectRefused(page, page.getByLabel('Desktops in the pool'), /from 1 to 4000/);
    await shot('4-pooltype-refused');

    await name.fill('arcvsa-vdi');
    await exported.fill('/tank/vdi');
    await page.getByLabel('Desktops in the pool').fill('40');
    await expect(page.getByRole('heading', { name: /20 desktops, 16 GiB RAM/ })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('radio', { name: /Full clones/ })).toBeChecked({ timeout: 60_000 });
    await expect(page.getByRole('radio', { name: /NFS 4\.1/ })).toBeChecked();
    await expect(name).toHaveValue('arcvsa-vdi');
    await expect(exported).toHaveValue('/tank/vdi');
    await expect(page.getByTestId('key-figure').first()).toBeVisible();
    await shot('4-pooltype');
    await next();

    // Step 5 shows the count read-only: it is asked once, here.
    await expect(stepHeading(page, '5. Desktops')).toBeVisible();
    const shown = page.getByLabel('Desktops', { exact: true });
    await expect(shown).toHaveValue('40', { timeout: 60_000 });
    await expect(shown).toHaveAttribute('readonly', '');
    await page.getByRole('link', { name: 'Change the count in step 4' }).click();
    await expect(page.getByLabel('Desktops in the pool')).toHaveValue('40');
  });
});
