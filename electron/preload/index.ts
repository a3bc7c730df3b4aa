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
  for (const listener of listeners.get(event) ?? []) {
    // One failing subscriber must not keep the event from the others (the crash banner, say).
    try {
      listener(payload);
    } catch (err) {
      console.error(`[benchtop] a ${event} listener failed:`, err);
    }
  }
});

const api: Api = {
  async invoke<K extends RequestName>(name: K, args: Args<K>): Promise<Reply<Result<K>>> {
    if (!isRequestName(name))
      return { ok: false, error: { code: 'unknown-request', message: 'Unknown request.' } };
    try {
      return (await ipcRenderer.invoke('api:invoke', name, args)) as Reply<Result<K>>;
    } catch (err) {
      // Arguments IPC cannot carry (a function, a DOM node), or main failing: an envelope, as
      // browser mode answers, not Electron's "Error invoking remote method" text.
      const kind = err instanceof Error ? err.name : typeof err;
      return {
        ok: false,
        error: {
          code: 'internal',
          message: `Benchtop could not send this request (${kind}); try again, and report it if it keeps happening.`,
        },
      };
    }
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
