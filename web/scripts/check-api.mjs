// CI drift check: regenerate the API types into a temp file and fail if the committed ones differ.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = join(dirname(fileURLToPath(import.meta.url)), '..');
const spec = join(web, '..', 'api', 'openapi.json');
const committed = join(web, 'src', 'api', 'schema.d.ts');
const cli = join(web, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');

const dir = mkdtempSync(join(tmpdir(), 'arcvsa-api-'));
try {
  const fresh = join(dir, 'schema.d.ts');
  execFileSync(process.execPath, [cli, spec, '-o', fresh], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (readFileSync(fresh, 'utf8') !== readFileSync(committed, 'utf8')) {
    console.error('src/api/schema.d.ts is out of date with api/openapi.json: run `npm run gen:api` and commit it.');
    process.exit(1);
  }
  console.log('src/api/schema.d.ts matches api/openapi.json');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
