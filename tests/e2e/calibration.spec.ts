// The Calibration page against a live arcvsa api on a machine without an appliance (tests/e2e/test_browser.py
// starts one, its database holding the lab recording's three runs: a SAN check, a ramp on a free LUN and a
// ramp on a dataset — fixtures/appliance/calibration_flows.seed). No fio runs here: the form's defaults and
// refusals, and the stored results shown, charted, listed and deleted, row for row as the api has them.
import { type Page, expect, test } from '@playwright/test';
import path from 'node:path';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: point ARCVSA_URL and the admin credentials at an arcvsa api`);
  return value;
}

interface Step {
  desktops: number;
  passed: boolean;
}

interface Calibration {
  id: number;
  kind: 'ramp' | 'san_check';
  state: string;
  target: { kind: string; name: string };
  steps: Step[];
  desktops_supported: number | null;
  san: { phases: { name: string }[] } | null;
}

async function logIn(page: Page) {
  await page.goto('/');
  await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
  await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_ADMIN_PASSWORD'));
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
}

test('calibration: defaults, refusals, results charted and kept', async ({ page }, info) => {
  await logIn(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Calibration', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Calibration', level: 1 })).toBeVisible();
  const stored = (await (await page.request.get('/api/calibrations')).json()) as Calibration[];
  expect(stored.map((c) => c.kind)).toEqual(['ramp', 'ramp', 'san_check']);
  const [dataset, lun, san] = stored as [Calibration, Calibration, Calibration];

  // The form starts from the steady-state VDI desktop.
  const form = page.getByTestId('calibration-form');
  await expect(form.getByLabel('IOPS per desktop')).toHaveValue('10');
  await expect(form.getByLabel('Reads (%)')).toHaveValue('20');
  await expect(form.getByLabel('Read sizes (fio bssplit)')).toHaveValue('32k/100');
  await expect(form.getByLabel('Write sizes (fio bssplit)')).toHaveValue('4k/50:8k/50');
  await expect(form.getByLabel('p95 threshold (ms)')).toHaveValue('20');

  // A slip is shown beside its field, and nothing is sent.
  await form.getByLabel('p95 threshold (ms)').fill('0');
  await form.getByLabel('Last step at most (desktops)').fill('5');
  await form.getByRole('button', { name: 'Start the ramp' }).click();
  await expect(form.locator('[data-field-message="threshold"]')).toHaveText('Enter a number from 0.1 to 10000.');
  await expect(form.locator('[data-field-message="max"]')).toHaveText('The last step cannot have fewer desktops than the first.');
  await form.getByLabel('p95 threshold (ms)').fill('20');
  await form.getByLabel('Last step at most (desktops)').fill('100');

  // A LUN is written over: nothing starts without the box ticked.
  await form.getByLabel('Test').selectOption('san_check');
  const confirm = form.getByLabel(/I understand the test writes over this LUN/);
  await expect(confirm).not.toBeChecked();
  await form.getByRole('button', { name: 'Start the SAN check' }).click();
  await expect(form.getByText('Tick the box: the test writes over the whole LUN.')).toBeVisible();
  await expect(confirm).toHaveAttribute('aria-invalid', 'true');

  // The api refuses the same before any tool runs (and keeps nothing).
  const refused = await page.request.post('/api/calibrations', {
    data: { kind: 'san_check', target: { kind: 'lun', name: '/dev/disk/by-id/virtio-lun9' } },
    headers: { 'X-CSRF-Token': (await page.context().cookies()).find((c) => c.name.startsWith('arcvsa_csrf'))?.value ?? '' },
  });
  expect(refused.status()).toBe(422);
  expect(((await refused.json()) as { detail: string }).detail).toContain('confirm_overwrite');

  // The newest result is shown: desktops supported, both charts, every step.
  const result = page.getByTestId('calibration-result');
  await expect(result.getByRole('heading', { name: `Ramp ${dataset.id} on dataset ${dataset.target.name}` })).toBeVisible();
  await expect(result.getByTestId('desktops-supported')).toContainText(`${dataset.desktops_supported} desktops supported`);
  await expect(result.getByTestId('density-chart')).toHaveCount(dataset.steps.length >= 2 ? 2 : 0);
  await expect(result.getByTestId('calibration-steps').locator('tbody tr')).toHaveCount(dataset.steps.length);
  const last = dataset.steps[dataset.steps.length - 1]!;
  await expect(result.getByTestId('calibration-steps').locator('tbody tr').last()).toContainText(last.passed ? 'passed' : 'failed');

  await result.screenshot({ path: path.join(info.outputDir, 'calibration-ramp.png') });

  // Past results, newest first; the LUN ramp and the SAN check on demand.
  const past = page.getByTestId('calibrations');
  await expect(past.locator('tbody tr')).toHaveCount(3);
  await expect(past.locator('tbody tr').nth(1)).toContainText(`${lun.desktops_supported} desktops`);
  await page.getByRole('button', { name: `Show calibration ${lun.id}` }).click();
  await expect(result.getByTestId('desktops-supported')).toContainText(`${lun.desktops_supported} desktops supported`);
  await page.getByRole('button', { name: `Show calibration ${san.id}` }).click();
  await expect(result.getByTestId('san-check').locator('tbody tr')).toHaveCount(san.san?.phases.length ?? 4);
  await expect(result.getByTestId('san-check')).toContainText('4K random read (queue depth 16)');
  await page.screenshot({ path: path.join(info.outputDir, 'calibration.png'), fullPage: true });

  // Deleted results go.
  await page.getByRole('button', { name: `Delete calibration ${san.id}` }).click();
  await expect(past.locator('tbody tr')).toHaveCount(2);
  expect(((await (await page.request.get('/api/calibrations')).json()) as Calibration[]).map((c) => c.id)).toEqual([dataset.id, lun.id]);
});
