// electron-vite 6 build of the desktop app with our folder layout (not the src/ defaults):
// main + engine host (via ?modulePath) → out/main, sandboxed CommonJS preload → out/preload,
// renderer → out/renderer. Native modules stay external and are rebuilt by `npm run package`.
import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';

const root = import.meta.dirname;

export default defineConfig({
  main: {
    build: {
      // An input (not build.lib) so the ?modulePath sub-build of the engine host works.
      // The worker bootstrap, the task-job module and the DOCX reader are separate entries: worker
      // threads load them by path (BENCHTOP_WORKER_BOOT / BENCHTOP_TASK_WORKER /
      // BENCHTOP_DOCX_READER, set by the engine host).
      rolldownOptions: {
        input: {
          index: resolve(root, 'electron/main/index.ts'),
          'worker-boot': resolve(root, 'engine/runtime/worker-boot.mjs'),
          'task-worker': resolve(root, 'engine/tasks/jobs.ts'),
          'docx-reader': resolve(root, 'engine/formats/docx-reader.ts'),
        },
      },
      externalizeDeps: true,
    },
  },
  preload: {
    build: {
      // Sandboxed preloads must be CommonJS.
      lib: { entry: resolve(root, 'electron/preload/index.ts'), formats: ['cjs'] },
      externalizeDeps: true,
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [svelte({ compilerOptions: { runes: true } })],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rolldownOptions: { input: resolve(root, 'renderer/index.html') },
    },
  },
});
