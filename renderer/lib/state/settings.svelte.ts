// Settings screen data: app facts, the thread count and device, and the device list.
import type { AppInfo, DeviceInfo, Settings } from '../../../engine/api/contract.ts';
import { call, messageOf } from '../api.ts';

class SettingsState {
  info = $state.raw<AppInfo | null>(null);
  settings = $state.raw<Settings | null>(null);
  devices = $state.raw<DeviceInfo[] | null>(null);
  error = $state<string | null>(null);
  /** Why the thread count typed last was not saved. */
  threadsError = $state<string | null>(null);
  isSaving = $state(false);
  /** "Saved." after each change that was saved (for a live region; a repeat differs by a space). */
  savedNotice = $state('');
  /** The device work runs on: the saved choice, or the CPU where that one is unavailable. */
  activeDevice = $derived(this.#activeDevice());

  #activeDevice(): Settings['device'] | null {
    const saved = this.settings?.device ?? null;
    const device = this.devices?.find((d) => d.id === saved);
    return device && !device.isAvailable ? 'cpu' : saved;
  }

  /**
   * Loads each part on its own: a damaged settings file (refused with its path) must not hide
   * the data folder it lives in, nor the devices.
   */
  async load(): Promise<void> {
    const [info, saved] = await Promise.allSettled([call('app:get-info', {}), call('settings:get', {})]);
    if (info.status === 'fulfilled') this.info = info.value;
    if (saved.status === 'fulfilled') this.settings = saved.value;
    const failed = [saved, info].find((r) => r.status === 'rejected');
    this.error = failed ? messageOf(failed.reason) : null;
    try {
      this.devices = await call('devices:list', {});
    } catch (err) {
      this.error ??= messageOf(err);
    }
  }

  /** Saves a typed thread count if it is a whole number from 1 to `max`; else says why (false). */
  async setThreads(typed: string, max: number): Promise<boolean> {
    const n = Number(typed);
    if (typed.trim() === '' || !Number.isInteger(n) || n < 1 || n > max) {
      const kept = this.settings ? `; still ${this.settings.threads}` : '';
      this.threadsError = `Threads must be a whole number from 1 to ${max} (this computer has ${max} cores)${kept}.`;
      return false;
    }
    this.threadsError = null;
    await this.update({ threads: n });
    return true;
  }

  async update(patch: Partial<Settings>): Promise<void> {
    this.isSaving = true;
    try {
      this.settings = await call('settings:update', patch);
      this.error = null;
      this.savedNotice = this.savedNotice === 'Saved.' ? 'Saved.\u00a0' : 'Saved.';
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.isSaving = false;
    }
  }
}

export const settings = new SettingsState();
