// The Firewall and SSH section on an appliance deployed with a storage network (test_browser.py; ARCVSA_URL,
// ARCVSA_ADMIN_USER, ARCVSA_ADMIN_PASSWORD, and ARCVSA_STORAGE_NIC, the NIC first boot named, which the page
// must show). The admin turns SSH on; the rules the page then lists say where each service answers, and
// test_browser.py checks that the kernel keeps the web interface and SSH off the storage NIC.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import path from 'node:path';
import { env, logIn } from './session';

test.use({ viewport: { width: 1440, height: 1400 } });

test('settings: firewall with a storage network', async ({ page }, testInfo) => {
  const nic = env('ARCVSA_STORAGE_NIC');
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  const section = page.getByTestId('firewall');
  const said = section.getByTestId('firewall-storage-network');
  await expect(said).toContainText(`Storage network: 10.99.0.1/24 on ${nic}, MTU 9000.`);
  await expect(said).toContainText('NFS and iSCSI are answered there alone');

  const rules = section.getByRole('table');
  await expect(rules.getByRole('columnheader', { name: 'Network' })).toBeVisible();
  const rule = (service: string) => rules.locator(`tr[data-service="${service}"]`);
  for (const service of ['NFSv3', 'NFSv4.1', 'iSCSI']) await expect(rule(service)).toContainText(`storage (${nic})`);
  await expect(rule('web interface')).toContainText(`management (all but ${nic})`);
  await expect(rule('web interface')).toContainText('0.0.0.0/0');

  await section.getByLabel('SSH (keys only)').check();
  await section.getByRole('button', { name: 'Save' }).click();
  await expect(section.getByText('Saved: the rules above are in effect.')).toBeVisible();
  await expect(rule('SSH')).toContainText(`management (all but ${nic})`);
  await section.screenshot({ path: path.join(testInfo.project.outputDir, 'firewall-storage-network.png') });

  const result = await new AxeBuilder({ page })
    .include('[data-testid="firewall"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  const bad = result.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious').map((v) => v.id);
  expect(bad, 'axe violations in the firewall section with a storage network').toEqual([]);
});
