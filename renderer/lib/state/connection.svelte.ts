// Whether the engine is reachable: browser-mode WebSocket state, and Electron's engine
// crash/restart events. The shell shows a banner while it is not.
import { type ConnectionState, on, onConnection } from '../api.ts';

class Connection {
  state = $state<ConnectionState>('connecting');
  crashMessage = $state<string | null>(null);

  constructor() {
    onConnection((s) => (this.state = s));
    on('engine:crashed', (p) => (this.crashMessage = p.message));
    on('engine:ready', () => (this.crashMessage = null));
  }
}

export const connection = new Connection();
