// Exposes window.api to the sandboxed renderer: generic invoke/on over the contract's
// allow-lists, nothing else. Replies are the contract's envelopes (unwrapped in lib/api.ts).
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type {
  Api,
  Args,
  EventName,
  Events,
  Reply,
  RequestName,
  Result,
} from '../../engine/api/contract.ts';
import { isEventName, isRequestName } from '../../engine/api/contract.ts';

const api: Api = {
  invoke<K extends RequestName>(name: K, args: Args<K>): Promise<Reply<Result<K>>> {
    if (!isRequestName(name)) {
      return Promise.resolve({
        ok: false,
        error: { code: 'unknown-request', message: 'Unknown request.' },
      });
    }
    return ipcRenderer.invoke('api:invoke', name, args) as Promise<Reply<Result<K>>>;
  },
  on<K extends EventName>(name: K, listener: (payload: Events[K]) => void): () => void {
    if (!isEventName(name)) return () => {};
    const handler = (_e: IpcRendererEvent, event: unknown, payload: unknown): void => {
      if (event === name) listener(payload as Events[K]);
    };
    ipcRenderer.on('api:event', handler);
    return () => ipcRenderer.removeListener('api:event', handler);
  },
};

contextBridge.exposeInMainWorld('api', api);
