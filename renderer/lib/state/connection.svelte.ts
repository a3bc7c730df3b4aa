// Whether the engine is reachable: browser-mode WebSocket state, and Electron's engine
// crash/restart events. The shell shows a banner while it is not.
import { type ConnectionState, on, onConnection } from '../api.ts';

class Connection {
  state = $state<ConnectionState>('connecting');
  /** The engine stopped: why, and whether Benchtop restarts it (false: it gave up). */
  crash = $state<{ message: string; willRestart: boolean } | null>(null);
  /** Electron: how long the engine had not answered main's liveness check, while it does not. */
  unresponsiveSeconds = $state<number | null>(null);

  constructor() {
    onConnection((s) => (this.state = s));
    on('engine:crashed', (p) => {
      this.crash = { message: p.message, willRestart: p.willRestart !== false };
      this.unresponsiveSeconds = null;
    });
    on('engine:ready', () => {
      this.crash = null;
      this.unresponsiveSeconds = null;
    });
    on('engine:unresponsive', (p) => (this.unresponsiveSeconds = p.seconds));
  }
}

export const connection = new Connection();
