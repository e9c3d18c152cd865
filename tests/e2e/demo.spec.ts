// The newcomer's first hour (make demo-test, tests/lab/test_demo.py): `make demo` is running, and this
// spec knows only what it printed (ARCVSA_DEMO_OUTPUT) and what the screens show. It connects the demo's
// vCenter, deploys a desktop pool on the demo's lab appliance through the wizard, destroys it, and
// deploys it again, which must need no force. A screenshot of every step lands in the output folder.
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import path from 'node:path';

const printed = process.env.ARCVSA_DEMO_OUTPUT ?? '';

/** One value the demo printed, by the words before it. */
function shown(pattern: RegExp, what: string): string[] {
  const found = pattern.exec(printed);
  if (!found) throw new Error(`make demo printed no ${what}:\n${printed}`);
  return found.slice(1);
}

const [adminUser, adminPassword] = shown(/log in as:\s+(\S+)\s+password:\s+(\S+)/, 'login');
const [vcAddress, vcPort] = shown(/address (\S+)\s+port (\d+)/, 'vCenter address');
const [vcUser, vcPassword] = shown(/user (\S+)\s+password (\S+)/, 'vCenter login');
const [vcThumbprint] = shown(/certificate SHA-256 (\S+)/, 'vCenter certificate');
const [applianceUrl, appliancePassword] = shown(/web\/api\s+(https:\/\/\S+?)\/?\s+admin \/ (\S+)/, 'lab appliance address and password');

// A field that never appears fails its step instead of waiting out the whole journey's time.
test.use({ actionTimeout: 60_000 });

const POOL = 'demo-pool';
// An address on the NFS network, as an admin picks one; the demo's simulated hosts mount whatever it is.
const ADDRESS = '192.0.2.21';

const stepHeading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name });
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function chooseFirst(page: Page, label: string, pattern?: RegExp) {
  const select = field(page, label);
  await expect(select).toBeVisible({ timeout: 60_000 });
  const options = await select.locator('option').evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent ?? '']));
  const choice = options.find(([value, label]) => value !== '' && (!pattern || pattern.test(label)));
  if (!choice) throw new Error(`${label} offers nothing${pattern ? ` matching ${pattern}` : ''}: ${JSON.stringify(options)}`);
  await select.selectOption(choice[0]!);
}

async function deploy(page: Page, shot: (name: string) => Promise<unknown>, round: string) {
  const next = (name = 'Next') => page.getByRole('button', { name, exact: true }).click();
  let clusterHosts = 0;

  await test.step(`${round}: 1. vCenter`, async () => {
    await page.getByRole('link', { name: 'Deploy' }).click();
    // A first visit opens step 1; after a deployment, the Deploy step offers a new one (which keeps the vCenter).
    const newDeployment = page.getByRole('button', { name: 'New deployment' });
    await expect(stepHeading(page, '1. vCenter').or(newDeployment)).toBeVisible({ timeout: 60_000 });
    if (await newDeployment.isVisible()) {
      await shot(`${round}-0-new-deployment`);
      await newDeployment.click();
      return;
    }
    await field(page, 'Name').fill('demo vCenter');
    await field(page, 'Address').fill(vcAddress!);
    await field(page, 'Port').fill(vcPort!);
    await field(page, 'User name').fill(vcUser!);
    await field(page, 'Password').fill(vcPassword!);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect(page.getByTestId('cert-thumbprint')).toHaveText(vcThumbprint!);
    await shot(`${round}-1-vcenter-certificate`);
    await page.getByRole('button', { name: 'Accept and connect' }).click();
    await expect(page.getByTestId('vcenter-option').getByRole('radio').first()).toBeChecked({ timeout: 60_000 });
    await shot(`${round}-1-vcenter`);
    await next();
  });

  await test.step(`${round}: 2. Placement: the only datacenter and cluster, one host`, async () => {
    await expect(stepHeading(page, '2. Placement')).toBeVisible();
    await expect(field(page, 'Datacenter')).not.toHaveValue('', { timeout: 60_000 });
    await expect(field(page, 'Cluster')).not.toHaveValue('');
    clusterHosts = await page.getByTestId('placement-host').count();
    await page.getByTestId('placement-host').first().getByRole('checkbox').check();
    await shot(`${round}-2-placement`);
    await next();
  });

  await test.step(`${round}: 3. Back end: the lab appliance filled in`, async () => {
    await expect(stepHeading(page, '3. Back end')).toBeVisible();
    await expect(page.getByTestId('stand-in')).toHaveCount(1, { timeout: 60_000 });
    await expect(field(page, 'Appliance OVA')).toHaveValue(/\.ova$/);
    await chooseFirst(page, 'Network', /nfs/i);
    await chooseFirst(page, 'Boot datastore');
    await page.getByLabel('IPv4 address of arcvsa-01').fill(ADDRESS);
    await page.getByLabel('Appliance admin password').fill(appliancePassword!);
    await page.getByLabel('Confirm the password').fill(appliancePassword!);
    await shot(`${round}-3-backend`);
    await next();
  });

  await test.step(`${round}: 4. Pool type: as proposed`, async () => {
    await expect(stepHeading(page, '4. Pool type')).toBeVisible();
    await shot(`${round}-4-pooltype`);
    await next();
  });

  await test.step(`${round}: 5. Desktops`, async () => {
    await expect(stepHeading(page, '5. Desktops')).toBeVisible();
    await chooseFirst(page, 'Golden VM');
    await chooseFirst(page, 'Snapshot');
    await field(page, 'Deployment name').fill(POOL);
    await shot(`${round}-5-desktops`);
    await next('Next: review');
  });

  await test.step(`${round}: 6. Review and deploy`, async () => {
    await expect(stepHeading(page, '6. Review')).toBeVisible();
    await expect(page.getByTestId('review-diff')).toBeVisible({ timeout: 60_000 });
    await shot(`${round}-6-review`);
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  });

  await test.step(`${round}: 7. Deploy: the appliance, its storage, the datastore and the desktops`, async () => {
    await expect(stepHeading(page, '7. Deploy')).toBeVisible();
    const state = page.getByTestId('job-state');
    await expect(state).toBeVisible({ timeout: 60_000 });
    await shot(`${round}-7-deploy-running`);
    await expect(state).toHaveAttribute('data-state', /succeeded|failed|cancelled/, { timeout: 900_000 });
    await shot(`${round}-7-deploy-done`);
    await expect(page.getByTestId('deploy-failures')).toHaveCount(0);
    await expect(state).toHaveAttribute('data-state', 'succeeded');
    const objects = page.getByTestId('deploy-objects');
    await expect(objects.locator('tr[data-object="arcvsa-01"][data-state="done"]')).toHaveCount(1);
    // The datastore is mounted on every host of the cluster, not only on the appliance's
    await expect(objects.locator('tr[data-object^="arcvsa-vdi@"][data-state="done"]')).toHaveCount(clusterHosts);
    await expect(page.locator('[data-phase="desktops"]')).toContainText('20 of 20 done');
  });

  await test.step(`${round}: the lab appliance's own pages show the pool and its export`, async () => {
    const appliance = await onAppliance(page.context(), '/storage/pools');
    await expect(appliance.locator('[data-testid="pool-card"][data-pool="tank"]')).toContainText('Online', { timeout: 60_000 });
    await appliance.goto(`${applianceUrl}/storage/exports`);
    await expect(appliance.locator('[data-testid="export-row"][data-dataset="tank/vdi"]')).toHaveCount(1, { timeout: 60_000 });
    await appliance.screenshot({ path: path.join(test.info().project.outputDir, `${round}-8-appliance-export.png`), fullPage: true });
    await appliance.close();
  });
}

/** The lab appliance's web interface at `where`, in another tab of the manager's browser: logged in with what
 * the demo printed for it when it asks. Its session is its own: the manager's tab stays logged in. */
async function onAppliance(context: BrowserContext, where: string): Promise<Page> {
  const appliance = await context.newPage();
  await appliance.goto(`${applianceUrl}${where}`);
  const login = field(appliance, 'User name');
  await expect(appliance.getByTestId('signed-in-user').or(login)).toBeVisible({ timeout: 60_000 });
  if (await login.isVisible()) {
    await login.fill('admin');
    await field(appliance, 'Password').fill(appliancePassword!);
    await appliance.getByRole('button', { name: 'Log in' }).click();
    await expect(appliance.getByTestId('signed-in-user')).toBeVisible();
    await appliance.goto(`${applianceUrl}${where}`);
  }
  return appliance;
}

test('make demo: deploy a desktop pool on the lab appliance, destroy it, deploy it again', async ({ page }, testInfo) => {
  test.setTimeout(2_700_000);
  const shot = (name: string) => page.screenshot({ path: path.join(testInfo.project.outputDir, `${name}.png`), fullPage: true });

  await test.step('log in with what make demo printed', async () => {
    await page.goto('/');
    await field(page, 'User name').fill(adminUser!);
    await field(page, 'Password').fill(adminPassword!);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByTestId('signed-in-user')).toBeVisible();
    await shot('0-logged-in');
  });

  await deploy(page, shot, 'first');

  await test.step('destroy it from Desktop pools', async () => {
    await page.getByRole('link', { name: 'Desktop pools' }).click();
    const card = page.getByTestId('deployment-card').filter({ has: page.getByRole('heading', { name: POOL }) });
    await card.getByRole('button', { name: `Delete ${POOL}` }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('doomed-objects')).toBeVisible({ timeout: 60_000 });
    await dialog.getByLabel(`Type ${POOL} to confirm`).fill(POOL);
    await shot('destroy-confirm');
    await dialog.getByRole('button', { name: `Delete ${POOL}` }).click();
    // The appliance's pool is released through its api, so its admin password is asked for, empty.
    const ask = dialog.getByTestId('secret-ask');
    await expect(ask.getByLabel('Appliance admin password')).toHaveValue('');
    await ask.getByLabel('Appliance admin password').fill(appliancePassword!);
    await shot('destroy-password');
    await ask.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByTestId('pools-empty')).toBeVisible({ timeout: 600_000 });
    await shot('destroyed');
  });

  await test.step("the appliance's pool went with the deployment, and its disks are free", async () => {
    const appliance = await onAppliance(page.context(), '/storage/pools');
    await expect(appliance.getByText('No pool yet — create one from free disks')).toBeVisible({ timeout: 60_000 });
    await expect(appliance.locator('[data-testid="pool-card"]')).toHaveCount(0);
    await appliance.screenshot({ path: path.join(test.info().project.outputDir, 'destroyed-appliance-pools.png'), fullPage: true });
    await appliance.close();
    await expect(page.getByTestId('signed-in-user')).toBeVisible(); // the manager's session is still there
  });

  await deploy(page, shot, 'again');
});
