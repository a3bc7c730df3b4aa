import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_MALLOC_ENV, engineProcessEnv, hasEngineProcessEnv } from './process-env.ts';

describe('engine process environment', () => {
  it('adds the allocator settings without overriding what the user set', () => {
    const env = engineProcessEnv({ PATH: '/bin', MALLOC_ARENA_MAX: '4' });
    expect(env['PATH']).toBe('/bin');
    expect(env['MALLOC_ARENA_MAX']).toBe('4');
    expect(env['MALLOC_MMAP_THRESHOLD_']).toBe(ENGINE_MALLOC_ENV['MALLOC_MMAP_THRESHOLD_']);
    expect(hasEngineProcessEnv(env)).toBe(true);
    expect(hasEngineProcessEnv({ PATH: '/bin' })).toBe(false);
  });

  it.runIf(process.platform === 'linux')('the benchtop CLI restarts itself with them, passing output and exit code through', () => {
    const bin = path.resolve(import.meta.dirname, '../../bin/benchtop.js');
    const env = { ...process.env };
    for (const k of Object.keys(ENGINE_MALLOC_ENV)) delete env[k];
    const r = spawnSync(process.execPath, [bin, 'model', 'inspect', '/nonexistent-benchtop-folder', '--json'], { env, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/model folder does not exist/);
  });
});
