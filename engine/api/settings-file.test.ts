// A damaged settings.json is reported, naming the file and what is wrong, and left as it is: it
// was read as the defaults, written over by the next change, and brought the deleted demo back.
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Reply, Result } from './contract.ts';
import { createEngine } from './handlers.ts';
import { type TestEngine, openTestEngine } from './test-engine.ts';

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const settingsFile = (e: TestEngine): string => join(e.dir, 'settings.json');
async function value<T>(reply: Promise<Reply<T>>): Promise<T> {
  const r = await reply;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('settings.json', () => {
  it('keeps what is saved, fields missing from an older file taking their defaults', async () => {
    const e = (t = openTestEngine('benchtop-settings-'));
    await e.call('settings:update', { threads: 2, theme: 'dark', int8Inference: true });
    expect(await e.call('settings:get', {})).toMatchObject({ threads: 2, theme: 'dark', int8Inference: true, device: 'cpu' });
    writeFileSync(settingsFile(e), JSON.stringify({ threads: 3, isDemoSeeded: true }));
    expect(await e.call('settings:get', {})).toMatchObject({ threads: 3, theme: 'system', int8Inference: false });
  });

  it.skipIf(process.platform === 'win32')('is owner-only (0600) as the rest of the workspace, an older 0644 one tightened when written', async () => {
    const e = (t = openTestEngine('benchtop-settings-mode-'));
    const mode = (): number => statSync(settingsFile(e)).mode & 0o777;
    expect(mode()).toBe(0o600); // written at the first launch (the demo project was made)
    chmodSync(settingsFile(e), 0o644); // as Benchtop made it before
    await e.call('settings:update', { theme: 'dark' });
    expect(mode()).toBe(0o600);
    expect(await e.call('settings:get', {})).toMatchObject({ theme: 'dark' });
    expect(readdirSync(e.dir).filter((f) => f.includes('settings'))).toEqual(['settings.json']); // no temp file left
  });

  it('reports a file that is not JSON, or holds a field of the wrong kind, and never writes over it', async () => {
    const e = (t = openTestEngine('benchtop-settings-damaged-'));
    const cases: [string, RegExp][] = [
      ['{"threads": 6, "theme": "dark",', /is damaged \(it is not valid JSON\)/],
      ['[1, 2]', /is damaged \(it is not a JSON object\)/],
      ['{"threads": "6", "theme": "dark"}', /is damaged \("threads" must be a whole number of 1 or more, not "6"\)/],
      ['{"threads": 6, "theme": "blue"}', /is damaged \("theme" must be "system", "light" or "dark", not "blue"\)/],
    ];
    for (const [text, why] of cases) {
      writeFileSync(settingsFile(e), text);
      for (const reply of [await e.invoke('settings:get', {}), await e.invoke('settings:update', { threads: 1 })]) {
        expect(reply).toMatchObject({ ok: false, error: { code: 'invalid' } });
        const message = reply.ok ? '' : reply.error.message;
        expect(message).toMatch(why);
        expect(message).toContain(settingsFile(e));
        expect(message).toMatch(/correct it in a text editor, or delete it to go back to the default settings\.$/);
      }
      expect(readFileSync(settingsFile(e), 'utf8')).toBe(text);
    }
  });

  it('refuses a training run before it is recorded or copies any document; once mended, the copy is owner-only', async () => {
    const e = (t = openTestEngine('benchtop-settings-run-'));
    const [demo] = await e.call('projects:list', {});
    const [dataset] = await e.call('datasets:list', { projectId: demo!.id });
    const args = { projectId: demo!.id, task: 'ner' as const, datasetIds: [dataset!.id], preset: 'small-2L-128', maxSteps: 1, batchSize: 2, maxLength: 32 };
    const runsDir = join(e.dir, 'runs');
    const copies = (): string[] => (existsSync(runsDir) ? readdirSync(runsDir) : []);
    writeFileSync(settingsFile(e), '{"threads": 6,');
    const refused = await e.invoke('train:start', args);
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid' } });
    expect(refused.ok ? '' : refused.error.message).toContain(settingsFile(e));
    // It left no run stuck "queued" and no copy of the documents (only deleting the project removed them).
    expect(await e.call('train:list-runs', { projectId: demo!.id })).toEqual([]);
    expect(copies()).toEqual([]);

    rmSync(settingsFile(e));
    const { runId } = await e.call('train:start', args);
    expect(copies()).toEqual([runId]);
    if (process.platform !== 'win32') {
      expect(statSync(join(runsDir, runId)).mode & 0o777).toBe(0o700);
      expect(statSync(join(runsDir, runId, 'data.json')).mode & 0o777).toBe(0o600);
    }
    await e.call('train:cancel', { runId });
    const status = async (): Promise<string | undefined> => (await e.call('train:list-runs', { projectId: demo!.id })).find((r) => r.id === runId)?.status;
    await expect.poll(status, { timeout: 60_000 }).toMatch(/^(cancelled|completed)$/);
  }, 90_000);

  it('does not bring the deleted demo project back when the file is damaged at the next launch', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'benchtop-settings-demo-'));
    const first = createEngine({ dataDir });
    const [demo] = (await value(first.invoke('projects:list', {}))) as Result<'projects:list'>;
    await value(first.invoke('projects:delete', { projectId: demo!.id }));
    await first.close();
    const text = '{"theme": "dark", "isDemoSeeded": tru';
    writeFileSync(join(dataDir, 'settings.json'), text);
    const next = createEngine({ dataDir });
    try {
      expect(await value(next.invoke('projects:list', {}))).toEqual([]);
      expect(readFileSync(join(dataDir, 'settings.json'), 'utf8')).toBe(text);
    } finally {
      await next.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
