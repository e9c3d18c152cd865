// The Firewall and SSH section against an api whose rule set the real nft loads into a network namespace
// (test_browser.py; ARCVSA_URL, ARCVSA_ADMIN_USER, ARCVSA_ADMIN_PASSWORD). Only what the page shows is used:
// the address it says the appliance sees, the rules it lists. The browser reaches the api over loopback,
// which the rules always let in, so a lockout cannot be shown here (tests/integration/test_api_firewall.py
// has it); a confirmation that does not arrive is played by aborting that one request.
import AxeBuilder from '@axe-core/playwright';
import { type Locator, type Page, expect, test } from '@playwright/test';
import path from 'node:path';
import { env, logIn } from './session';

const CONFIRM = '**/api/settings/firewall/confirm';
const fieldMessage = (scope: Locator, name: string) => scope.locator(`[data-field-message="${name}"]`);

// tall enough for the whole section below the sticky header in its screenshots
test.use({ viewport: { width: 1440, height: 1400 } });

/** axe (WCAG 2.x A/AA) on the section as it is now: no critical or serious violation. */
async function expectAccessible(page: Page, state: string) {
  const result = await new AxeBuilder({ page })
    .include('[data-testid="firewall"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  const bad = result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  expect(bad, `axe violations in the firewall section (${state})`).toEqual([]);
}

async function openSettings(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
}

test('settings: firewall and SSH', async ({ page }, testInfo) => {
  const dir = testInfo.project.outputDir;
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await openSettings(page);
  const section = page.getByTestId('firewall');
  await expect(section.getByRole('heading', { name: 'Firewall and SSH', level: 2 })).toBeVisible();
  const rules = section.getByRole('table');
  const rule = (service: string) => rules.locator(`tr[data-service="${service}"]`);
  const management = section.getByLabel('Management networks');
  const iscsi = section.getByLabel('iSCSI initiator networks');
  const save = section.getByRole('button', { name: 'Save' });
  const trial = section.getByRole('group', { name: 'Firewall change on trial' });

  // Nothing saved yet: the web interface from anywhere, SSH off, no export or target to open anything else.
  await expect(rule('web interface')).toContainText('0.0.0.0/0');
  await expect(rule('SSH')).toHaveCount(0);
  for (const service of ['NFSv3', 'NFSv4.1', 'iSCSI']) await expect(rule(service)).toContainText('nobody');
  await expect(management).toHaveValue('0.0.0.0/0\n::/0');
  const address = (await section.getByTestId('firewall-your-address').locator('code').textContent())?.trim() ?? '';
  expect(address, 'the address the appliance sees this browser at').not.toBe('');
  const own = `${address}/${address.includes(':') ? 128 : 32}`;
  await section.screenshot({ path: path.join(dir, 'firewall.png') });
  await expectAccessible(page, 'as loaded');

  await test.step('the management networks become your own address, confirmed through the new rules', async () => {
    await management.fill(address);
    await save.click();
    await expect(section.getByText('Saved: the new management networks are kept.')).toBeVisible();
    await expect(rule('web interface')).toContainText(own);
    await expect(rule('web interface')).not.toContainText('0.0.0.0/0');
    await expect(management).toHaveValue(own); // as the api stored it
    await expect(trial).toHaveCount(0);
    await section.screenshot({ path: path.join(dir, 'firewall-kept.png') });
  });

  await test.step('SSH on, and root with the key: its rule appears, open to the management networks', async () => {
    const root = section.getByLabel('SSH as root with the key');
    await expect(root).toBeDisabled(); // nothing to let root into while SSH is off
    await expect(root).not.toBeChecked();
    await section.getByLabel('SSH (keys only)').check();
    await expect(root).toBeEnabled();
    await root.check();
    await save.click();
    await expect(section.getByText('Saved: the rules above are in effect.')).toBeVisible();
    await expect(rule('SSH')).toContainText('22');
    await expect(rule('SSH')).toContainText(own);
    await expect(section.getByLabel('SSH (keys only)')).toBeChecked();
    await page.reload(); // as the api stored it
    await expect(root).toBeChecked();
    await expect(root).toBeEnabled();
  });

  await test.step('a network with host bits set is refused beside its field, nothing changed', async () => {
    await management.fill(`${own}\n10.0.2.5/24`);
    await save.click();
    const message = fieldMessage(section, 'management');
    await expect(message).toContainText('10.0.2.5/24');
    await expect(message).toContainText('host bits set');
    await expect(management).toHaveAttribute('aria-invalid', 'true');
    await expect(rule('web interface')).not.toContainText('10.0.2');
    await section.screenshot({ path: path.join(dir, 'firewall-refused.png') });
    await expectAccessible(page, 'a network refused');
    // its network instead, and the ESXi hosts' iSCSI network: no target, so iSCSI stays closed
    await management.fill(`${own}\n10.0.2.0/24`);
    await iscsi.fill('10.0.3.0/24');
    await save.click();
    await expect(section.getByText('Saved: the new management networks are kept.')).toBeVisible();
    await expect(message).not.toContainText('host bits');
    await expect(rule('web interface')).toContainText('10.0.2.0/24');
    await expect(rule('SSH')).toContainText('10.0.2.0/24');
    await expect(rule('iSCSI')).toContainText('nobody');
    await expect(iscsi).toHaveValue('10.0.3.0/24');
  });

  await test.step('the confirmation does not arrive: the page says when the previous rules come back', async () => {
    await page.route(CONFIRM, (route) => route.abort('connectionrefused'));
    await management.fill(own);
    await save.click();
    const warning = section.getByText('could not reach the appliance through the new management networks');
    await expect(warning).toBeVisible();
    await expect(warning).toContainText(/the previous rules come back by \d{1,2}:\d{2}:\d{2}/);
    await expect(trial).toContainText(`The management networks ${own} are in effect on trial`);
    await expect(rule('web interface')).toContainText('10.0.2.0/24'); // what comes back: still the kept rules
    await section.screenshot({ path: path.join(dir, 'firewall-unconfirmed.png') });
    await expectAccessible(page, 'a change on trial, unconfirmed');
    await page.unroute(CONFIRM);
  });

  await test.step('a change on trial found on a fresh page: Cancel puts the kept rules back', async () => {
    await page.reload();
    await expect(trial).toContainText(`The management networks ${own} are in effect on trial`);
    await expect(trial.getByRole('button', { name: 'Keep' })).toBeVisible();
    await section.screenshot({ path: path.join(dir, 'firewall-trial.png') });
    await trial.getByRole('button', { name: 'Cancel' }).click();
    await expect(section.getByText('Cancelled: the previous rules are back.')).toBeVisible();
    await expect(trial).toHaveCount(0);
    await expect(rule('web interface')).toContainText('10.0.2.0/24');
  });

  await test.step('again, and this time Keep', async () => {
    await page.route(CONFIRM, (route) => route.abort('connectionrefused'));
    await management.fill(own);
    await save.click();
    await expect(trial).toBeVisible();
    await page.unroute(CONFIRM);
    await page.reload();
    await trial.getByRole('button', { name: 'Keep' }).click();
    await expect(section.getByText('Saved: the new management networks are kept.')).toBeVisible();
    await expect(trial).toHaveCount(0);
    await expect(rule('web interface')).not.toContainText('10.0.2.0/24');
    await expect(rule('web interface')).toContainText(own);
    await expect(rule('SSH')).toContainText(own);
  });
  await page.screenshot({ path: path.join(dir, 'firewall-page.png'), fullPage: true });
});
