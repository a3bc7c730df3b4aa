// Browser-mode build of the renderer (`npm run build:web` → out/renderer, served by
// `benchtop serve`). Electron builds the same app through electron.vite.config.ts.
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'renderer',
  base: './',
  publicDir: false,
  plugins: [svelte({ compilerOptions: { runes: true } })],
  build: {
    outDir: '../out/renderer',
    emptyOutDir: true,
    target: 'chrome120',
    reportCompressedSize: false,
  },
  server: { host: '127.0.0.1', strictPort: false },
});
