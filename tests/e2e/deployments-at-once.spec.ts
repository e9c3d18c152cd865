// Several deployments at once: the wizard starts one (a stored plan brought back with Desktop pools' Edit),
// offers a new deployment while it runs, and a second one is planned and started beside it; both jobs are
// followed and progress together. Started by tests/e2e/test_browser.py::test_two_deployments_run_at_once
// (tests/e2e/jobs_harness.py stores the two plans: 200 desktops each, cloned one at a time).
import { expect, type Page, test } from '@playwright/test';
import path from 'node:path';
import { env, logIn } from './session';

const FIRST = env('ARCVSA_FIRST');
const SECOND = env('ARCVSA_SECOND');

const card = (page: Page, name: string) => page.locator(`[data-testid="deployment-card"][data-deployment="${name}"]`);
const done = async (page: Page, name: string) => {
  const text = (await card(page, name).getByTestId('job-progress').locator('.muted.small').first().textContent()) ?? '';
  return Number(/(\d+) of/.exec(text)?.[1] ?? -1);
};

async function deployFromPools(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Desktop pools' }).click();
  await card(page, name).getByRole('button', { name: /^Edit .* in the wizard$/ }).click();
  await expect(page.getByRole('heading', { level: 2, name: '6. Review' })).toBeVisible();
  await expect(page.locator('.review-summary')).toContainText(name);
  const diff = page.getByTestId('review-diff');
  await expect(diff.getByRole('list', { name: 'Changes by kind' }).locator('[data-count="create desktop"]')).toHaveText('Create 200 desktops', {
    timeout: 60_000,
  });
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  await expect(page.getByRole('heading', { level: 2, name: '7. Deploy' })).toBeVisible();
  await expect(page.getByTestId('job-state')).toHaveAttribute('data-state', 'running', { timeout: 30_000 });
}

test('a second deployment is planned and started while the first runs; both progress', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  const shot = (name: string) => page.screenshot({ path: path.join(testInfo.project.outputDir, `${name}.png`), fullPage: true });
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await page.evaluate(() => localStorage.removeItem('arcvsa.wizard.draft'));

  await test.step('the first deployment starts from the wizard', async () => {
    await deployFromPools(page, FIRST);
    await expect(page.getByTestId('runs-on')).toBeVisible();
    await shot('1-first-running');
  });

  await test.step('while it runs, the wizard starts a new deployment with names no other one has', async () => {
    await page.getByRole('button', { name: 'New deployment', exact: true }).click();
    await expect(page.getByRole('heading', { level: 2, name: '2. Placement' })).toBeVisible();
    await page.locator('[data-testid="placement-host"][data-host="DC0_C0_H1"]').getByRole('checkbox').check();
    await shot('2-new-deployment');
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    // The stored fleet-one has arcvsa-01: this one's appliance is numbered on after it.
    await expect(page.getByRole('heading', { level: 4, name: 'arcvsa-02 on DC0_C0_H1' })).toBeVisible({ timeout: 60_000 });
    await shot('3-new-deployment-backend');
  });

  await test.step('the second is planned and started while the first still runs', async () => {
    await deployFromPools(page, SECOND);
    const others = page.getByTestId('other-deployments');
    await expect(others.locator(`[data-deployment="${FIRST}"]`)).toHaveAttribute('data-state', 'running');
    await shot('4-second-running-first-listed');
  });

  await test.step('Desktop pools follows both jobs, running and progressing together', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Desktop pools' }).click();
    for (const name of [FIRST, SECOND]) {
      await expect(card(page, name).getByTestId('job-progress')).toHaveAttribute('data-state', 'running');
    }
    const before = [await done(page, FIRST), await done(page, SECOND)];
    await shot('5-both-running');
    await expect.poll(async () => [await done(page, FIRST), await done(page, SECOND)].every((n, i) => n > before[i]!), { timeout: 60_000 }).toBe(true);
    for (const name of [FIRST, SECOND]) {
      await expect(card(page, name).getByTestId('job-progress')).toHaveAttribute('data-state', 'running');
    }
    await shot('6-both-progressed');
  });
});
