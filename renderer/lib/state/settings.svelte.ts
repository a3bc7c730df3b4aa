// Settings screen data: app facts, the thread count and device, and the device list.
import type { AppInfo, DeviceInfo, Settings } from '../../../engine/api/contract.ts';
import { call, messageOf } from '../api.ts';

class SettingsState {
  info = $state.raw<AppInfo | null>(null);
  settings = $state.raw<Settings | null>(null);
  devices = $state.raw<DeviceInfo[] | null>(null);
  error = $state<string | null>(null);
  isSaving = $state(false);

  async load(): Promise<void> {
    try {
      [this.info, this.settings] = await Promise.all([
        call('app:get-info', {}),
        call('settings:get', {}),
      ]);
      this.error = null;
      this.devices = await call('devices:list', {});
    } catch (err) {
      this.error = messageOf(err);
    }
  }

  async update(patch: Partial<Settings>): Promise<void> {
    this.isSaving = true;
    try {
      this.settings = await call('settings:update', patch);
      this.error = null;
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.isSaving = false;
    }
  }
}

export const settings = new SettingsState();
