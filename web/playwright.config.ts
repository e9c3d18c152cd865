import { defineConfig } from '@playwright/test';

// Runs against a live stack (lab/demo.py starts vcsim and the api, and exports ARCVSA_URL and the
// credentials). Debian's chromium is used as is: no browser download.
export default defineConfig({
  testDir: '../tests/e2e',
  // The specs live outside web/: resolve @playwright/test to web/node_modules for them.
  tsconfig: './tsconfig.e2e.json',
  outputDir: 'test-results',
  timeout: 120_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    baseURL: process.env.ARCVSA_URL,
    ignoreHTTPSErrors: true,
    viewport: { width: 1440, height: 900 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [{ name: 'chromium' }],
});
