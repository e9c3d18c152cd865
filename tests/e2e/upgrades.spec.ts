// The settings page's upgrade section against a live arcvsa api (ARCVSA_URL, ARCVSA_ADMIN_USER,
// ARCVSA_ADMIN_PASSWORD) that test_browser.py gave a release tree (v1.0 running, v0.9 kept), a signing key,
// and a rolled-back last run; the files to upload are its: ARCVSA_E2E_BUNDLE (v1.1, signed with that key),
// ARCVSA_E2E_OTHER_KEY_BUNDLE (v1.1 signed with another key), ARCVSA_E2E_NOT_A_BUNDLE (a text file).
// Apply is never confirmed here (it starts the upgrader's systemd unit): the lab test applies for real.
import { type Page, expect, test } from '@playwright/test';
import path from 'node:path';
import { env, logIn } from './session';

interface Release {
  version: string;
  release: number;
  payload_sha256: string;
}

/** What the api says, read with the page's own session. */
async function status(page: Page): Promise<{ current: Release | null; staged: Release | null }> {
  const answer = await page.request.get('/api/upgrades');
  expect(answer.status()).toBe(200);
  return answer.json();
}

test('settings: upgrade bundles are refused, staged and discarded', async ({ page }, testInfo) => {
  const dir = testInfo.project.outputDir;
  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  const section = page.getByTestId('upgrades');
  await expect(section.getByRole('heading', { name: 'Upgrade', level: 2 })).toBeVisible();
  const form = section.getByTestId('upgrade-upload');
  const file = form.getByLabel('Upgrade bundle');
  const message = form.locator('[data-field-message="bundle"]');
  const upload = form.getByRole('button', { name: 'Upload' });
  const staged = section.getByTestId('upgrade-staged');

  await test.step('the running release, the one kept for a rollback and the last run', async () => {
    await expect(section.getByTestId('upgrade-current')).toHaveText('v1.0 (release 10)');
    await expect(section.getByTestId('upgrade-kept')).toHaveText('v0.9 (release 9)');
    const run = section.getByTestId('upgrade-run');
    await expect(run).toHaveAttribute('data-state', 'rolled_back');
    await expect(run).toContainText('The upgrade to v1.0.1 was rolled back: the api did not answer as v1.0.1 within 600 s.');
    await expect(run).toContainText('v1.0 serves again');
    await expect(run.getByTestId('upgrade-steps').locator('li')).toHaveCount(5);
    await expect(staged).toHaveCount(0);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(dir, 'upgrades.png'), fullPage: true });
  });

  await test.step('no file, a file that is no bundle, a bundle signed with another key: refused beside the field', async () => {
    await upload.click();
    await expect(message).toHaveText('Choose an upgrade bundle (.upgrade)');
    await file.setInputFiles(env('ARCVSA_E2E_NOT_A_BUNDLE'));
    await upload.click();
    await expect(message).toContainText('not an upgrade bundle');
    await expect(file).toHaveAttribute('aria-invalid', 'true');
    await expect(staged).toHaveCount(0);
    await page.screenshot({ path: path.join(dir, 'upgrades-refused.png'), fullPage: true });
    await file.setInputFiles(env('ARCVSA_E2E_OTHER_KEY_BUNDLE'));
    await expect(message).not.toHaveClass(/text-danger/); // a new file clears the last refusal
    await upload.click();
    await expect(message).toHaveText("the signature does not match this appliance's upgrade key");
    await expect(staged).toHaveCount(0);
    expect((await status(page)).staged).toBeNull();
  });

  await test.step('a signed newer bundle is staged; Apply asks first (cancelled here)', async () => {
    await file.setInputFiles(env('ARCVSA_E2E_BUNDLE'));
    await upload.click();
    await expect(staged.getByTestId('staged-version')).toHaveText('v1.1');
    const api = (await status(page)).staged;
    expect(api?.version).toBe('v1.1');
    await expect(staged).toContainText(api?.payload_sha256.slice(0, 12) ?? 'missing');
    await expect(staged.getByText('11', { exact: true })).toBeVisible();
    await expect(message).not.toHaveClass(/text-danger/);
    await page.screenshot({ path: path.join(dir, 'upgrades-staged.png'), fullPage: true });
    await staged.getByRole('button', { name: 'Apply', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('heading', { name: 'Upgrade to v1.1?' })).toBeVisible();
    await expect(dialog).toContainText('NFS and iSCSI clients are not interrupted');
    await page.screenshot({ path: path.join(dir, 'upgrades-confirm.png'), fullPage: true });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
  });

  await test.step('discard removes it', async () => {
    await staged.getByRole('button', { name: 'Discard' }).click();
    await expect(staged).toHaveCount(0);
    expect((await status(page)).staged).toBeNull();
    await expect(section.getByTestId('upgrade-current')).toHaveText('v1.0 (release 10)');
  });
});

// Applying for real starts the upgrader's systemd unit, so here the page talks to a scripted stand-in for
// /api/upgrades (page.route: nothing reaches the api): the apply answer, two steps, three refused
// connections while the api restarts, then the new release answering.
test('settings: an applied upgrade is followed through the api restart (scripted answers)', async ({ page }, testInfo) => {
  const dir = testInfo.project.outputDir;
  const release = (version: string, number: number) => ({
    version, release: number, payload_sha256: 'ab'.repeat(32), payload_bytes: 104_857_600, base_key: 'b'.repeat(64),
  });
  const [v10, v11] = [release('v1.0', 10), release('v1.1', 11)];
  const steps: { at: string; state: string }[] = [];
  // in_progress is the api's to derive: each scripted answer says it, as the api would have.
  const run = (state: string, in_progress: boolean) => {
    const at = new Date().toISOString();
    steps.push({ at, state });
    return { state, from_version: 'v1.0', to_version: 'v1.1', error: null, code: null, updated: at, steps: [...steps], in_progress };
  };
  let applied = false;
  let reads = 0;
  let done: ReturnType<typeof run> | null = null;
  await page.route('**/api/upgrades/apply', async (route) => {
    expect(route.request().method()).toBe('POST');
    applied = true;
    await route.fulfill({ status: 202, json: run('queued', true) });
  });
  await page.route('**/api/upgrades', async (route) => {
    if (!applied) return route.fulfill({ json: { current: v10, installed: [v10], staged: v11, last: null } });
    reads += 1;
    if (reads === 1) return route.fulfill({ json: { current: v10, installed: [v10], staged: v11, last: run('installing', true) } });
    if (reads === 2) return route.fulfill({ json: { current: v10, installed: [v10], staged: v11, last: run('switching', true) } });
    if (reads <= 5) return route.abort('connectionrefused');
    done ??= run('done', false);
    return route.fulfill({ json: { current: v11, installed: [v11, v10], staged: null, last: done } });
  });

  await logIn(page, env('ARCVSA_ADMIN_USER'), env('ARCVSA_ADMIN_PASSWORD'));
  await page.goto('/settings');
  const section = page.getByTestId('upgrades');
  const staged = section.getByTestId('upgrade-staged');
  await expect(staged.getByTestId('staged-version')).toHaveText('v1.1');
  await expect(staged).toContainText('100 MiB');
  await expect(staged).toContainText('abababababab…');
  await staged.getByRole('button', { name: 'Apply', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Apply upgrade' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  const progress = section.getByTestId('upgrade-run');
  await expect(progress.getByRole('heading', { name: 'Upgrading to v1.1' })).toBeVisible();
  await expect(staged.getByRole('button', { name: 'Apply', exact: true })).toBeDisabled();
  await expect(progress).toHaveAttribute('data-state', 'switching', { timeout: 15_000 });
  await expect(section.getByTestId('upgrade-restarting')).toHaveText(/^The api is restarting…/, { timeout: 15_000 });
  await page.screenshot({ path: path.join(dir, 'upgrades-restarting.png'), fullPage: true });
  await expect(progress).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
  await expect(progress).toContainText('Upgraded from v1.0 to v1.1: arcvsa v1.1 runs now.');
  await expect(section.getByTestId('upgrade-restarting')).toHaveCount(0);
  await expect(section.getByTestId('upgrade-current')).toHaveText('v1.1 (release 11)');
  await expect(section.getByTestId('upgrade-kept')).toHaveText('v1.0 (release 10)');
  await expect(staged).toHaveCount(0);
  await expect(progress.getByTestId('upgrade-steps').locator('li')).toHaveCount(4);
  await page.screenshot({ path: path.join(dir, 'upgrades-done.png'), fullPage: true });
  // Done: the polling stops.
  const after = reads;
  await page.waitForTimeout(4000);
  expect(reads).toBe(after);
});
