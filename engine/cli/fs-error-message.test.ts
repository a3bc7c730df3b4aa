// The CLI names the path the user gave when a write fails on a hidden temp file beside it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempBeside, writeFileAtomic } from '../io/atomic.ts';
import { fsErrorMessage, userPathOf } from './fs-error-message.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-fs-message-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function thrown(f: () => void): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('fsErrorMessage', () => {
  it.runIf(existsSync('/proc/version'))('names /proc/version, not the temp file the write made beside it', () => {
    // /proc takes no new files, even as root: the open of /proc/.version.PID.tmp fails.
    const e = thrown(() => writeFileAtomic('/proc/version', '{}'));
    expect((e as NodeJS.ErrnoException).path).toMatch(/^\/proc\/\.version\.\d+\.tmp$/);
    const msg = fsErrorMessage(e, ['/proc/version']) as string;
    expect(msg.startsWith('/proc/version: ')).toBe(true);
    expect(fsErrorMessage(e) as string).toBe(msg); // read back from the temp name alone
  });

  it('maps each kind of temp name back to its target', () => {
    const err = (p: string): NodeJS.ErrnoException => Object.assign(new Error('x'), { code: 'ENOSPC', path: p });
    const full = 'the disk is full; free some space and run again';
    expect(fsErrorMessage(err(path.join(tmp, '.out.json.4242.tmp')))).toBe(`${path.join(tmp, 'out.json')}: ${full}`);
    expect(fsErrorMessage(err(path.join(tmp, '.x.5.4242.tmp')))).toBe(`${path.join(tmp, 'x.5')}: ${full}`);
    expect(fsErrorMessage(err('.out.json.4242.tmp'))).toBe(`out.json: ${full}`);
    // A model folder is written into ".NAME.tmp-TAG": a file inside it is the folder's.
    const inFolder = path.join(tmp, '.model.tmp-4242-abc-def123', 'model.safetensors.tmp-4242');
    expect(fsErrorMessage(err(inFolder))).toBe(`${path.join(tmp, 'model')}: ${full}`);
    expect(fsErrorMessage(err(path.join(tmp, '.model.old-4242-abc-def123')))).toBe(`${path.join(tmp, 'model')}: ${full}`);
    // An export's temp name, and a path without a temp name.
    expect(fsErrorMessage(err(path.join(tmp, '.a.conll.4242.k3j9x.tmp')))).toBe(`${path.join(tmp, 'a.conll')}: ${full}`);
    expect(fsErrorMessage(err(path.join(tmp, 'plain.json')))).toBe(`${path.join(tmp, 'plain.json')}: ${full}`);
  });

  it('names a long output whose temp name was shortened (from the command line, else its folder)', () => {
    const long = path.join(tmp, `${'n'.repeat(248)}.json`);
    const temp = tempBeside(long, '.4242.tmp');
    expect(path.basename(temp).length).toBeLessThan(100); // the shortened form
    const e = Object.assign(new Error('x'), { code: 'EROFS', path: temp });
    expect(fsErrorMessage(e, ['--ignored', long])).toBe(`${long}: the location is read-only; choose another one`);
    expect(fsErrorMessage(e)).toBe(`${tmp}: the location is read-only; choose another one`);
  });

  it('leaves ordinary hidden files alone', () => {
    expect(userPathOf('/home/me/.bashrc')).toBe('/home/me/.bashrc');
    expect(userPathOf('/home/me/.cache/x.tmp')).toBe('/home/me/.cache/x.tmp');
  });

  it('is undefined for errors that are not file-system errors', () => {
    expect(fsErrorMessage(new Error('boom'))).toBeUndefined();
  });
});
