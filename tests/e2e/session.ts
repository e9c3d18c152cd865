// What the specs share: their environment (set by tests/e2e/test_browser.py), a login, and vcsim connected
// in the wizard's first step.
import { type Page, expect } from '@playwright/test';

export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (tests/e2e/test_browser.py sets it)`);
  return value;
}

export async function logIn(page: Page, user: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('User name', { exact: true }).fill(user);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('signed-in-user')).toHaveText(user);
}

/** On the wizard's vCenter step: add vcsim (VCSIM_*) as ``name``, trust its certificate and see it chosen. */
export async function connectVcsim(page: Page, name: string) {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Address', { exact: true }).fill(env('VCSIM_HOST'));
  await page.getByLabel('Port', { exact: true }).fill(env('VCSIM_PORT'));
  await page.getByLabel('User name', { exact: true }).fill(env('VCSIM_USER'));
  await page.getByLabel('Password', { exact: true }).fill(env('VCSIM_PASSWORD'));
  await page.getByRole('button', { name: 'Connect' }).click();
  await expect(page.getByTestId('cert-thumbprint')).toHaveText(env('VCSIM_THUMBPRINT'));
  await page.getByRole('button', { name: 'Accept and connect' }).click();
  await expect(page.getByTestId('vcenter-option').filter({ hasText: name }).getByRole('radio')).toBeChecked({ timeout: 60_000 });
}
