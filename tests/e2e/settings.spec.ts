// The settings page against a live arcvsa api (ARCVSA_URL, ARCVSA_ADMIN_USER, ARCVSA_ADMIN_PASSWORD):
// users and passwords, and the TLS certificate upload with a certificate test_browser.py made
// (ARCVSA_E2E_CERT, ARCVSA_E2E_KEY: PEM files; ARCVSA_E2E_OTHER_KEY: a key of another certificate;
// ARCVSA_E2E_THUMBPRINT: the certificate's SHA-256 thumbprint). Screenshots land in the run's output folder.
import { type Locator, type Page, expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { env, logIn } from './session';

const fieldMessage = (page: Page | Locator, name: string) => page.locator(`[data-field-message="${name}"]`);

test('settings: users and passwords, and a certificate upload', async ({ page }, testInfo) => {
  const dir = testInfo.project.outputDir;
  const admin = env('ARCVSA_ADMIN_USER');
  const password = env('ARCVSA_ADMIN_PASSWORD');
  await logIn(page, admin, password);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  const users = page.getByTestId('users');
  const table = page.getByTestId('user-table');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.locator(`tr[data-user="${admin}"]`)).toContainText('you');
  // Never yourself, never the last one: no delete button at all.
  await expect(table.getByRole('button', { name: /^Delete/ })).toHaveCount(0);
  await page.screenshot({ path: path.join(dir, 'settings.png'), fullPage: true });

  await test.step('add a user: bad input refused inline, then added', async () => {
    await users.getByRole('button', { name: 'Add user' }).click();
    const form = page.getByTestId('add-user-form');
    await form.getByRole('button', { name: 'Add user' }).click();
    await expect(fieldMessage(form, 'username')).toHaveText('Enter a user name');
    await expect(fieldMessage(form, 'password')).toHaveText('Enter a password');
    await form.getByLabel('User name', { exact: true }).fill('has space');
    await form.getByLabel('Password', { exact: true }).fill('short');
    await form.getByLabel('Password again', { exact: true }).fill('other');
    await form.getByRole('button', { name: 'Add user' }).click();
    await expect(fieldMessage(form, 'username')).toContainText("Use letters, digits, '.', '_' or '-'");
    await expect(fieldMessage(form, 'password')).toHaveText('Use at least 8 characters');
    await expect(fieldMessage(form, 'confirm')).toHaveText('The two passwords differ');
    await page.screenshot({ path: path.join(dir, 'settings-add-user-refused.png'), fullPage: true });
    // A name taken already: the api's 409 appears beside the user name.
    await form.getByLabel('User name', { exact: true }).fill(admin);
    await form.getByLabel('Password', { exact: true }).fill('operator passphrase');
    await form.getByLabel('Password again', { exact: true }).fill('operator passphrase');
    await form.getByRole('button', { name: 'Add user' }).click();
    await expect(fieldMessage(form, 'username')).toHaveText(`A user named '${admin}' exists already`);
    await form.getByLabel('User name', { exact: true }).fill('operator');
    await form.getByRole('button', { name: 'Add user' }).click();
    await expect(form).toHaveCount(0);
    await expect(table.locator('tbody tr')).toHaveCount(2);
    await expect(table.locator('tr[data-user="operator"]')).toBeVisible();
  });

  await test.step('change your own password: the current one is checked by the api', async () => {
    await table.getByRole('button', { name: `Change password of ${admin}` }).click();
    const dialog = page.getByTestId('password-form');
    await expect(page.getByRole('heading', { name: 'Change your password' })).toBeVisible();
    await dialog.getByLabel('Current password', { exact: true }).fill('not the password');
    await dialog.getByLabel('New password', { exact: true }).fill('a new admin passphrase');
    await dialog.getByLabel('New password again', { exact: true }).fill('a new admin passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(fieldMessage(dialog, 'current_password')).toHaveText('The current password is wrong');
    await page.screenshot({ path: path.join(dir, 'settings-password-refused.png'), fullPage: true });
    await dialog.getByLabel('Current password', { exact: true }).fill(password);
    await dialog.getByLabel('Current password', { exact: true }).press('Enter');
    await expect(page.getByText('Your password is changed.')).toBeVisible();
    const old = await page.request.post('/api/auth/token', { data: { username: admin, password } });
    expect(old.status()).toBe(401);
    const fresh = await page.request.post('/api/auth/token', { data: { username: admin, password: 'a new admin passphrase' } });
    expect(fresh.status()).toBe(200);
  });

  await test.step('delete the other user', async () => {
    await table.getByRole('button', { name: 'Delete operator' }).click();
    await page.getByRole('button', { name: 'Delete user' }).click();
    await expect(table.locator('tbody tr')).toHaveCount(1);
  });

  await test.step('TLS: the appliance renews its own certificate for the same names', async () => {
    const tls = page.getByTestId('tls');
    const facts = tls.getByTestId('certificate-facts');
    const before = (await (await page.request.get('/api/settings/tls')).json()) as {
      certificate: { thumbprint_sha256: string; subject: string };
    };
    await expect(facts).toContainText(before.certificate.thumbprint_sha256);
    await tls.getByRole('button', { name: 'Renew' }).click();
    const confirm = page.getByTestId('tls-renew');
    await expect(confirm).toContainText('Its thumbprint changes');
    await page.screenshot({ path: path.join(dir, 'settings-tls-renew.png'), fullPage: true });
    await confirm.getByRole('button', { name: 'Renew certificate' }).click();
    await expect(confirm).toHaveCount(0);
    await expect(tls.getByRole('status').or(tls.getByRole('alert')).filter({ hasText: 'next restart' })).toBeVisible();
    await expect(facts).not.toContainText(before.certificate.thumbprint_sha256);
    await expect(facts).toContainText(before.certificate.subject);
    await expect(facts).toContainText(/(364|365) days left/);
  });

  await test.step('TLS: the current certificate, a refused key, then the new certificate installed', async () => {
    const tls = page.getByTestId('tls');
    const before = (await (await page.request.get('/api/settings/tls')).json()) as { certificate: { thumbprint_sha256: string } };
    await expect(tls.getByTestId('certificate-facts')).toContainText(before.certificate.thumbprint_sha256.slice(0, 8));
    await tls.getByRole('button', { name: 'Upload a certificate' }).click();
    const form = page.getByTestId('tls-upload');
    await form.getByRole('button', { name: 'Install certificate' }).click();
    await expect(fieldMessage(form, 'certificate')).toContainText('Paste the certificate chain');
    await form.getByLabel('Certificate chain from a file').setInputFiles(env('ARCVSA_E2E_CERT'));
    await expect(form.getByLabel('Certificate chain', { exact: true })).toHaveValue(readFileSync(env('ARCVSA_E2E_CERT'), 'utf8'));
    await form.getByLabel('Private key', { exact: true }).fill(readFileSync(env('ARCVSA_E2E_OTHER_KEY'), 'utf8'));
    await form.getByRole('button', { name: 'Check' }).click();
    await expect(fieldMessage(form, 'private_key')).toContainText('does not belong to the certificate');
    await page.screenshot({ path: path.join(dir, 'settings-tls-refused.png'), fullPage: true });
    await form.getByLabel('Private key from a file').setInputFiles(env('ARCVSA_E2E_KEY'));
    await form.getByRole('button', { name: 'Check' }).click();
    const facts = form.getByTestId('certificate-facts');
    await expect(facts).toContainText('CN=arcvsa-e2e.example');
    await expect(facts).toContainText('arcvsa-e2e.example, localhost');
    await expect(facts).toContainText(env('ARCVSA_E2E_THUMBPRINT'));
    // Made for another name than this machine's: said so, and installable all the same.
    await expect(facts).toContainText('Does not cover this appliance’s name');
    await page.screenshot({ path: path.join(dir, 'settings-tls-checked.png'), fullPage: true });
    await form.getByRole('button', { name: 'Install certificate' }).click();
    await expect(form).toHaveCount(0);
    await expect(tls.getByRole('status').or(tls.getByRole('alert')).filter({ hasText: 'next restart' })).toBeVisible();
    await expect(tls.getByTestId('certificate-facts')).toContainText(env('ARCVSA_E2E_THUMBPRINT'));
    const after = (await (await page.request.get('/api/settings/tls')).json()) as {
      certificate: { thumbprint_sha256: string };
      restart_needed: boolean;
    };
    expect(after.certificate.thumbprint_sha256).toBe(env('ARCVSA_E2E_THUMBPRINT'));
    expect(after.restart_needed).toBe(true);
    await page.screenshot({ path: path.join(dir, 'settings-tls-installed.png'), fullPage: true });
  });

  // Forwarding is only refused here: on a dev host the api's files are the machine's own (/etc/rsyslog.d);
  // forwarding that works is tests/lab/ops/test_syslog_forwarding_lab.py's, on the booted appliance.
  await test.step('remote syslog: forwarding the logs to the appliance itself is refused, alerts saved', async () => {
    const form = page.getByTestId('syslog-form');
    await expect(form.getByLabel('Forward logs from')).toBeDisabled();
    await form.getByTestId('syslog-forward').check();
    await form.getByLabel('Forward logs from').selectOption('warning');
    await form.getByLabel('Syslog server').fill('localhost');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByRole('alert').filter({ hasText: 'cannot be forwarded to the appliance itself' })).toBeVisible();
    await page.screenshot({ path: path.join(dir, 'settings-syslog-refused.png'), fullPage: true });
    const stored = (await (await page.request.get('/api/settings/notifications')).json()) as { syslog: { forward_logs: boolean } };
    expect(stored.syslog.forward_logs).toBe(false);
    await form.getByTestId('syslog-forward').uncheck();
    await form.getByTestId('syslog-alerts').check();
    await form.getByLabel('Syslog server').fill('192.0.2.20');
    await form.getByLabel('Port', { exact: true }).fill('6514');
    await form.getByLabel('Transport').selectOption('tcp');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('syslog').getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    const saved = (await (await page.request.get('/api/settings/notifications')).json()) as { syslog: Record<string, unknown> };
    expect(saved.syslog).toMatchObject({ enabled: true, host: '192.0.2.20', port: 6514, transport: 'tcp', forward_logs: false });
  });

  // Last: a restore replaces the users, so it ends this session (and every other).
  await test.step('back up the configuration, restore it: what it holds is listed and every login ends', async () => {
    const backup = page.getByTestId('backup-form');
    await backup.getByLabel('Passphrase', { exact: true }).fill('too short');
    await backup.getByLabel('Passphrase again', { exact: true }).fill('other');
    await backup.getByRole('button', { name: 'Download backup' }).click();
    await expect(fieldMessage(backup, 'passphrase')).toHaveText('At least 12 characters');
    await expect(fieldMessage(backup, 'confirm')).toHaveText('The two passphrases differ');
    const passphrase = 'an e2e backup passphrase';
    await backup.getByLabel('Passphrase', { exact: true }).fill(passphrase);
    await backup.getByLabel('Passphrase again', { exact: true }).fill(passphrase);
    const downloading = page.waitForEvent('download');
    await backup.getByRole('button', { name: 'Download backup' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^arcvsa-config-.+Z\.arcvsa-backup$/);
    const file = path.join(dir, download.suggestedFilename());
    await download.saveAs(file);
    await expect(backup.getByText(`Saved ${download.suggestedFilename()}.`)).toBeVisible();
    expect(readFileSync(file, 'utf8')).not.toContain('192.0.2.20'); // sealed: nothing readable without the passphrase

    const restore = page.getByTestId('restore-form');
    await restore.getByTestId('restore-file').setInputFiles(file);
    await restore.getByLabel('Passphrase', { exact: true }).fill('not the passphrase');
    await restore.getByRole('button', { name: 'Restore' }).click();
    await expect(restore.getByRole('alert').filter({ hasText: 'passphrase is wrong or the file was changed' })).toBeVisible();
    await restore.getByLabel('Passphrase', { exact: true }).fill(passphrase);
    await restore.getByRole('button', { name: 'Restore' }).click();
    const report = page.getByTestId('restore-report');
    await expect(report).toContainText('Restored the configuration of');
    await expect(report).toContainText('Every login ended: log in again with the accounts of the backup.');
    const restored = report.getByTestId('restore-restored');
    await expect(restored).toContainText('Pools imported: none');
    await expect(restored.getByText('Users: ', { exact: false })).toHaveText(`Users: ${admin}`);
    await expect(restored.getByText('NFS exports: ', { exact: false })).toHaveText('NFS exports: none');
    await expect(restored.getByText('Notifications: ', { exact: false })).toHaveText('Notifications: syslog');
    await expect(restored.getByText('TLS certificate: ', { exact: false })).toContainText('CN=arcvsa-e2e.example');
    await expect(report.getByTestId('restore-not-restored')).toHaveCount(0);
    // The session ended with the restore: the report stays on the login page until the next login.
    await expect(page.getByRole('button', { name: 'Log in' })).toBeVisible();
    await expect(report).toBeVisible();
    await page.screenshot({ path: path.join(dir, 'settings-restored.png'), fullPage: true });
    expect((await page.request.get('/api/users')).status()).toBe(401);
    await page.getByLabel('User name', { exact: true }).fill(admin);
    await page.getByLabel('Password', { exact: true }).fill('a new admin passphrase'); // the backup's hash
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('button', { name: 'Log in' })).toHaveCount(0);
    await expect(page.getByTestId('restore-report')).toHaveCount(0);
  });
});
