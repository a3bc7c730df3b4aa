// The copy of a Ctrl-C that the launcher forwards (the terminal signals the engine too) is the
// same press, not the second one that quits at once; a later press still quits.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onStopSignals } from './stop-signals.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('onStopSignals', () => {
  it('takes two signals within a second as one stop, and quits at a later one with 128 + its number', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const exit = vi.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const ctx = { cancelled: false };
    const off = onStopSignals(ctx, 'stopping');
    try {
      process.emit('SIGINT', 'SIGINT');
      vi.setSystemTime(1_000_050);
      process.emit('SIGINT', 'SIGINT'); // forwarded by the launcher
      expect(ctx.cancelled).toBe(true);
      expect(exit).not.toHaveBeenCalled();
      vi.setSystemTime(1_002_000);
      process.emit('SIGTERM', 'SIGTERM');
      expect(exit).toHaveBeenCalledWith(143);
    } finally {
      off();
    }
    expect(process.listenerCount('SIGINT')).toBe(0);
  });
});
