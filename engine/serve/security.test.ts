// The Host and Origin checks of browser mode on their own: which names they take for a port.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isHostAllowed, isOriginAllowed } from './security.ts';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('browser-mode Host and Origin checks', () => {
  it('take the loopback names with our port only', () => {
    expect(isHostAllowed(req({ host: '127.0.0.1:8888' }), 8888)).toBe(true);
    expect(isHostAllowed(req({ host: 'LOCALHOST:8888' }), 8888)).toBe(true);
    for (const host of ['127.0.0.1', '127.0.0.1:8889', 'evil.example:8888', '127.0.0.1.evil.example:8888'])
      expect(isHostAllowed(req({ host }), 8888), host).toBe(false);
    expect(isOriginAllowed(req({ origin: 'http://localhost:8888' }), 8888)).toBe(true);
    for (const origin of ['http://127.0.0.1', 'http://evil.example:8888', 'null', 'https://127.0.0.1:8888'])
      expect(isOriginAllowed(req({ origin }), 8888), origin).toBe(false);
  });

  it('take the names without the port on port 80, as browsers send them there', () => {
    expect(isHostAllowed(req({ host: '127.0.0.1' }), 80)).toBe(true);
    expect(isHostAllowed(req({ host: 'localhost' }), 80)).toBe(true);
    expect(isHostAllowed(req({ host: 'evil.example' }), 80)).toBe(false);
    expect(isOriginAllowed(req({ origin: 'http://127.0.0.1' }), 80)).toBe(true);
    expect(isOriginAllowed(req({ origin: 'http://evil.example' }), 80)).toBe(false);
  });
});
