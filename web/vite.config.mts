import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Plugin, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** A gzip twin (name.gz) of each built JS, CSS, SVG and HTML file: the api sends it to browsers that take
 * gzip (api/web_assets.py), about a quarter of the bytes, compressed once here rather than per request. */
function precompress(): Plugin {
  let outDir = 'dist';
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  return {
    name: 'arcvsa-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      for (const path of walk(outDir).filter((p) => /\.(js|css|svg|html)$/.test(p))) {
        const data = readFileSync(path);
        if (data.length >= 1024) writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
      }
    },
  };
}

// In development the api runs separately (ARCVSA_API, default https://127.0.0.1:8443);
// in the appliance and the demo the api serves dist/ itself, so the client uses relative URLs.
const api = process.env.ARCVSA_API ?? 'https://127.0.0.1:8443';

export default defineConfig({
  plugins: [react(), precompress()],
  build: {
    outDir: 'dist',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    // Pages are lazy chunks (src/app/pages.ts); what they share comes in two chunks rather than a dozen
    // small ones: the libraries, and the app's own components and api hooks. Fewer requests per page.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'vendor', test: /[\\/]node_modules[\\/]/ },
            { name: 'app', test: /[\\/]src[\\/](components|api)[\\/]|[\\/]src[\\/]format\.ts$/ },
          ],
        },
      },
    },
  },
  server: {
    proxy: { '/api': { target: api, changeOrigin: true, secure: false } },
  },
});
