// A rolling upgrade from the Appliances page (tests/e2e/test_browser.py::test_a_rolling_upgrade_stops_at_an_appliance_that_refuses_the_bundle
// stores a deployment of four appliances: vsa-0 and vsa-3 on v1.0, vsa-1 on v2.0 already, vsa-2 trusting
// another key than the build's). The v2.0 bundle is kept on the manager, a foreign one refused, and the
// roll stops at vsa-2 before any appliance is upgraded. Screenshots land in web/test-results/rolling-upgrade.
import { type Page, expect, test } from '@playwright/test';
import path from 'node:path';
import { expectNoCriticalA11y } from './axe';
import { env, logIn } from './session';

const shot = (page: Page, dir: string, name: string) => page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });

test('a rolling upgrade: the bundle kept, then the roll stops at the appliance that refuses it', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const dir = testInfo.project.outputDir;
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Appliances', exact: true }).click();
  await page.getByRole('button', { name: 'Upgrade the appliances of e2e-roll' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('No bundle is kept on the manager yet');
  await expect(dialog.getByRole('button', { name: 'Upgrade 4 appliances' })).toBeDisabled();

  await test.step('a bundle signed with another key is refused; the build’s is kept', async () => {
    await dialog.getByTestId('roll-bundle-file').setInputFiles(env('ARCVSA_E2E_OTHER_KEY_BUNDLE'));
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(dialog).toContainText('The bundle was refused');
    await expect(dialog).toContainText('signature');
    await dialog.getByTestId('roll-bundle-file').setInputFiles(env('ARCVSA_E2E_BUNDLE'));
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(dialog.getByTestId('kept-bundle')).toContainText('Bundle kept on the manager: v2.0 (release 20');
    await expectNoCriticalA11y(page, 'the rolling upgrade dialog');
    await shot(page, dir, '01-bundle-kept');
  });

  await test.step('the roll stops at vsa-2, before any appliance is upgraded', async () => {
    await dialog.getByRole('button', { name: 'Upgrade 4 appliances' }).click();
    await expect(dialog).toContainText("Enter the appliances' admin password");
    await dialog.getByLabel("Appliances' admin password").fill(env('ARCVSA_APPLIANCE_PASSWORD'));
    await dialog.getByRole('button', { name: 'Upgrade 4 appliances' }).click();
    const job = dialog.getByTestId('job-progress');
    await expect(job).toHaveAttribute('data-state', 'failed', { timeout: 90_000 });
    await expect(job).toContainText('0 upgraded to v2.0, 1 already on it or newer; stopped at vsa-2');
    await expect(job.getByTestId('job-failures')).toContainText('vsa-2: staging the bundle');
    const line = (name: string) => dialog.locator(`[data-testid="upgrade-appliance"][data-name="${name}"]`);
    await expect(line('vsa-1')).toContainText('v2.0: already runs it; left as it is');
    for (const name of ['vsa-0', 'vsa-3']) await expect(line(name)).toContainText('not started: the roll stopped at vsa-2');
    await shot(page, dir, '02-stopped');
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(dialog).toHaveCount(0);
  });
});
