// The only module that knows how requests travel: Electron IPC (window.api from the preload)
// when present, else browser mode (fetch + WebSocket to the loopback server, with the launch
// token taken from the address once and kept in sessionStorage). Replies are unwrapped here:
// callers get a value or an ApiError with a code and a message written for the user.
import type {
  Api,
  Args,
  ErrorCode,
  EventName,
  Events,
  Reply,
  RequestName,
  Result,
} from '../../engine/api/contract.ts';
import { type AnyListener, deliverEvent } from './deliver.ts';
import { readableRequestError } from './request-errors.ts';

/**
 * 'unauthorized': the page has no valid token; nothing will work until it is opened again.
 * 'expired': its token worked, then was refused: Benchtop was restarted (a new token each launch).
 */
export type ConnectionState = 'connecting' | 'online' | 'offline' | 'unauthorized' | 'expired';

/** A failed request, carrying the contract's error code. */
export class ApiError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

const TOKEN_KEY = 'benchtop.token';

function takeToken(): string {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl !== null) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** The envelope for a request that could not be sent or answered, as the preload gives. */
function notSent(err: unknown): { ok: false; error: { code: 'internal'; message: string } } {
  const kind = err instanceof Error ? err.name : typeof err;
  return {
    ok: false,
    error: {
      code: 'internal',
      message: `Benchtop could not send this request or read its answer (${kind}); try again, and report it if it keeps happening.`,
    },
  };
}

function browserTransport(onConnection: (s: ConnectionState) => void): Api {
  const token = takeToken();
  const listeners = new Map<EventName, Set<AnyListener>>();
  let retryMs = 500;
  let isRefused = token === '';
  let wasOnline = false;
  const refused = (): void => {
    isRefused = true;
    onConnection(wasOnline ? 'expired' : 'unauthorized');
  };
  const connect = (): void => {
    if (isRefused) return void refused();
    onConnection('connecting');
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(
      `${scheme}://${location.host}/api/events?token=${encodeURIComponent(token)}`,
    );
    ws.onopen = () => {
      retryMs = 500;
      wasOnline = true;
      onConnection('online');
    };
    ws.onmessage = (m: MessageEvent<string>) => {
      const msg = JSON.parse(m.data) as { event?: EventName; payload?: unknown };
      // Unknown names find no listeners (the map is keyed by the contract's event names).
      if (msg.event !== undefined)
        deliverEvent(msg.event, [...(listeners.get(msg.event) ?? [])], msg.payload);
    };
    ws.onclose = () => {
      if (isRefused) return;
      onConnection('offline');
      setTimeout(() => {
        // A WebSocket refusal has no status: ask whether Benchtop is back with another token.
        fetch('/api/status', { headers: { Authorization: `Bearer ${token}` } }).then(
          (res) => (res.status === 401 ? refused() : connect()),
          () => connect(),
        );
      }, retryMs);
      retryMs = Math.min(retryMs * 2, 5000);
    };
  };
  connect();
  return {
    async invoke<K extends RequestName>(name: K, args: Args<K>): Promise<Reply<Result<K>>> {
      let body: string;
      try {
        body = JSON.stringify(args);
      } catch (err) {
        return notSent(err); // a cycle or a BigInt in the arguments, as IPC refuses in Electron
      }
      let res: Response;
      try {
        res = await fetch(`/api/invoke/${encodeURIComponent(name)}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body,
        });
      } catch {
        return {
          ok: false,
          error: {
            code: 'engine-unavailable',
            // Browser mode is started by `npm start` or `benchtop serve`: name both.
            message:
              'Benchtop is not running. Start it again the way you started it (npm start or benchtop serve), then open the new address it prints.',
          },
        };
      }
      if (res.status === 401) {
        refused();
        return {
          ok: false,
          error: {
            code: 'unauthorized',
            message:
              'This page has no valid access token. Open the full address Benchtop printed when it started.',
          },
        };
      }
      try {
        return (await res.json()) as Reply<Result<K>>;
      } catch (err) {
        return notSent(err); // an answer cut off (the connection dropped mid-reply)
      }
    },
    on<K extends EventName>(name: K, listener: (payload: Events[K]) => void): () => void {
      const set = listeners.get(name) ?? new Set<AnyListener>();
      listeners.set(name, set);
      set.add(listener as AnyListener);
      return () => set.delete(listener as AnyListener);
    },
  };
}

const connectionListeners = new Set<(s: ConnectionState) => void>();
let connection: ConnectionState = 'connecting';
const setConnection = (s: ConnectionState): void => {
  connection = s;
  deliverEvent('connection', [...connectionListeners] as AnyListener[], s);
};

const transport: Api = window.api ?? browserTransport(setConnection);
if (window.api) setConnection('online');

/** True inside the Electron app (native dialogs exist); false in browser mode. */
export const isDesktop = window.api !== undefined;

/** Sends a request; resolves with its value or rejects with an ApiError. */
export async function call<K extends RequestName>(name: K, args: Args<K>): Promise<Result<K>> {
  const reply = await transport.invoke(name, args);
  if (!reply.ok)
    throw new ApiError(
      reply.error.code,
      // "args.entityType.name must be…" is said in the form's words.
      reply.error.code === 'invalid-request' ? readableRequestError(reply.error.message) : reply.error.message,
    );
  return reply.value;
}

/** Subscribes to an event; returns the unsubscribe function. */
export function on<K extends EventName>(
  name: K,
  listener: (payload: Events[K]) => void,
): () => void {
  return transport.on(name, listener);
}

/** Follows the browser-mode event connection (always 'online' in Electron). */
export function onConnection(listener: (s: ConnectionState) => void): () => void {
  connectionListeners.add(listener);
  listener(connection);
  return () => connectionListeners.delete(listener);
}

/** A message for any thrown value, fit to show the user. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return 'Something unexpected went wrong in the interface; reload the window and try again.';
}
