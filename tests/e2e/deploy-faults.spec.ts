// Deploy faults on the Deploy step, started by tests/e2e/test_browser.py::test_deploy_faults_fail_fast_and_cancel_within_seconds:
// three deployments stored through the api, each with its appliance VM in vCenter already. Each is opened
// from Desktop pools (Edit → Review → Deploy), as a user returns to a stored deployment.
// - wrong-address: the appliance's api address is another service's HTTPS answering 404: the appliance
//   fails within a minute, its reason and what to do shown;
// - still-booting: nothing answers TLS at the address: the job says what it waits for; Cancel ends it
//   within 10 s;
// - slow-upload: vCenter is reached through a relay that slows what is sent: Cancel during the OVA
//   upload ends the job within 10 s;
// - slow-disks: vCenter's reconfigure (the disks' attach) takes a minute: Cancel during that task ends the
//   job within 10 s.
// The measured figures are printed; a screenshot of each end state lands in the run's output folder.
import { expect, type Page, test } from '@playwright/test';
import path from 'node:path';
import { env, logIn } from './session';

const stepHeading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name });

async function deploy(page: Page, name: string): Promise<number> {
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await page.evaluate(() => localStorage.removeItem('arcvsa.wizard.draft'));
  await page.goto('/pools');
  await page.getByRole('button', { name: `Edit ${name} in the wizard` }).click();
  await expect(stepHeading(page, '6. Review')).toBeVisible();
  await expect(page.getByTestId('review-diff')).toBeVisible({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  // The password is the user's own secret: the wizard asks for it, it is never kept.
  await page.getByRole('textbox', { name: 'Appliance admin password' }).fill(env('ARCVSA_E2E_APPLIANCE_PASSWORD'));
  await page.getByRole('button', { name: 'Continue' }).click();
  const started = Date.now();
  await expect(stepHeading(page, '7. Deploy')).toBeVisible();
  await expect(page.getByTestId('job-state')).toBeVisible({ timeout: 30_000 });
  return started;
}

const activity = (page: Page) => page.getByRole('region', { name: 'Latest activity' });

async function cancelWithin10s(page: Page) {
  const clicked = Date.now();
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(page.getByTestId('job-state')).toHaveAttribute('data-state', 'cancelled', { timeout: 10_000 });
  return (Date.now() - clicked) / 1000;
}

test('an appliance address that answers 404 fails within a minute, with its reason and what to do', async ({ page }, testInfo) => {
  const started = await deploy(page, 'wrong-address');
  const state = page.getByTestId('job-state');
  await expect(state).toHaveAttribute('data-state', 'failed', { timeout: 60_000 });
  const seconds = (Date.now() - started) / 1000;
  console.log(`wrong appliance (HTTP 404): failed ${seconds.toFixed(1)} s after Deploy`);
  const failures = page.getByTestId('deploy-failures');
  // In words a vSphere admin reads: the error's kind is kept apart, not printed.
  await expect(failures.locator('li[data-kind="NotAnAppliance"]')).toContainText('arcvsa-01');
  await expect(failures).not.toContainText('NotAnAppliance');
  await expect(failures).toContainText("is not an arcvsa appliance's api");
  await expect(failures).toContainText('answered HTTP 404');
  await expect(failures).toContainText('Its certificate is for CN=www.example.org');
  await expect(failures).toContainText("correct the appliance's address");
  // The appliance's row says the same; its states as they changed are in the activity.
  await expect(page.locator('tr[data-object="arcvsa-01"][data-state="failed"]')).toBeVisible();
  await expect(activity(page)).toContainText('VM powered on');
  await page.screenshot({ path: path.join(testInfo.project.outputDir, 'wrong-address-failed.png'), fullPage: true });
});

test('a cancel during the health wait takes effect within 10 s', async ({ page }, testInfo) => {
  await deploy(page, 'still-booting');
  // The wait says what it sees while it waits: never silent.
  await expect(activity(page)).toContainText('probing its api at', { timeout: 60_000 });
  await expect(page.locator('tr[data-object="arcvsa-01"][data-state="working"]')).toBeVisible();
  const seconds = await cancelWithin10s(page);
  console.log(`cancel during the health wait: ${seconds.toFixed(1)} s`);
  await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
  await page.screenshot({ path: path.join(testInfo.project.outputDir, 'health-wait-cancelled.png'), fullPage: true });
});

test('a cancel during a minute-long vCenter task takes effect within 10 s', async ({ page }, testInfo) => {
  await deploy(page, 'slow-disks');
  await expect(activity(page)).toContainText('attaching 1 disk', { timeout: 60_000 });
  // The reconfigure task is asked for right after that event: give vCenter a moment to have it in flight.
  await page.waitForTimeout(1_000);
  const seconds = await cancelWithin10s(page);
  console.log(`cancel during a vCenter task (ReconfigVm, 60 s): ${seconds.toFixed(1)} s`);
  await expect(page.getByTestId('job-message')).toContainText('1 vCenter task left running');
  await expect(activity(page)).not.toContainText('powering on');
  await expect(page.locator('tr[data-object="arcvsa-01"]')).toContainText('stopped by the cancel');
  await page.screenshot({ path: path.join(testInfo.project.outputDir, 'vcenter-task-cancelled.png'), fullPage: true });
});

test('a cancel during the OVA upload takes effect within 10 s', async ({ page }, testInfo) => {
  await deploy(page, 'slow-upload');
  await expect(page.getByText(/^OVA upload: \d+ % of 8 MiB$/)).toBeVisible({ timeout: 60_000 });
  const seconds = await cancelWithin10s(page);
  console.log(`cancel during the OVA upload: ${seconds.toFixed(1)} s`);
  await expect(activity(page)).not.toContainText('VM imported');
  await page.screenshot({ path: path.join(testInfo.project.outputDir, 'ova-upload-cancelled.png'), fullPage: true });
});
