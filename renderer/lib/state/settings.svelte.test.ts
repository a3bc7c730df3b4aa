import { describe, expect, it, vi } from 'vitest';

const DAMAGED = 'The settings file /data/settings.json is damaged (it is not valid JSON), so Benchtop leaves it as it is.';
vi.mock('../api.ts', () => ({
  call: vi.fn((name: string) =>
    name === 'settings:get'
      ? Promise.reject(new Error(DAMAGED))
      : Promise.resolve(name === 'app:get-info' ? { dataDir: '/data', cpuCount: 2 } : [{ id: 'cpu', label: 'CPU', isAvailable: true }]),
  ),
  messageOf: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));
const { settings } = await import('./settings.svelte.ts');

describe('settings state', () => {
  it('says why the settings could not be read and still shows the data folder and the devices', async () => {
    await settings.load();
    expect(settings.error).toBe(DAMAGED);
    expect(settings.settings).toBeNull(); // nothing shown as if saved
    expect(settings.info?.dataDir).toBe('/data');
    expect(settings.devices?.map((d) => d.id)).toEqual(['cpu']);
  });
});
