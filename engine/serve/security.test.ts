// The Host and Origin checks of browser mode on their own: which names they take for a port;
// and the page it serves, which lets no browser service read what is typed.
import { readFileSync, readdirSync } from 'node:fs';
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

describe('the page browser mode serves', () => {
  it('turns spell checking and translation off, so that no browser service is sent what is typed or shown', () => {
    // Chrome's enhanced spell check and Edge's Microsoft Editor send the text of fields to their
    // servers (a search for a patient's name, say); the desktop app has no spell checker at all.
    // Every field inherits the root element's setting (checked in Chromium on the built page).
    const html = readFileSync(new URL('../../renderer/index.html', import.meta.url), 'utf8');
    const root = /<html\b[^>]*>/i.exec(html)?.[0] ?? '';
    expect(root).toMatch(/\sspellcheck="false"/);
    // Nor does the browser's translator get the page (the documents shown) to send to its servers.
    expect(root).toMatch(/\stranslate="no"/);
    expect(html).toMatch(/<meta name="google" content="notranslate"/);
    // …unless a field turns spell checking back on, or a part of the page translation.
    const dir = new URL('../../renderer/', import.meta.url);
    const svelte = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.svelte') && !f.includes('node_modules'));
    expect(svelte.length).toBeGreaterThan(10);
    for (const f of svelte) expect(readFileSync(new URL(f, dir), 'utf8'), f).not.toMatch(/spellcheck=("true"|\{)|translate=("yes"|\{)/);
  });
});
