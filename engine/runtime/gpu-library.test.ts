// The pre-check for the library WebGPU needs (gpu-library.ts), on this machine's real loader.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VULKAN_LOADER, missingGpuLibrary } from './gpu-library.ts';

/** The dynamic loader's own cache says whether the Vulkan loader is installed. */
const LDCONFIG = '/sbin/ldconfig';
const ldCache = existsSync(LDCONFIG) ? execFileSync(LDCONFIG, ['-p'], { encoding: 'utf8' }) : null;

describe('the GPU library check', () => {
  it('names a library the dynamic loader cannot find, and passes one it can', () => {
    expect(missingGpuLibrary('linux', 'libbenchtop-no-such-library.so.7')).toBe('libbenchtop-no-such-library.so.7');
    expect(missingGpuLibrary('linux', 'libc.so.6')).toBeNull();
  });

  it.skipIf(ldCache === null)('agrees with the dynamic loader about the Vulkan loader', () => {
    const installed = ldCache?.includes(`${VULKAN_LOADER} `) === true;
    expect(missingGpuLibrary('linux')).toBe(installed ? null : VULKAN_LOADER);
  });

  it('needs nothing on platforms where WebGPU uses Metal or Direct3D', () => {
    expect(missingGpuLibrary('darwin', 'libbenchtop-no-such-library.so.7')).toBeNull();
    expect(missingGpuLibrary('win32', 'libbenchtop-no-such-library.so.7')).toBeNull();
  });
});
