// The whole deployment wizard against the real api and a vcsim of its own, started by
// tests/e2e/test_browser.py::test_wizard_deploys_recomposes_and_deletes_a_20_desktop_pool: 4 appliances
// (their apis served on a replay of the lab recording 'fleet', reached through each host's "Api address",
// their LUNs found by the guest paths given in each host's Advanced section),
// the NFS datastore on every host and a 20-desktop pool; then recompose onto a newer snapshot and delete,
// through the Desktop pools page. A screenshot of every step lands in the run's output folder.
import { expect, type Locator, type Page, test } from '@playwright/test';
import path from 'node:path';
import { connectVcsim } from './session';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this spec through tests/e2e/test_browser.py`);
  return value;
}

// lab/vcsim.py's site
const DATACENTER = 'vdi-dc';
const CLUSTER = 'vdi-cluster';
const HOSTS = ['DC0_C0_H0', 'DC0_C0_H1', 'DC0_C0_H2', 'DC0_C0_H3'];
const TAKEN = 'desktop-##'; // vcsim has desktop-01 to desktop-03
const NAME = 'vdi-e2e';
const GOLDEN = env('ARCVSA_GOLDEN_VM');
const NEW_SNAPSHOT = env('ARCVSA_NEW_SNAPSHOT');
const NFS = env('ARCVSA_E2E_NFS');

const stepHeading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name });

async function expectRefused(field: Locator, message: RegExp) {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(message);
}

test('the wizard deploys a 20-desktop pool on 4 appliances; recompose and delete it', async ({ page }, testInfo) => {
  test.setTimeout(540_000);
  const shot = (name: string) => page.screenshot({ path: path.join(testInfo.project.outputDir, `${name}.png`), fullPage: true });
  const next = (name = 'Next') => page.getByRole('button', { name, exact: true }).click();
  const endpoints = env('ARCVSA_E2E_ENDPOINTS').split(',');
  const password = env('ARCVSA_E2E_APPLIANCE_PASSWORD');

  await test.step('log in and open a fresh wizard', async () => {
    await page.goto('/');
    await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
    await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_ADMIN_PASSWORD'));
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByTestId('signed-in-user')).toBeVisible();
    await page.evaluate(() => localStorage.removeItem('arcvsa.wizard.draft'));
    await page.goto('/deploy');
    await expect(stepHeading(page, '1. vCenter')).toBeVisible();
  });

  await test.step('1. vCenter: connect vcsim after checking its thumbprint', async () => {
    await connectVcsim(page, 'lab-vcsim');
    await shot('1-vcenter');
    await next();
  });

  await test.step('2. Placement: the only datacenter and cluster, chosen already, and its 4 hosts', async () => {
    await expect(page.getByLabel('Datacenter', { exact: true })).toHaveValue(DATACENTER, { timeout: 60_000 });
    await expect(page.getByLabel('Cluster', { exact: true })).toHaveValue(CLUSTER);
    for (const host of HOSTS) {
      const row = page.locator(`[data-testid="placement-host"][data-host="${host}"]`);
      await expect(row.getByTestId('placement-room')).toHaveText('Fits a Small appliance');
      await row.getByRole('checkbox').check();
    }
    await shot('2-placement');
    await next();
  });

  await test.step('3. Back end: the OVA, network, an address, 2 LUNs, the api address and guest paths of each appliance', async () => {
    // The lab's virtio LUNs have no WWN (a real VMDK is found by its WWN): the appliances find them by
    // the guest paths typed here (tests/fixtures/appliance/fleet_flows.LUNS).
    const paths = env('ARCVSA_E2E_GUEST_PATHS').split(',');
    const [slog, l2arc] = env('ARCVSA_E2E_SSD_PATHS').split(','); // the lab VM's SSDs (fleet_flows.SLOG, L2ARC)
    await expect(page.getByLabel('Appliance OVA')).toBeVisible({ timeout: 60_000 });
    await page.getByLabel('Appliance OVA').fill(env('ARCVSA_E2E_OVA'));
    await page.getByLabel('Network', { exact: true }).selectOption('vsa-nfs');
    await page.getByLabel('Boot datastore').selectOption('san-lun-01');
    await page.getByLabel('Gateway').fill('192.0.2.1');
    await page.getByLabel('DNS servers').fill('192.0.2.53');
    for (const [i, host] of HOSTS.entries()) {
      const card = page.locator(`[data-testid="backend-host"][data-host="${host}"]`);
      const appliance = `arcvsa-0${i + 1}`;
      await page.getByLabel(`IPv4 address of ${appliance}`).fill(`192.0.2.${21 + i}`);
      for (const [j, datastore] of ['san-lun-01', 'san-lun-02'].entries()) {
        await card.getByRole('button', { name: /Add a LUN/ }).click();
        await card.getByLabel(`LUN ${j + 1} datastore`).selectOption(datastore);
        await card.getByLabel(`LUN ${j + 1} size (GiB)`).fill('100');
      }
      // A SLOG and an L2ARC SSD for each appliance: a VMDK each, found by their guest paths below
      await card.getByRole('checkbox', { name: /SLOG SSD/ }).check();
      await card.getByRole('checkbox', { name: /L2ARC SSD/ }).check();
      await card.getByText('Advanced').click();
      await card.getByLabel(`Api address of ${appliance}`).fill(endpoints[i]!);
      await card.getByLabel('Guest path of log SSD 1').fill(slog!);
      await card.getByLabel('Guest path of cache SSD 1').fill(l2arc!);
      // The first appliance's first path is mistyped: the step refuses it inline.
      for (const [j, guestPath] of paths.entries()) {
        await card.getByLabel(`Guest path of LUN ${j + 1}`).fill(i === 0 && j === 0 ? '/dev/sdb' : guestPath);
      }
    }
    // A LUN may also be one of the host's disks mapped raw: vcsim's hosts each have one local disk, no VMFS on it.
    const first = page.locator(`[data-testid="backend-host"][data-host="${HOSTS[0]}"]`);
    await first.getByRole('button', { name: /Add a LUN/ }).click();
    await first.getByLabel('LUN 3 kind').selectOption('rdm');
    await expect(first.getByLabel('LUN 3 disk')).toHaveValue('mpx.vmhba0:C0:T0:L0');
    await expect(first.getByLabel('LUN 3 datastore')).toHaveCount(0);
    await shot('3-backend-rdm');
    await first.getByRole('button', { name: /Remove LUN 3 of/ }).click();
    await page.getByLabel('Appliance admin password').fill(password);
    await page.getByLabel('Confirm the password').fill(password);
    await next();
    const mistyped = first.getByLabel('Guest path of LUN 1');
    await expectRefused(mistyped, /\/dev\/disk\/by-id/);
    await mistyped.fill(paths[0]!);
    await shot('3-backend');
    await next();
  });

  await test.step('4. Pool type: stateless linked clones on NFS 4.1', async () => {
    await expect(stepHeading(page, '4. Pool type')).toBeVisible();
    await page.getByRole('radio', { name: /NFS 4\.1/ }).check();
    await page.getByLabel('Datastore name').fill(NFS);
    await page.getByLabel('Exported path').fill('/tank/vdi');
    await page.getByLabel('Desktops in the pool').fill('20');
    await shot('4-pooltype');
    await next();
  });

  const field = (label: string) => page.getByLabel(label, { exact: true });

  await test.step('5. Desktops: empty fields, a pattern without #, and taken names are refused inline', async () => {
    await expect(stepHeading(page, '5. Desktops')).toBeVisible();
    await expect(field('Golden VM')).toBeVisible({ timeout: 60_000 });
    await field('Deployment name').fill('');
    await field('Naming pattern').fill('vdi');
    await field('VM folder').fill('');
    await next('Next: review');
    await expectRefused(field('Deployment name'), /Give the deployment a name/);
    await expectRefused(field('Naming pattern'), /run of '#'/);
    await expectRefused(field('VM folder'), /Give a VM folder/);
    await expectRefused(field('Golden VM'), /Pick the golden VM/);
    await shot('5-desktops-refused');

    await field('Naming pattern').fill(TAKEN);
    await expectRefused(field('Naming pattern'), /desktop-01, desktop-02, desktop-03 exist already/);
    await shot('5-desktops-taken-names');

    await field('Deployment name').fill(NAME);
    await field('Naming pattern').fill('vdi-####');
    await expect(page.getByTestId('name-preview')).toHaveText(/vdi-0001 to vdi-0020 \(20 desktops\)/);
    await field('VM folder').fill('vdi');
    await field('Golden VM').selectOption(GOLDEN);
    await field('Snapshot').selectOption('base');
    await field('vCPUs').fill('1');
    await field('Memory (MiB)').fill('1024');
    // More desktops than the cluster has room for: only vCenter knows, so the api refuses it at Review.
    // Step 4 asks the count (step 5 shows it read-only, with a link back).
    await page.getByRole('link', { name: 'Change the count in step 4' }).click();
    await page.getByLabel('Desktops in the pool').fill('4000');
    await next();
    await expect(field('Desktops')).toHaveValue('4000', { timeout: 60_000 });
    await next('Next: review');
  });

  await test.step("6. Review sends the api's refusal of the count back to the count field", async () => {
    await expect(stepHeading(page, '4. Pool type')).toBeVisible({ timeout: 60_000 });
    const count = page.getByLabel('Desktops in the pool');
    await expectRefused(count, /4000 desktops of 1024 MiB need/);
    await shot('4-pooltype-count-over-room');
    await count.fill('20');
    await expect(count).not.toHaveAttribute('aria-invalid', 'true');
    await next();
    await expect(stepHeading(page, '5. Desktops')).toBeVisible();
    await field('Naming pattern').fill('vdi-###');
    await expect(page.getByTestId('name-preview')).toHaveText(/vdi-001 to vdi-020 \(20 desktops\)/);
    await shot('5-desktops');
    await next('Next: review');
  });

  await test.step('6. Review: every object to create, per host, with counts', async () => {
    await expect(stepHeading(page, '6. Review')).toBeVisible();
    const diff = page.getByTestId('review-diff');
    await expect(diff).toBeVisible({ timeout: 60_000 });
    const counts = diff.getByRole('list', { name: 'Changes by kind' });
    await expect(counts.locator('[data-count="create appliance"]')).toHaveText('Create 4 appliances');
    await expect(counts.locator('[data-count="create disk"]')).toHaveText('Create 16 disks (LUNs and SSDs)'); // 2 LUNs, a SLOG and an L2ARC each
    await expect(counts.locator('[data-count="create nfs_mount"]')).toHaveText('Create 4 NFS datastore mounts');
    await expect(counts.locator('[data-count="create desktop"]')).toHaveText('Create 20 desktops');
    for (const host of HOSTS) await expect(diff.getByRole('region', { name: host })).toContainText('Create 1 appliance');
    await expect(diff.getByRole('region', { name: `Cluster ${CLUSTER}` })).toContainText('Create 20 desktops');
    await shot('6-review');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  });

  await test.step('7. Deploy: live progress to the end; a reload reattaches', async () => {
    await expect(stepHeading(page, '7. Deploy')).toBeVisible();
    const state = page.getByTestId('job-state');
    await expect(state).toBeVisible({ timeout: 60_000 });
    await shot('7-deploy-running');
    await expect(state).not.toHaveAttribute('data-state', 'failed', { timeout: 30_000 });
    // Reload-safe: the draft keeps the job's id, and the step follows it again over server-sent events.
    const stream = page.waitForResponse((r) => /\/api\/jobs\/\d+\/stream/.test(r.url()));
    await page.reload();
    expect((await stream).headers()['content-type']).toMatch(/^text\/event-stream/);
    await expect(state).toHaveAttribute('data-state', 'succeeded', { timeout: 300_000 });
    const objects = page.getByTestId('deploy-objects');
    await expect(objects.locator('tr[data-object^="vdi-"][data-state="done"]')).toHaveCount(20);
    await expect(objects.locator('tr[data-object^="arcvsa-0"][data-state="done"]')).toHaveCount(4);
    await expect(objects.locator(`tr[data-object^="${NFS}@"][data-state="done"]`)).toHaveCount(4);
    await expect(page.locator('[data-phase="desktops"]')).toContainText('20 of 20 done');
    await expect(page.getByTestId('deploy-failures')).toHaveCount(0);
    await shot('7-deploy-done');

    // A browser without EventSource: the step falls back to polling the job and its events.
    const plain = await page.context().newPage();
    await plain.addInitScript(() => Reflect.deleteProperty(window, 'EventSource'));
    const polled = plain.waitForResponse((r) => /\/api\/jobs\/\d+\/events/.test(r.url()), { timeout: 30_000 });
    await plain.goto('/deploy/deploy');
    await polled;
    await expect(plain.getByTestId('job-state')).toHaveAttribute('data-state', 'succeeded');
    await expect(plain.getByTestId('deploy-objects').locator('tr[data-object^="vdi-"][data-state="done"]')).toHaveCount(20);
    await plain.close();
  });

  const card = page.getByTestId('deployment-card').filter({ has: page.getByRole('heading', { name: NAME }) });

  await test.step('recompose onto the newer snapshot through the Desktop pools page', async () => {
    await page.getByRole('button', { name: 'Open desktop pools' }).click();
    await expect(page.getByRole('heading', { name: 'Desktop pools', level: 1 })).toBeVisible();
    await expect(card.getByTestId('desktops-present')).toHaveText('20 of 20', { timeout: 60_000 });
    await shot('8-pools');
    const before = await card.getByTestId('job-state').first().getAttribute('data-job');
    await card.getByRole('button', { name: `Recompose ${NAME}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(`Snapshot of ${GOLDEN}`).selectOption(NEW_SNAPSHOT);
    await dialog.getByRole('button', { name: 'Show changes' }).click();
    await expect(dialog.getByTestId('plan-diff').locator('li[data-op="replace"][data-kind="desktop"]')).toHaveCount(20);
    await shot('9-recompose');
    await dialog.getByRole('button', { name: 'Apply', exact: true }).click();
    // Its job needs the appliances' admin password: asked for this run in an empty field, never reused.
    const ask = dialog.getByTestId('secret-ask');
    await expect(ask.getByLabel('Appliance admin password')).toHaveValue('');
    await ask.getByLabel('Appliance admin password').fill(password);
    await ask.getByRole('button', { name: 'Continue' }).click();
    const job = card.getByTestId('job-state').first();
    await expect
      .poll(async () => [await job.getAttribute('data-job'), await job.getAttribute('data-state')], { timeout: 180_000 })
      .toEqual([String(Number(before) + 1), 'succeeded']);
    await expect(card.getByTestId('pool-source')).toHaveText(`${GOLDEN}@${NEW_SNAPSHOT}`);
    await shot('9-recomposed');
  });

  await test.step('delete: what goes is listed, the name typed, destroyed and forgotten', async () => {
    await card.getByRole('button', { name: `Delete ${NAME}` }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('doomed-objects').locator('li[data-kind="desktop"]')).toHaveCount(20, { timeout: 60_000 });
    await dialog.getByLabel(`Type ${NAME} to confirm`).fill(NAME);
    await shot('10-delete-confirm');
    await dialog.getByRole('button', { name: `Delete ${NAME}` }).click();
    // Its appliances' pools are released through their apis: the password is asked for this run too.
    const ask = dialog.getByTestId('secret-ask');
    await expect(ask.getByLabel('Appliance admin password')).toHaveValue('');
    await ask.getByLabel('Appliance admin password').fill(password);
    await ask.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByTestId('pools-empty')).toBeVisible({ timeout: 180_000 });
    await shot('10-deleted');
  });
});
