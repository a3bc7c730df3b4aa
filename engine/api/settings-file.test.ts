// A damaged settings.json is reported, naming the file and what is wrong, and left as it is: it
// was read as the defaults, written over by the next change, and brought the deleted demo back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
