// The only importer of onnxruntime-node: creates inference/training sessions on the CPU EP
// (default) or WebGPU (on request, falling back to CPU with a stated reason) and converts
// between HostTensor and ORT tensors. It builds no graphs and knows nothing about models.
// Sessions that write outputs in place (training steps) run through ORT's C API instead of the
// binding, on the same library (./ort-capi.ts): the binding copies every output.

import './telemetry-off.ts'; // before onnxruntime-node loads
import * as ort from 'onnxruntime-node';
import type { DType, HostTensor, TypedArray } from '../onnx/ir.ts';
import { missingGpuLibrary } from './gpu-library.ts';
import { CapiSession, capiAvailable } from './ort-capi.ts';
import { MAX_THREADS } from './thread-limit.ts';

export type Device = 'cpu' | 'webgpu';

export { MAX_THREADS };

/** Throws unless `threads` is a whole number from 1 to MAX_THREADS (100000 took 16 GB before a step). */
export function checkThreads(threads: number, name = 'threads'): number {
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new Error(`--${name} must be a whole number from 1 to ${MAX_THREADS}, got ${threads}`);
  }
  return threads;
}

export interface SessionOptions {
  /** Intra-op threads (default 2: these machines and most laptops have few cores). */
  threads?: number;
  device?: Device;
  /** Graph optimisation level; 'all' is the default. */
  optimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /** ORT's CPU memory arena (default on). Off returns activation memory between runs. */
  memoryArena?: boolean;
  /**
   * ORT's memory pattern (default on): one block planned for all activations of a shape. For
   * training graphs it is off (see Trainer): the block is as large as the step's peak and,
   * without it, the arena reuses freed activation chunks within the step.
   */
  memoryPattern?: boolean;
  /**
   * Run through ORT's C API (CPU only), so that outputs bound with `run(…, into)` are written
   * into the caller's buffers and nothing is copied: the binding copies every output, which at
   * Bioformer-8L size costs ~0.2 s and ~0.5 GB of peak memory per training step. Where the C API
   * cannot be loaded the binding is used and `fallbackReason` says why.
   */
  inPlace?: boolean;
}

/** What a session runs on: onnxruntime-node's binding, or ORT's C API (in-place outputs). */
export type Backend = 'binding' | 'capi';

interface Runner {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, HostTensor>, outputs?: readonly string[], into?: Record<string, HostTensor>): Promise<Record<string, HostTensor>>;
  release(): Promise<void>;
}

const ORT_TYPE: Partial<Record<DType, ort.Tensor.Type>> = {
  float32: 'float32', float64: 'float64', float16: 'float16', int64: 'int64', int32: 'int32',
  int16: 'int16', int8: 'int8', uint8: 'uint8', bool: 'bool',
};

function toOrt(t: HostTensor): ort.Tensor {
  const type = ORT_TYPE[t.dtype];
  if (!type) throw new Error(`dtype ${t.dtype} cannot be fed to onnxruntime`);
  if (t.dtype === 'bool') return new ort.Tensor('bool', t.data as Uint8Array, t.dims);
  return new ort.Tensor(type, t.data as Float32Array, t.dims);
}

function fromOrt(t: ort.Tensor): HostTensor {
  const dtype = t.type as DType;
  return { dtype, dims: [...t.dims], data: t.data as TypedArray };
}

/** Backends onnxruntime-node can use on this machine (bundled ones only). */
export function availableDevices(): Device[] {
  return ort
    .listSupportedBackends()
    .filter((b) => b.bundled && (b.name === 'cpu' || b.name === 'webgpu'))
    .map((b) => b.name as Device);
}

/** onnxruntime-node's InferenceSession. */
class BindingRunner implements Runner {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];

  constructor(private readonly inner: ort.InferenceSession) {
    this.inputNames = inner.inputNames;
    this.outputNames = inner.outputNames;
  }

  async run(feeds: Record<string, HostTensor>, outputs?: readonly string[], into?: Record<string, HostTensor>): Promise<Record<string, HostTensor>> {
    const ortFeeds: Record<string, ort.Tensor> = {};
    for (const [k, v] of Object.entries(feeds)) ortFeeds[k] = toOrt(v);
    const out: Record<string, HostTensor> = {};
    if (into) {
      const fetches: Record<string, ort.Tensor | null> = {};
      for (const name of outputs ?? this.outputNames) {
        const target = into[name];
        fetches[name] = target ? toOrt(target) : null;
      }
      const res = await this.inner.run(ortFeeds, fetches);
      for (const [k, v] of Object.entries(res)) out[k] = into[k] ?? fromOrt(v);
      return out;
    }
    const res = outputs ? await this.inner.run(ortFeeds, outputs) : await this.inner.run(ortFeeds);
    for (const [k, v] of Object.entries(res)) out[k] = fromOrt(v);
    return out;
  }

  async release(): Promise<void> {
    await this.inner.release();
  }
}

/** ORT's C API session (./ort-capi.ts): bound outputs are written in place, nothing copied. */
class CapiRunner implements Runner {
  constructor(private readonly inner: CapiSession) {}

  get inputNames(): readonly string[] {
    return this.inner.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.inner.outputNames;
  }

  run(feeds: Record<string, HostTensor>, outputs?: readonly string[], into?: Record<string, HostTensor>): Promise<Record<string, HostTensor>> {
    // A throw inside the executor becomes a rejection, as with the binding's async run.
    return new Promise((resolve) => resolve(this.inner.run(feeds, outputs ?? this.inner.outputNames, into)));
  }

  release(): Promise<void> {
    this.inner.release();
    return Promise.resolve();
  }
}

export class Session {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];

  private constructor(
    private readonly inner: Runner,
    readonly device: Device,
    /** Why the requested device or backend was not used, when it was not. */
    readonly fallbackReason: string | undefined,
    readonly backend: Backend,
  ) {
    this.inputNames = inner.inputNames;
    this.outputNames = inner.outputNames;
  }

  /** Create a session from ONNX bytes; WebGPU falls back to CPU with a reason. */
  static async create(model: Uint8Array, options: SessionOptions = {}): Promise<Session> {
    const threads = checkThreads(options.threads ?? 2);
    // Loads the C API once, which turns the process's telemetry events off (ETW on Windows; see
    // telemetry-off.ts). Where it cannot load, the variable still stops the Linux/macOS telemetry.
    capiAvailable();
    const base: ort.InferenceSession.SessionOptions = {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: options.optimization ?? 'all',
      enableCpuMemArena: options.memoryArena ?? true,
      enableMemPattern: options.memoryPattern ?? true,
      logSeverityLevel: 3,
    };
    let gpuReason: string | undefined;
    if (options.device === 'webgpu') {
      const missing = missingGpuLibrary();
      if (missing === null) {
        try {
          const s = await ort.InferenceSession.create(model, { ...base, executionProviders: ['webgpu'] });
          return new Session(new BindingRunner(s), 'webgpu', undefined, 'binding');
        } catch (e) {
          gpuReason = `WebGPU unavailable (${(e as Error).message.split('\n')[0] ?? 'unknown error'}); using the CPU`;
        }
      } else gpuReason = `WebGPU unavailable (no Vulkan loader, ${missing}, is installed); using the CPU`;
    }
    let reason = gpuReason;
    if (options.inPlace) {
      const capi = capiAvailable();
      if (capi.ok) {
        const s = CapiSession.create(model, { threads, optimization: options.optimization ?? 'all', memoryArena: options.memoryArena ?? true, memoryPattern: options.memoryPattern ?? true });
        return new Session(new CapiRunner(s), 'cpu', reason, 'capi');
      }
      const binding = `${capi.reason}; using onnxruntime-node's binding, which copies every output (slower, more memory)`;
      reason = gpuReason === undefined ? binding : `${gpuReason}; ${binding}`;
    }
    const s = await ort.InferenceSession.create(model, { ...base, executionProviders: ['cpu'] });
    return new Session(new BindingRunner(s), 'cpu', reason, 'binding');
  }

  /**
   * Run the graph. NOTE: blocks the calling thread for the whole run; call it from a worker.
   * `into` binds outputs to caller-owned buffers that ORT writes directly; those outputs come
   * back as the caller's own tensors (with the binding backend, its copies of them are dropped).
   * NOTE: forcing a GC here to free those copies at once was tried and removed: a full GC costs
   * ~150 ms per step in a process that holds a dataset (see ARCHITECTURE.md, 2026-11-22).
   */
  run(feeds: Record<string, HostTensor>, outputs?: readonly string[], into?: Record<string, HostTensor>): Promise<Record<string, HostTensor>> {
    return this.inner.run(feeds, outputs, into);
  }

  async release(): Promise<void> {
    await this.inner.release();
  }
}
