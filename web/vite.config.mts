import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// In development the api runs separately (ARCVSA_API, default https://127.0.0.1:8443);
// in the appliance and the demo the api serves dist/ itself, so the client uses relative URLs.
const api = process.env.ARCVSA_API ?? 'https://127.0.0.1:8443';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: { '/api': { target: api, changeOrigin: true, secure: false } },
  },
});
