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

type AnyListener = (payload: unknown) => void;
// NOTE: one ipcRenderer listener for all subscriptions: the renderer's state classes subscribe
// more than ten times, and an EventEmitter warns of a leak past ten listeners.
const listeners = new Map<EventName, Set<AnyListener>>();
ipcRenderer.on('api:event', (_e: IpcRendererEvent, event: unknown, payload: unknown) => {
  if (!isEventName(event)) return;
  for (const listener of listeners.get(event) ?? []) listener(payload);
});

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
    // A wrapper per subscription: subscribing the same function twice needs two unsubscribes.
    const handler: AnyListener = (payload) => listener(payload as Events[K]);
    const set = listeners.get(name) ?? new Set<AnyListener>();
    listeners.set(name, set.add(handler));
    return () => void set.delete(handler);
  },
};

contextBridge.exposeInMainWorld('api', api);
