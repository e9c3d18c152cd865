// What the settings specs share: their environment (set by tests/e2e/test_browser.py) and a login.
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
