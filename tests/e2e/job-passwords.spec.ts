// A job that needs a password the browser does not keep asks for it, each time, in an empty field: the
// resume of a failed apply on Desktop pools; in the wizard (a plan brought back with Edit) its Deploy,
// its Resume and its destroy.
// Started by tests/e2e/test_browser.py::test_a_job_asks_for_the_password_it_needs: the harness stored a
// fleet plan and ran its apply through the api with the appliances' admin password; it failed (no OVA).
import { expect, type Page, test } from '@playwright/test';
import path from 'node:path';
import { env, logIn } from './session';

const DEPLOYMENT = env('ARCVSA_DEPLOYMENT');
const PASSWORD = env('ARCVSA_APPLIANCE_PASSWORD');
const HORIZON = env('ARCVSA_HORIZON_DEPLOYMENT');

const asked = (page: Page) => page.getByRole('dialog').filter({ has: page.getByTestId('secret-ask') });

test('a failed job asks for the admin password on every resume', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const shot = (name: string) => page.screenshot({ path: path.join(testInfo.project.outputDir, `${name}.png`), fullPage: true });
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await page.goto('/pools');
  const card = page.locator(`[data-testid="deployment-card"][data-deployment="${DEPLOYMENT}"]`);
  const progress = card.getByTestId('job-progress');
  await expect(progress).toHaveAttribute('data-state', 'failed');
  const jobId = await progress.getAttribute('data-job');
  await shot('1-failed');

  await test.step('resume asks for the password; the field is empty; an empty one is refused', async () => {
    await card.getByRole('button', { name: `Resume Apply job ${jobId}` }).click();
    const dialog = asked(page);
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(`needs the appliances' admin password`);
    const field = dialog.getByLabel('Appliance admin password');
    await expect(field).toHaveValue('');
    await shot('2-asked');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await field.fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(progress).toContainText('run 2');
    await expect(progress).toHaveAttribute('data-state', 'failed');
  });

  await test.step('the next resume asks again: the password given before is not reused', async () => {
    await card.getByRole('button', { name: `Resume Apply job ${jobId}` }).click();
    const dialog = asked(page);
    await expect(dialog.getByLabel('Appliance admin password')).toHaveValue('');
    await shot('3-asked-again');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(progress).toContainText('run 2');
  });

  await test.step("Edit brings a plan back into the wizard; its Deploy asks for Horizon's password", async () => {
    await page.goto('/pools');
    const horizonCard = page.locator(`[data-testid="deployment-card"][data-deployment="${HORIZON}"]`);
    await horizonCard.getByRole('button', { name: /^Edit .* in the wizard$/ }).click();
    await expect(page.getByRole('heading', { level: 2, name: '6. Review' })).toBeVisible();
    await expect(page.locator('.review-summary')).toContainText(HORIZON);
    const diff = page.getByTestId('review-diff');
    await expect(diff).toBeVisible({ timeout: 60_000 });
    await expect(diff.getByRole('list', { name: 'Changes by kind' }).locator('[data-count="create desktop"]')).toHaveText('Create 1 desktop');
    await shot('4-edit-review');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    const dialog = asked(page);
    const field = dialog.getByLabel('Horizon administrator password');
    await expect(field).toHaveValue('');
    await shot('5-deploy-asks');
    await field.fill('horizon-secret');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('heading', { level: 2, name: '7. Deploy' })).toBeVisible();
  });

  await test.step('its failed job: Resume asks again; edit, destroy and a new deployment are offered', async () => {
    // No Horizon server answers at the plan's address: the job fails there, after its desktop.
    await expect(page.getByTestId('job-state')).toHaveAttribute('data-state', 'failed', { timeout: 90_000 });
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await expect(asked(page).getByLabel('Horizon administrator password')).toHaveValue('');
    await shot('6-wizard-resume-asks');
    await asked(page).getByRole('button', { name: 'Cancel' }).click();
    for (const action of ['Edit the plan', 'Destroy what it made', 'New deployment']) {
      await expect(page.getByRole('button', { name: action, exact: true })).toBeVisible();
    }
    await page.getByRole('button', { name: 'Destroy what it made', exact: true }).click();
    const modal = page.getByRole('dialog').filter({ hasText: `Delete ${HORIZON}?` });
    await modal.getByLabel(`Type ${HORIZON} to confirm`).fill(HORIZON);
    await modal.getByRole('button', { name: `Delete ${HORIZON}` }).click();
    // Removing the pool from Horizon needs its password: asked in the dialog, empty again.
    const ask = modal.getByTestId('secret-ask');
    await expect(ask.getByLabel('Horizon administrator password')).toHaveValue('');
    await shot('7-destroy-asks');
    await ask.getByLabel('Horizon administrator password').fill('horizon-secret');
    await ask.getByRole('button', { name: 'Continue' }).click();
    await expect(modal.getByTestId('job-progress')).toBeVisible();
    await shot('8-destroying');
  });
});
