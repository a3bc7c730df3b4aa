// Whether the engine is reachable: browser-mode WebSocket state, and Electron's engine
// crash/restart events. The shell shows a banner while it is not.
import { type ConnectionState, on, onConnection } from '../api.ts';

class Connection {
  state = $state<ConnectionState>('connecting');
  /** The engine stopped: why, and whether Benchtop restarts it (false: it gave up). */
  crash = $state<{ message: string; willRestart: boolean } | null>(null);

  constructor() {
    onConnection((s) => (this.state = s));
    on('engine:crashed', (p) => (this.crash = { message: p.message, willRestart: p.willRestart !== false }));
    on('engine:ready', () => (this.crash = null));
  }
}

export const connection = new Connection();
