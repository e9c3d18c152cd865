// The wizard's first step against a live stack: arcvsa's api and vcsim, both started by lab/demo.py,
// which exports ARCVSA_URL, ARCVSA_ADMIN_USER/PASSWORD and VCSIM_HOST/PORT/USER/PASSWORD.
import { expect, test } from '@playwright/test';
import path from 'node:path';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: start the stack with lab/demo.py (see its --help)`);
  return value;
}

const THUMBPRINT = /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/;

test('log in, refuse a wrong vCenter password, connect vcsim and see its inventory', async ({ page }, testInfo) => {
  const vcName = `lab-vcsim-${Date.now().toString(36)}`;

  await test.step('log in', async () => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'arcvsa' })).toBeVisible();
    await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
    await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_ADMIN_PASSWORD'));
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('heading', { name: 'vCenters', level: 1 })).toBeVisible();
    await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
  });

  // The wizard's first step connects a vCenter (the form shows when none is saved yet, or on "Add").
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deploy' }).click();
  await expect(page.getByRole('heading', { name: '1. vCenter' })).toBeVisible();
  const add = page.getByRole('button', { name: /^Add a vCenter/ });
  if (await add.isVisible()) await add.click();
  await expect(page.getByRole('heading', { name: 'Add a vCenter' })).toBeVisible();

  await test.step('empty fields are refused before anything is sent', async () => {
    await page.getByRole('button', { name: 'Connect' }).click();
    for (const label of ['Name', 'Address', 'User name', 'Password']) {
      await expect(page.getByLabel(label, { exact: true })).toHaveAttribute('aria-invalid', 'true');
    }
  });

  await page.getByLabel('Name', { exact: true }).fill(vcName);
  await page.getByLabel('Address', { exact: true }).fill(env('VCSIM_HOST'));
  await page.getByLabel('Port', { exact: true }).fill(env('VCSIM_PORT'));
  await page.getByLabel('User name', { exact: true }).fill(env('VCSIM_USER'));
  const password = page.getByLabel('Password', { exact: true });

  await test.step('a wrong password is shown next to the password field and saves nothing', async () => {
    await password.fill(`${env('VCSIM_PASSWORD')}-wrong`);
    await page.getByRole('button', { name: 'Connect' }).click();

    // vcsim's certificate is self-signed: the wizard shows it and waits for an explicit decision.
    const review = page.getByRole('region', { name: 'Untrusted certificate' });
    await expect(review).toBeVisible();
    const thumbprint = page.getByTestId('cert-thumbprint');
    await expect(thumbprint).toHaveText(THUMBPRINT);
    // The stack knows the simulator's real thumbprint: the one shown must be exactly that.
    if (process.env.VCSIM_THUMBPRINT) await expect(thumbprint).toHaveText(process.env.VCSIM_THUMBPRINT);
    await review.getByRole('button', { name: 'Accept and connect' }).click();

    await expect(password).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('[data-field-message="password"]')).toBeVisible();
    await expect(password).toHaveAccessibleDescription(/\S/);
    for (const label of ['Name', 'Address', 'Port', 'User name']) {
      await expect(page.getByLabel(label, { exact: true })).not.toHaveAttribute('aria-invalid', 'true');
    }
    const saved = await page.request.get('/api/vcenters');
    expect(saved.ok()).toBeTruthy();
    expect(((await saved.json()) as { name: string }[]).map((vc) => vc.name)).not.toContain(vcName);
  });

  await test.step('the right password connects, the wizard chooses it, and its inventory opens', async () => {
    await password.fill(env('VCSIM_PASSWORD'));
    await page.getByRole('button', { name: 'Connect' }).click();
    // The thumbprint accepted a moment ago is remembered; should the form ask again, accept again.
    const accept = page.getByRole('button', { name: 'Accept and connect' });
    const chosen = page.getByTestId('vcenter-option').filter({ hasText: vcName }).getByRole('radio');
    await expect(accept.or(chosen)).toBeVisible({ timeout: 60_000 });
    if (await accept.isVisible()) await accept.click();
    await expect(chosen).toBeChecked({ timeout: 60_000 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'vCenters' }).click();
    await page.getByRole('link', { name: vcName, exact: true }).click();
    await expect(page.getByRole('heading', { name: vcName, level: 1 })).toBeVisible({ timeout: 60_000 });
  });

  await test.step('the cluster and its 4 hosts are in the inventory', async () => {
    const cluster = page.getByTestId('cluster-row').first();
    await expect(cluster).toBeVisible({ timeout: 60_000 });
    await expect(cluster).toContainText('4 hosts');
    const clusterName = await cluster.getAttribute('data-cluster');
    expect(clusterName).toBeTruthy();
    const hosts = page.locator(`[data-testid="host-row"][data-cluster="${clusterName}"]`);
    await expect(hosts).toHaveCount(4);
    for (const host of await hosts.all()) {
      await expect(host.getByRole('meter', { name: /^CPU of / })).toBeVisible();
      await expect(host.getByRole('meter', { name: /^Memory of / })).toBeVisible();
    }
    await expect(page.getByRole('heading', { name: /^Datastores/ })).toBeVisible();
    await expect(page.getByRole('heading', { name: /^Networks/ })).toBeVisible();
    await page.screenshot({ path: path.join(testInfo.project.outputDir, 'inventory.png'), fullPage: true });
  });

  await test.step('the vCenter is listed with its pinned thumbprint', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'vCenters' }).click();
    const row = page.getByRole('row').filter({ hasText: vcName });
    await expect(row).toBeVisible();
    await expect(row.locator('code.thumbprint')).toBeVisible();
  });

  await test.step('log out', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByRole('button', { name: 'Log in' })).toBeVisible();
    // A voluntary log-out is not an expired session.
    await expect(page.getByText('Your session has ended')).toHaveCount(0);
  });
});
