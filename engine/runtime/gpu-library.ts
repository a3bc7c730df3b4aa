// Whether the system library WebGPU needs to reach a GPU is installed. On Linux, Dawn (the WebGPU
// implementation inside onnxruntime's WebGPU backend) talks to the GPU through the Vulkan loader,
// libvulkan.so.1; without it Dawn prints a native warning on stderr and finds no adapter. Checking
// first gives the user the actionable reason and keeps `benchtop serve`'s terminal quiet.
import { createRequire } from 'node:module';

/** The Vulkan loader's name on Linux, where WebGPU needs it. */
export const VULKAN_LOADER = 'libvulkan.so.1';

/**
 * The missing library's name, or null when it loads, when this platform needs none, or when it
 * cannot be checked (koffi unavailable: WebGPU is then tried as usual and reports for itself).
 */
export function missingGpuLibrary(platform: NodeJS.Platform = process.platform, name = VULKAN_LOADER): string | null {
  if (platform !== 'linux') return null;
  let koffi: { load(path: string): { unload(): void } };
  try {
    koffi = createRequire(import.meta.url)('koffi') as typeof koffi;
  } catch {
    return null;
  }
  try {
    koffi.load(name).unload();
    return null;
  } catch {
    return name;
  }
}
