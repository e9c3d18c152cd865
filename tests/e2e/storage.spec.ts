// The storage pages against a live arcvsa api (ARCVSA_URL, ARCVSA_ADMIN_USER, ARCVSA_ADMIN_PASSWORD).
//
// Two modes:
// - default: an api on a machine without ZFS (tests/e2e/test_browser.py starts one). Every page must tell
//   the truth about that: the api's own error where a tool is missing, honest empty states elsewhere,
//   and the pure parts (profiles, the calculator) working.
// - ARCVSA_STORAGE_LAB=1: the lab appliance with a pool built (see the lab notes in tests/e2e/README.md).
//   Every page must show what the api reports, row for row.
//
// Each page is saved as a screenshot in the run's output folder (web/test-results/storage from make test,
// web/test-results/storage-lab from make lab-test).
import { type Page, expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: point ARCVSA_URL and the admin credentials at an arcvsa api`);
  return value;
}

const LAB = process.env.ARCVSA_STORAGE_LAB === '1';

async function logIn(page: Page) {
  await page.goto('/');
  await page.getByLabel('User name', { exact: true }).fill(env('ARCVSA_ADMIN_USER'));
  await page.getByLabel('Password', { exact: true }).fill(env('ARCVSA_ADMIN_PASSWORD'));
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('signed-in-user')).toHaveText(env('ARCVSA_ADMIN_USER'));
}

/** Open a storage page from the side nav, as a person would, and wait for its title. */
async function open(page: Page, link: string, heading: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /^Reading|^Looking/ })).toHaveCount(0);
}

async function shot(page: Page, dir: string, name: string) {
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

async function json<T>(response: { json(): Promise<unknown> }): Promise<T> {
  return (await response.json()) as T;
}

interface ErrorBody {
  detail: string;
  code: string;
}

/**
 * Where a tool is missing the api refuses with a system fault, and the page shows exactly its message;
 * where the tool is there after all (a dev host with a recent lsblk or with ZFS), ``whenThere`` checks the
 * page against the api's answer instead.
 */
async function expectSystemFault<T>(page: Page, url: string, title: string, whenThere: (answer: T) => Promise<void>) {
  const answer = await page.request.get(url);
  if (answer.ok()) {
    await whenThere(await json<T>(answer));
    return;
  }
  expect(answer.status(), `${url} on a machine without the tool`).toBe(502);
  const body = await json<ErrorBody>(answer);
  expect(body.code).toBe('system_fault');
  const alert = page.getByRole('alert').filter({ hasText: title });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText(`${title}. ${body.detail}`);
  await expect(alert.getByRole('button', { name: 'Try again' })).toBeVisible();
}

test.describe('storage pages', () => {
  test.beforeEach(async ({ page }) => {
    await logIn(page);
  });

  test('without an appliance: the api’s own errors, honest empty states, a working calculator', async ({ page }, testInfo) => {
    test.skip(LAB, 'ARCVSA_STORAGE_LAB=1: the populated pages are checked instead');
    const dir = testInfo.project.outputDir;

    await test.step('dashboard: no samples and no datastore, said so', async () => {
      await open(page, 'Dashboard', 'Storage dashboard');
      const series = await json<{ points: unknown[]; interval_seconds: number }>(
        await page.request.get('/api/storage/metrics?minutes=60'),
      );
      expect(series.points).toHaveLength(0);
      await expect(page.getByTestId('metrics-empty')).toContainText('No samples in this time range yet');
      await expect(page.getByTestId('metrics-empty')).toContainText(`one sample every ${series.interval_seconds} s`);
      await expect(page.getByText('No datastore exported yet')).toBeVisible();
      await expect(page.getByTestId('cache-now')).toContainText('ARC hit ratio');
      // The range buttons are real toggles.
      const range = page.getByRole('group', { name: 'Time range' });
      await range.getByRole('button', { name: '6 h' }).click();
      await expect(range.getByRole('button', { name: '6 h' })).toHaveAttribute('aria-pressed', 'true');
      await expect(range.getByRole('button', { name: '1 h' })).toHaveAttribute('aria-pressed', 'false');
      await shot(page, dir, 'dashboard');
    });

    await test.step('disks: the api’s 502 from the missing (or too old) tool, word for word', async () => {
      await open(page, 'Disks', 'Disks');
      await expectSystemFault(page, '/api/storage/disks', 'Could not read the disks', async (disks: unknown[]) => {
        if (disks.length) await expect(page.getByTestId('disk-row')).toHaveCount(disks.length);
        else await expect(page.getByText('No disks found')).toBeVisible();
      });
      await shot(page, dir, 'disks');
    });

    await test.step('pools: the same, and the create form cannot offer disks it cannot read', async () => {
      await open(page, 'Pools', 'Pools');
      await expectSystemFault(page, '/api/storage/pools', 'Could not read the pools', async (pools: unknown[]) => {
        if (pools.length) await expect(page.getByTestId('pool-card')).toHaveCount(pools.length);
        else await expect(page.getByText('No pool yet — create one from free disks')).toBeVisible();
      });
      await page.getByRole('button', { name: 'Create pool' }).first().click();
      const form = page.getByRole('region', { name: 'Create a pool' });
      const disks = await page.request.get('/api/storage/disks');
      if (!disks.ok()) await expect(form.getByRole('alert')).toContainText('Could not read the disks');
      else await expect(form.getByLabel('Pool name')).toBeVisible();
      await shot(page, dir, 'pools');
    });

    await test.step('datasets: they live in pools, which cannot be read here', async () => {
      await open(page, 'Datasets', 'Datasets');
      await expectSystemFault(page, '/api/storage/pools', 'Could not read the pools', async (pools: unknown[]) => {
        if (!pools.length) await expect(page.getByText('No pool yet — datasets live in a pool')).toBeVisible();
        else await expect(page.getByRole('heading', { name: /^Datasets of / })).toBeVisible();
      });
      const pools = await page.request.get('/api/storage/pools');
      if (!pools.ok()) await expect(page.getByRole('button', { name: 'Create dataset' })).toBeDisabled();
      await shot(page, dir, 'datasets');
    });

    await test.step('import a pool: the pools zpool finds on the LUNs, or the api’s fault in words', async () => {
      await open(page, 'Pools', 'Pools');
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/storage/imports'));
      await page.getByRole('button', { name: 'Import pool' }).click();
      const form = page.getByRole('region', { name: 'Import a pool' });
      const listed = await answer;
      // Where zpool is missing the api's 502 is shown as words; elsewhere the list (none on a fresh machine).
      if (!listed.ok()) {
        const body = await json<ErrorBody>(listed);
        await expect(form.getByRole('alert')).toContainText(body.detail);
      } else {
        const found = await json<{ id: string }[]>(listed);
        if (found.length) await expect(form.locator(`[data-pool-id="${found[0].id}"]`)).toBeVisible();
        else await expect(form.getByTestId('imports-none')).toBeVisible();
      }
      await expect(form).not.toContainText('"detail"');
      await shot(page, dir, 'pools-import');
      await form.getByRole('button', { name: 'Close' }).click();
      await expect(form).toHaveCount(0);
    });

    await test.step('exports: none yet, the NFS server named, and the form checks before sending', async () => {
      await open(page, 'NFS exports', 'NFS exports');
      const nfs = await json<{ backend: string; exports: unknown[] }>(await page.request.get('/api/storage/nfs'));
      expect(nfs.exports).toHaveLength(0);
      await expect(page.getByTestId('nfs-backend')).toHaveAttribute('data-backend', nfs.backend);
      await expect(page.getByText('No export yet')).toBeVisible();
      await page.getByRole('button', { name: 'Add export' }).first().click();
      const form = page.getByRole('region', { name: 'Add an export' });
      await form.getByLabel('ESXi host addresses').fill('esx-01.example.com');
      await form.getByRole('button', { name: 'Add export' }).click();
      await expect(form.getByLabel('Dataset', { exact: true })).toHaveAttribute('aria-invalid', 'true');
      await expect(form.getByLabel('ESXi host addresses')).toHaveAttribute('aria-invalid', 'true');
      await expect(form.locator('[data-field-message="clients"]')).toContainText('"esx-01.example.com" is not the IP address');
      await expect(form.getByRole('radio', { name: /NFS 3/ })).toBeChecked();
      await shot(page, dir, 'exports');
    });

    await test.step('iSCSI: no target yet', async () => {
      await open(page, 'iSCSI targets', 'iSCSI targets');
      expect(await json<unknown[]>(await page.request.get('/api/storage/iscsi/targets'))).toHaveLength(0);
      await expect(page.getByText('No iSCSI target yet')).toBeVisible();
      await page.getByRole('button', { name: 'Add target' }).first().click();
      const form = page.getByRole('region', { name: 'Add an iSCSI target' });
      await form.getByLabel('Require CHAP authentication').check();
      await expect(form.getByLabel('CHAP secret')).toHaveAttribute('type', 'password');
      await shot(page, dir, 'iscsi');
    });

    await test.step('tuning: profiles and the calculator work (pure), module parameters absent', async () => {
      await open(page, 'Tuning', 'Tuning');
      const profiles = await json<{ name: string; description: string }[]>(await page.request.get('/api/tuning/profiles'));
      await expect(page.getByTestId('profile-description')).toHaveText(profiles[0]!.description);
      await expect(page.getByTestId('params-empty')).toBeVisible();

      const answer = page.waitForResponse((r) => r.url().endsWith('/api/tuning/recommendation'));
      await page.getByRole('button', { name: 'Calculate' }).click();
      const plan = await json<{ expected_read_offload: number; recommendations: { name: string; why: string }[] }>(
        await answer,
      );
      await expect(page.getByTestId('expected-offload')).toHaveText(`${plan.expected_read_offload}x`);
      const rows = page.getByTestId('recommendation');
      await expect(rows).toHaveCount(plan.recommendations.length);
      for (const r of plan.recommendations) {
        await expect(page.locator(`[data-testid="recommendation"][data-name="${r.name}"]`)).toContainText(r.why);
      }
      // A number out of range is refused beside its field, before anything is sent.
      await page.getByLabel('Appliance RAM (GiB)').fill('1');
      await page.getByRole('button', { name: 'Calculate' }).click();
      await expect(page.getByLabel('Appliance RAM (GiB)')).toHaveAttribute('aria-invalid', 'true');
      await page.getByLabel('Appliance RAM (GiB)').fill('64');
      await page.getByRole('button', { name: 'Calculate' }).click();
      await expect(page.getByLabel('Appliance RAM (GiB)')).not.toHaveAttribute('aria-invalid', 'true');
      await shot(page, dir, 'tuning');
    });
  });

  // The import form on zpool's own answers: the api_imports recording (tests/fixtures/appliance/api_flows.py),
  // two exported pools named tank. page.route answers the steps the form sends, in the recorded order, with
  // what the api answered live; any other request to /api/storage/imports fails the test.
  test('import a pool: two of one name told apart by id, the second renamed (lab recording replayed)', async ({ page }, testInfo) => {
    test.skip(LAB, 'the lab appliance has pools of its own');
    const dir = testInfo.project.outputDir;
    type Answer = { status: number; body: unknown };
    const file = path.resolve('..', 'tests/fixtures/appliance/recordings/api_imports.json');
    const api = (JSON.parse(readFileSync(file, 'utf8')) as { api: Answer[] }).api;
    const [first, second] = api[4].body as { name: string; id: string }[];
    const at = (id: string) => `/api/storage/imports/${id}`;
    // API_IMPORTS' steps 4, 6, 7, 8, 10 and 11: the ones a person at this form sends.
    const expected = [
      { method: 'GET', path: '/api/storage/imports', body: null, answer: api[4] },
      { method: 'POST', path: at(first.id), body: {}, answer: api[6] },
      { method: 'GET', path: '/api/storage/imports', body: null, answer: api[7] },
      { method: 'POST', path: at(second.id), body: {}, answer: api[8] },
      { method: 'POST', path: at(second.id), body: { name: 'tank2' }, answer: api[10] },
      { method: 'GET', path: '/api/storage/imports', body: null, answer: api[11] },
    ];
    const unexpected: string[] = [];
    await page.route('**/api/storage/imports**', async (route) => {
      const request = route.request();
      const sent = request.postData();
      const step = expected[0];
      const matches =
        step &&
        step.method === request.method() &&
        step.path === new URL(request.url()).pathname &&
        JSON.stringify(step.body) === JSON.stringify(sent ? JSON.parse(sent) : null);
      if (!matches) {
        unexpected.push(`${request.method()} ${request.url()} ${sent ?? ''}`);
        return route.abort('failed');
      }
      expected.shift();
      return route.fulfill({ status: step.answer.status, json: step.answer.body });
    });

    await open(page, 'Pools', 'Pools');
    await page.getByRole('button', { name: 'Import pool' }).click();
    const form = page.getByRole('region', { name: 'Import a pool' });
    const one = form.locator(`[data-pool-id="${first.id}"]`);
    const other = form.locator(`[data-pool-id="${second.id}"]`);
    await expect(form.locator('[data-pool-id]')).toHaveCount(2);
    await expect(one.getByRole('heading', { name: `tank id ${first.id}` })).toBeVisible();
    await expect(one).toContainText('Another pool on the LUNs is also named tank');
    await expect(one).toContainText('ONLINE');
    await shot(page, dir, 'pools-import-two');

    await one.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(form.getByRole('status').filter({ hasText: 'tank is imported' })).toBeVisible();
    await expect(form.locator('[data-pool-id]')).toHaveCount(1);
    await expect(other).not.toContainText('also named');

    // zpool's refusal (the name is now taken) at the name; a bad name stopped before sending; then a new one.
    const name = other.getByLabel('Import as', { exact: true });
    await other.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(other.locator(`[data-field-message="import-name-${second.id}"]`)).toHaveText(
      (api[8].body as { detail: string }).detail,
    );
    await name.fill('tank;reboot');
    await other.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(other.locator(`[data-field-message="import-name-${second.id}"]`)).toHaveText(
      'Start with a letter, then letters, digits, _ or - (48 at most).',
    );
    await name.fill('tank2');
    await other.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(form.getByRole('status').filter({ hasText: 'tank2 is imported' })).toBeVisible();
    await expect(form.getByTestId('imports-none')).toBeVisible();
    await shot(page, dir, 'pools-import-done');
    expect(unexpected).toEqual([]);
    expect(expected).toHaveLength(0);
    await form.getByRole('button', { name: 'Close' }).click();
    await expect(form).toHaveCount(0);
  });

  test('on the lab appliance: every page shows what the api reports', async ({ page }, testInfo) => {
    test.skip(!LAB, 'set ARCVSA_STORAGE_LAB=1 and point ARCVSA_URL at the lab appliance');
    const dir = testInfo.project.outputDir;

    type Disk = { path: string; system: boolean; in_use: string | null };
    type Vdev = { name: string; path: string | null; role: string; parent: string | null; vdev_type: string };
    type Pool = { name: string; state: string; vdevs: Vdev[] };
    // The pool's data layout as the Add LUNs dialog should preselect it.
    const layoutOf = (p: Pool) => {
      const top = p.vdevs.find((v) => v.role === 'data' && v.parent === null);
      if (!top || top.vdev_type === 'disk') return 'stripe';
      return top.vdev_type === 'mirror' ? 'mirror' : (top.name.match(/^raidz\d/)?.[0] ?? 'stripe');
    };
    const disks = await json<Disk[]>(await page.request.get('/api/storage/disks'));
    const pools = await json<Pool[]>(await page.request.get('/api/storage/pools'));
    expect(pools.length, 'the lab appliance has a pool (build one before this run)').toBeGreaterThan(0);
    const pool = pools.find((p) => p.name === process.env.ARCVSA_STORAGE_POOL) ?? pools[0]!;

    await test.step('disks: one row per disk, the pool’s disks marked as used by it', async () => {
      await open(page, 'Disks', 'Disks');
      await expect(page.getByTestId('disk-row')).toHaveCount(disks.length);
      const used = pool.vdevs.find((v) => v.path)!;
      // zpool partitions a whole disk: its vdev path is the disk's by-id path plus -part1.
      const usedDisk = disks.find((d) => used.path === d.path || used.path!.startsWith(`${d.path}-part`));
      if (usedDisk) {
        await expect(page.locator(`[data-testid="disk-row"][data-path="${usedDisk.path}"]`)).toContainText(
          `Pool ${pool.name}`,
        );
      }
      await shot(page, dir, 'disks');
    });

    await test.step('pools: a card per pool with every vdev and its state', async () => {
      await open(page, 'Pools', 'Pools');
      await expect(page.getByTestId('pool-card')).toHaveCount(pools.length);
      const card = page.locator(`[data-testid="pool-card"][data-pool="${pool.name}"]`);
      await expect(card.locator('[data-state]').first()).toHaveAttribute('data-state', pool.state);
      await expect(card.getByTestId('vdev-row')).toHaveCount(pool.vdevs.length);
      await expect(card).toContainText('Layout');
      await shot(page, dir, 'pools');
      // The destroy dialog names what is lost and needs the name typed; cancel it.
      await card.getByRole('button', { name: `Destroy pool ${pool.name}` }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog).toContainText(`Everything on ${pool.name} is lost`);
      await expect(dialog.getByRole('button', { name: `Destroy ${pool.name}` })).toBeDisabled();
      await shot(page, dir, 'pools-destroy-dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toHaveCount(0);
    });

    await test.step('pools: the Add LUNs, Replace and Export dialogs open, explain, and cancel', async () => {
      const card = page.locator(`[data-testid="pool-card"][data-pool="${pool.name}"]`);
      const dialog = page.getByRole('dialog');
      const free = disks.filter((d) => !d.system && !d.in_use);

      await card.getByRole('button', { name: `Add LUNs to pool ${pool.name}` }).click();
      await expect(dialog).toContainText(`Add LUNs to ${pool.name}`);
      await expect(dialog.getByLabel('Layout of the new LUNs')).toHaveValue(layoutOf(pool));
      if (free.length) await expect(dialog.getByTestId('free-disk')).toHaveCount(free.length);
      else await expect(dialog).toContainText('No free disk');
      await shot(page, dir, 'pools-grow-dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toHaveCount(0);

      const leaf = pool.vdevs.find((v) => v.role === 'data' && v.path && !pool.vdevs.some((c) => c.parent === v.name))!;
      await card.getByRole('button', { name: `Replace ${leaf.name}`, exact: true }).click();
      await expect(dialog).toContainText(`Replace ${leaf.name} in ${pool.name}`);
      await expect(dialog).toContainText('resilvering');
      await shot(page, dir, 'pools-replace-dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toHaveCount(0);

      const nfs = await json<{ exports: { dataset: string }[] }>(await page.request.get('/api/storage/nfs'));
      const blocking = nfs.exports.filter((e) => e.dataset === pool.name || e.dataset.startsWith(`${pool.name}/`));
      await card.getByRole('button', { name: `Export pool ${pool.name}` }).click();
      await expect(dialog).toContainText('go offline for the ESXi hosts');
      if (blocking.length) {
        await expect(dialog.getByTestId('blocking-exports').getByRole('listitem')).toHaveCount(blocking.length);
        await expect(dialog.getByRole('button', { name: `Export ${pool.name}` })).toBeDisabled();
      }
      await shot(page, dir, 'pools-export-dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toHaveCount(0);
    });

    await test.step('pools: Scrub starts a scrub, and the scan line shows it', async () => {
      const card = page.locator(`[data-testid="pool-card"][data-pool="${pool.name}"]`);
      const started = page.waitForResponse((r) => r.url().endsWith(`/api/storage/pools/${pool.name}/scrub`));
      await card.getByRole('button', { name: `Scrub pool ${pool.name}` }).click();
      const answer = await started;
      expect(answer.status()).toBe(202);
      const scan = (await json<{ scan: { function: string; start_time: number } }>(answer)).scan;
      expect(scan.function).toBe('SCRUB');
      const line = card.getByTestId('scan-line');
      await expect(line).toHaveAttribute('data-scan-start', String(scan.start_time));
      await expect(line).toContainText(/^scrub (scanning|finished)/);
      await shot(page, dir, 'pools-scrub');
    });

    await test.step('datasets: one row per child dataset of the pool', async () => {
      const datasets = await json<{ name: string }[]>(
        await page.request.get(`/api/storage/pools/${encodeURIComponent(pool.name)}/datasets`),
      );
      await page.goto(`/storage/datasets?pool=${encodeURIComponent(pool.name)}`);
      await expect(page.getByRole('heading', { name: `Datasets of ${pool.name}` })).toBeVisible();
      const children = datasets.filter((d) => d.name !== pool.name);
      await expect(page.getByTestId('dataset-row')).toHaveCount(children.length);
      await expect(page.getByTestId('pool-space')).toContainText('used');
      await shot(page, dir, 'datasets');
    });

    await test.step('datasets: a quota set through the Edit dialog, then taken off again', async () => {
      type Ds = { name: string; type: string; used: number; properties: Record<string, unknown> };
      const listed = async () =>
        json<Ds[]>(await page.request.get(`/api/storage/pools/${encodeURIComponent(pool.name)}/datasets`));
      const fs = (await listed()).find((d) => d.type === 'FILESYSTEM' && d.name !== pool.name);
      expect(fs, `a file system on ${pool.name}`).toBeTruthy();
      // zfs refuses a quota below what the dataset uses: 1G unless it holds more.
      const gib = fs!.used < 0.9 * 2 ** 30 ? 1 : Math.ceil(fs!.used / 2 ** 30) + 1;
      const row = page.locator(`[data-testid="dataset-row"][data-dataset="${fs!.name}"]`);
      const dialog = page.getByRole('dialog');
      const edit = async (quota: string) => {
        await row.getByRole('button', { name: `Edit ${fs!.name}`, exact: true }).click();
        await expect(dialog).toContainText(`Edit ${fs!.name}`);
        await dialog.getByLabel('Quota', { exact: true }).fill(quota);
        const saved = page.waitForResponse((r) => r.request().method() === 'PATCH');
        await dialog.getByRole('button', { name: 'Save' }).click();
        expect((await saved).status()).toBe(200);
        await expect(dialog).toHaveCount(0);
      };
      await edit(`${gib}G`);
      await expect(row).toContainText(`quota=${gib}G`);
      expect(Number((await listed()).find((d) => d.name === fs!.name)!.properties.quota)).toBe(gib * 2 ** 30);
      await shot(page, dir, 'datasets-quota');
      await edit('none');
      await expect(row).not.toContainText('quota=');
      expect(Number((await listed()).find((d) => d.name === fs!.name)!.properties.quota ?? 0)).toBe(0);
    });

    await test.step('exports: the api’s exports and NFS server', async () => {
      const nfs = await json<{ backend: string; exports: { dataset: string }[] }>(await page.request.get('/api/storage/nfs'));
      await open(page, 'NFS exports', 'NFS exports');
      await expect(page.getByTestId('nfs-backend')).toHaveAttribute('data-backend', nfs.backend);
      await expect(page.getByTestId('export-row')).toHaveCount(nfs.exports.length);
      await shot(page, dir, 'exports');
    });

    await test.step('iSCSI: the api’s targets, no secret anywhere', async () => {
      const targets = await json<{ iqn: string }[]>(await page.request.get('/api/storage/iscsi/targets'));
      await open(page, 'iSCSI targets', 'iSCSI targets');
      if (targets.length) await expect(page.getByTestId('target-row')).toHaveCount(targets.length);
      else await expect(page.getByText('No iSCSI target yet')).toBeVisible();
      await shot(page, dir, 'iscsi');
    });

    await test.step('tuning: the module parameters in effect', async () => {
      const params = await json<{ name: string }[]>(await page.request.get('/api/tuning/parameters'));
      await open(page, 'Tuning', 'Tuning');
      expect(params.length).toBeGreaterThan(0);
      await expect(page.getByTestId('params-table').locator('tbody tr')).toHaveCount(params.length);
      await page.getByRole('button', { name: 'Calculate' }).click();
      await expect(page.getByTestId('expected-offload')).toHaveText(/^\d+(\.\d+)?x$/);
      await shot(page, dir, 'tuning');
    });

    await test.step('dashboard: a card per datastore, and charts once there are samples', async () => {
      const summary = await json<{ exports: unknown[] }>(await page.request.get('/api/storage/metrics/summary'));
      const series = await json<{ points: unknown[] }>(await page.request.get('/api/storage/metrics?minutes=60'));
      await open(page, 'Dashboard', 'Storage dashboard');
      await expect(page.getByTestId('datastore-card')).toHaveCount(summary.exports.length);
      if (series.points.length >= 2) {
        await expect(page.getByTestId('chart')).toHaveCount(6);
        // The time cursor answers the keyboard and reads the values out.
        const cursor = page.getByRole('slider', { name: 'Cache hit ratio, time cursor' });
        await cursor.focus();
        await page.keyboard.press('Home');
        await expect(cursor).toHaveAttribute('aria-valuenow', '0');
        await expect(cursor).toHaveAttribute('aria-valuetext', /ARC/);
        await page.keyboard.press('ArrowRight');
        await expect(cursor).toHaveAttribute('aria-valuenow', '1');
      } else {
        await expect(page.getByTestId('metrics-empty')).toBeVisible();
      }
      await shot(page, dir, 'dashboard');
    });
  });
});
