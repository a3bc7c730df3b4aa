import type { Api } from '../engine/api/contract.ts';

declare global {
  interface Window {
    /** Present only inside the Electron app (exposed by the preload script). */
    api?: Api;
  }
}

export {};
