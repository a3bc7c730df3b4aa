// Settings (a small JSON file next to the workspace), app facts and the device list. The GPU
// probe loads onnxruntime lazily and runs a one-node graph on WebGPU once; its failure reason
// is what the Settings screen shows.
import { cpus, platform, arch } from 'node:os';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import type { AppInfo, DeviceInfo, Settings } from './dto.ts';
import { readSettingsFile, writeSettingsFile } from './settings-file.ts';

export { readSettingsFile, writeSettingsFile };

export function getSettings(ctx: ApiContext): Settings {
  const { threads, device, int8Inference, theme } = readSettingsFile(ctx.dataDir);
  return { threads, device, int8Inference, theme };
}

export function updateSettings(ctx: ApiContext, patch: Partial<Settings>): Settings {
  // As the Settings screen: more threads than cores would only make work wait for one another.
  const cores = cpus().length;
  if (patch.threads !== undefined && patch.threads > cores)
    throw new ApiError('invalid', `Threads must be a whole number from 1 to ${cores} (this computer has ${cores} cores).`);
  const next = { ...readSettingsFile(ctx.dataDir), ...patch };
  writeSettingsFile(ctx.dataDir, next);
  ctx.emit('workspace:changed', { projectId: null, what: 'settings' });
  const { threads, device, int8Inference, theme } = next;
  return { threads, device, int8Inference, theme };
}

export function getAppInfo(ctx: ApiContext): AppInfo {
  return {
    version: ctx.version,
    dataDir: ctx.dataDir,
    workspaceFile: ctx.ws.dbPath,
    platform: `${platform()} ${arch()}`,
    cpuCount: cpus().length,
    nodeVersion: process.versions.node,
  };
}

let deviceCache: Promise<DeviceInfo[]> | undefined;

/** CPU plus WebGPU with the reason it cannot be used (probed once per process). */
export function listDevices(): Promise<DeviceInfo[]> {
  deviceCache ??= probeDevices();
  return deviceCache;
}

async function probeDevices(): Promise<DeviceInfo[]> {
  const cpu: DeviceInfo = { id: 'cpu', label: `CPU (${cpus().length} cores)`, isAvailable: true };
  const gpu: DeviceInfo = { id: 'webgpu', label: 'GPU (WebGPU)', isAvailable: false };
  try {
    const { availableDevices, Session } = await import('../runtime/session.ts');
    if (!availableDevices().includes('webgpu')) {
      gpu.reason = `The bundled inference runtime has no GPU support on ${platform()} ${arch()}; training and prediction use the CPU.`;
      return [cpu, gpu];
    }
    const { missingGpuLibrary } = await import('../runtime/gpu-library.ts');
    const missing = missingGpuLibrary();
    if (missing !== null) {
      gpu.reason = `WebGPU reaches the GPU through Vulkan, and this computer has no Vulkan loader (${missing}): install your GPU driver's Vulkan support (on Debian and Ubuntu, the packages libvulkan1 and mesa-vulkan-drivers, or your NVIDIA driver's). Training and prediction use the CPU.`;
      return [cpu, gpu];
    }
    const { GraphBuilder } = await import('../onnx/builder.ts');
    const { serializeModel } = await import('../onnx/serialize.ts');
    const b = new GraphBuilder('probe');
    b.output(b.Relu(b.input('x', 'float32', [1])), 'y');
    const bytes = serializeModel({
      graph: b.build(),
      opsetVersion: 17,
      producerName: 'benchtop-probe',
      metadata: {},
    });
    const session = await Session.create(bytes, { device: 'webgpu', threads: 1 });
    await session.release();
    if (session.fallbackReason === undefined) return [cpu, { ...gpu, isAvailable: true }];
    gpu.reason = /adapter/i.test(session.fallbackReason)
      ? 'No graphics adapter is available to WebGPU on this computer: the GPU driver must support Vulkan, Metal or Direct3D 12 (virtual machines and remote sessions usually have none). Training and prediction use the CPU.'
      : `The GPU could not be started (${session.fallbackReason.slice(0, 160)}). Training and prediction use the CPU.`;
  } catch (err) {
    gpu.reason = `The GPU could not be checked (${err instanceof Error ? err.name : 'error'}); training and prediction use the CPU.`;
  }
  return [cpu, gpu];
}
