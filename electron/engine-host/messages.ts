// Messages between electron/main (engine-supervisor) and the engine host over parentPort.
import type { EventName, Reply } from '../../engine/api/contract.ts';

/**
 * `shutdown`: stop jobs at a step boundary (checkpoints kept), close the workspace, exit.
 * `ping`: a liveness check, answered at once with `pong` by a host whose event loop turns.
 */
export type MainMessage =
  | { type: 'request'; id: number; name: string; args: unknown }
  | { type: 'shutdown' }
  | { type: 'ping' };

export type HostMessage =
  | { type: 'ready' }
  /** `isFinal`: the installation is at fault (a native module that does not load): no new try. */
  | { type: 'fatal'; message: string; isFinal?: true }
  | { type: 'reply'; id: number; reply: Reply<unknown> }
  | { type: 'event'; name: EventName; payload: unknown }
  | { type: 'pong' };
