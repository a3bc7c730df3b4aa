// The desktop app through Playwright's _electron. Electron's binary is not installed on the
// build machines, so this spec skips with a message there; where it exists it needs
// `npx electron-vite build` first and checks the window, the demo project and the lock-down.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { electronBinary } from '../../engine/serve/command.ts';
import { ROOT, screenshot } from './fixtures.ts';

const exe = electronBinary();
const isBuilt = existsSync(join(ROOT, 'out', 'main', 'index.js'));
const reason =
  exe === null
    ? 'SKIPPED: the Electron binary is not installed on this machine (node_modules/electron has no dist/); browser-mode specs cover the UI.'
    : 'SKIPPED: the desktop app is not built; run "npx electron-vite build" first.';

describe('desktop app (Electron)', () => {
  if (exe === null || !isBuilt) console.warn(`electron.spec.ts ${reason}`);

  it.skipIf(exe === null || !isBuilt)(
    'opens a sandboxed window with the demo project and no network',
    async () => {
      const data = mkdtempSync(join(tmpdir(), 'benchtop-electron-'));
      const app = await _electron.launch({
        executablePath: exe!,
        args: [ROOT],
        env: { ...process.env, BENCHTOP_DATA_DIR: data },
      });
      try {
        const page = await app.firstWindow();
        await page.getByTestId('project-item').first().waitFor();
        expect(await page.getByTestId('current-project').textContent()).toContain('Demo');
        expect(
          await page.evaluate('typeof require === "undefined" && typeof process === "undefined"'),
        ).toBe(true);
        expect(await page.evaluate('typeof window.api.invoke')).toBe('function');
        const blocked = await page.evaluate(
          'fetch("https://example.com").then(() => "reached", () => "blocked")',
        );
        expect(blocked).toBe('blocked');
        await screenshot(page, '11-electron');
      } finally {
        await app.close();
        rmSync(data, { recursive: true, force: true });
      }
    },
  );
});
