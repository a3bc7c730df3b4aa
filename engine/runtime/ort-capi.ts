// ONNX Runtime's C API, called through koffi (FFI) on the library onnxruntime-node ships, for
// the one case the binding handles badly: outputs written in place into caller buffers. The
// binding's session.run copies every output into a fresh ArrayBuffer, even outputs it was given
// preallocated, so a training step paid for a second copy of the whole training state (3 × 168 MB
// at Bioformer-8L size, ~0.2 s a step). Here every feed and every bound output is an OrtValue
// over the caller's own memory and nothing is copied. Only engine/runtime/session.ts imports this.
//
// OrtApi is a table of function pointers that ONNX Runtime only ever appends to, so the indices
// below hold for every release since the ones that introduced them (all ≤ 1.2); they were checked
// against onnxruntime_c_api.h and are exercised by ort-capi.test.ts.

import './telemetry-off.ts'; // before the library loads
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as Koffi from 'koffi';
import type { DType, HostTensor, TypedArray } from '../onnx/ir.ts';

type KoffiModule = typeof Koffi;
type Ptr = bigint | null;

const API_VERSION = 16; // ORT 1.16: every function used here exists from this version on

const ELEMENT_TYPE: Partial<Record<DType, number>> = { float32: 1, uint8: 2, int8: 3, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11 };
const DTYPE_OF = new Map(Object.entries(ELEMENT_TYPE).map(([k, v]) => [v, k as DType]));
const ARRAY_OF: Partial<Record<DType, { new (b: ArrayBuffer): TypedArray; BYTES_PER_ELEMENT: number }>> = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array, int16: Int16Array,
  int8: Int8Array, uint8: Uint8Array, bool: Uint8Array, float16: Uint16Array,
};

/** The API functions used, by index in OrtApi (0-based). */
const FUNCS = {
  GetErrorMessage: [2, 'const char *GetErrorMessage(void *status)'],
  CreateEnv: [3, 'void *CreateEnv(int level, const char *logid, _Out_ void **out)'],
  DisableTelemetryEvents: [6, 'void *DisableTelemetryEvents(void *env)'],
  CreateSessionFromArray: [8, 'void *CreateSessionFromArray(void *env, const void *data, size_t len, void *options, _Out_ void **out)'],
  Run: [9, 'void *Run(void *session, void *runOptions, const char **inputNames, void **inputs, size_t nIn, const char **outputNames, size_t nOut, _Inout_ void **outputs)'],
  CreateSessionOptions: [10, 'void *CreateSessionOptions(_Out_ void **out)'],
  SetSessionExecutionMode: [13, 'void *SetSessionExecutionMode(void *options, int mode)'],
  EnableMemPattern: [16, 'void *EnableMemPattern(void *options)'],
  DisableMemPattern: [17, 'void *DisableMemPattern(void *options)'],
  EnableCpuMemArena: [18, 'void *EnableCpuMemArena(void *options)'],
  DisableCpuMemArena: [19, 'void *DisableCpuMemArena(void *options)'],
  SetSessionLogSeverityLevel: [22, 'void *SetSessionLogSeverityLevel(void *options, int level)'],
  SetSessionGraphOptimizationLevel: [23, 'void *SetSessionGraphOptimizationLevel(void *options, int level)'],
  SetIntraOpNumThreads: [24, 'void *SetIntraOpNumThreads(void *options, int n)'],
  SetInterOpNumThreads: [25, 'void *SetInterOpNumThreads(void *options, int n)'],
  SessionGetInputCount: [30, 'void *SessionGetInputCount(void *session, _Out_ size_t *out)'],
  SessionGetOutputCount: [31, 'void *SessionGetOutputCount(void *session, _Out_ size_t *out)'],
  SessionGetInputName: [36, 'void *SessionGetInputName(void *session, size_t index, void *allocator, _Out_ void **out)'],
  SessionGetOutputName: [37, 'void *SessionGetOutputName(void *session, size_t index, void *allocator, _Out_ void **out)'],
  CreateTensorWithDataAsOrtValue: [49, 'void *CreateTensorWithDataAsOrtValue(void *info, void *data, size_t len, const int64_t *shape, size_t rank, int type, _Out_ void **out)'],
  GetTensorMutableData: [51, 'void *GetTensorMutableData(void *value, _Out_ void **out)'],
  GetTensorElementType: [60, 'void *GetTensorElementType(void *info, _Out_ int *out)'],
  GetDimensionsCount: [61, 'void *GetDimensionsCount(void *info, _Out_ size_t *out)'],
  GetDimensions: [62, 'void *GetDimensions(void *info, int64_t *dims, size_t n)'],
  GetTensorTypeAndShape: [65, 'void *GetTensorTypeAndShape(void *value, _Out_ void **out)'],
  CreateCpuMemoryInfo: [69, 'void *CreateCpuMemoryInfo(int allocatorType, int memType, _Out_ void **out)'],
  AllocatorFree: [76, 'void *AllocatorFree(void *allocator, void *p)'],
  GetAllocatorWithDefaultOptions: [78, 'void *GetAllocatorWithDefaultOptions(_Out_ void **out)'],
  ReleaseStatus: [93, 'void ReleaseStatus(void *p)'],
  ReleaseSession: [95, 'void ReleaseSession(void *p)'],
  ReleaseValue: [96, 'void ReleaseValue(void *p)'],
  ReleaseTensorTypeAndShapeInfo: [99, 'void ReleaseTensorTypeAndShapeInfo(void *p)'],
  ReleaseSessionOptions: [100, 'void ReleaseSessionOptions(void *p)'],
} as const;

type Api = { [K in keyof typeof FUNCS]: (...args: unknown[]) => unknown };

interface Loaded {
  koffi: KoffiModule;
  api: Api;
  env: Ptr;
  cpu: Ptr;
  allocator: Ptr;
  version: string;
}

let loaded: Loaded | undefined;
let loadError: Error | undefined;

/** The onnxruntime shared library onnxruntime-node loads on this platform. */
function libraryPath(): string {
  const require = createRequire(import.meta.url);
  // In a packaged app the binaries sit beside app.asar, in app.asar.unpacked (the dynamic
  // loader cannot read inside the archive; electron-builder.yml unpacks them).
  const pkg = path.dirname(require.resolve('onnxruntime-node/package.json')).replace(/app\.asar(?=[\\/])/, 'app.asar.unpacked');
  const dir = path.join(pkg, 'bin', 'napi-v6', process.platform, process.arch);
  const names = process.platform === 'win32' ? ['onnxruntime.dll'] : process.platform === 'darwin' ? ['libonnxruntime.1.dylib'] : ['libonnxruntime.so.1'];
  for (const n of names) {
    const p = path.join(dir, n);
    if (existsSync(p)) return p;
  }
  throw new Error(`onnxruntime-node ships no library for ${process.platform}-${process.arch} (looked in ${dir})`);
}

function load(): Loaded {
  if (loaded) return loaded;
  if (loadError) throw loadError;
  try {
    const require = createRequire(import.meta.url);
    const koffi = require('koffi') as KoffiModule;
    const lib = koffi.load(libraryPath());
    const base = lib.func('void *OrtGetApiBase()')() as bigint;
    const [getApi, getVersion] = koffi.decode(base, koffi.array('void *', 2)) as bigint[];
    const version = koffi.call(getVersion, koffi.proto('const char *OrtGetVersionString()')) as string;
    const table = koffi.call(getApi, koffi.proto('void *OrtGetApi(uint32_t version)'), API_VERSION) as Ptr;
    if (!table) throw new Error(`onnxruntime ${version} does not offer C API version ${API_VERSION}`);
    const slots = koffi.decode(table, koffi.array('void *', 101)) as bigint[];
    const api = {} as Api;
    for (const [name, [index, proto]] of Object.entries(FUNCS)) {
      const fn = koffi.decode(slots[index], koffi.proto(proto)) as (...args: unknown[]) => unknown;
      (api as Record<string, unknown>)[name] = fn;
    }
    const l: Loaded = { koffi, api, env: null, cpu: null, allocator: null, version };
    const env: Ptr[] = [null];
    check(l, api.CreateEnv(3, 'benchtop', env));
    // The process's one OrtEnv (the binding's too): no telemetry events (ETW on Windows; see telemetry-off.ts).
    check(l, api.DisableTelemetryEvents(env[0]));
    const cpu: Ptr[] = [null];
    check(l, api.CreateCpuMemoryInfo(0, 0, cpu)); // OrtDeviceAllocator, OrtMemTypeDefault
    const alloc: Ptr[] = [null];
    check(l, api.GetAllocatorWithDefaultOptions(alloc));
    l.env = env[0] ?? null;
    l.cpu = cpu[0] ?? null;
    l.allocator = alloc[0] ?? null;
    loaded = l;
    return l;
  } catch (e) {
    loadError = new Error(`cannot use onnxruntime's C API for in-place training steps: ${(e as Error).message}`);
    throw loadError;
  }
}

/** Throw the message of a non-null OrtStatus (and free it). */
function check(l: Pick<Loaded, 'api'>, status: unknown): void {
  if (status === null || status === undefined || status === 0n) return;
  const message = l.api.GetErrorMessage(status) as string;
  l.api.ReleaseStatus(status);
  throw new Error(message);
}

/** Whether the C API path can be used here (the reason when not). */
export function capiAvailable(): { ok: true; version: string } | { ok: false; reason: string } {
  try {
    return { ok: true, version: load().version };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

export interface CapiSessionOptions {
  threads: number;
  optimization: 'disabled' | 'basic' | 'extended' | 'all';
  memoryArena: boolean;
  memoryPattern: boolean;
}

const OPT_LEVEL = { disabled: 0, basic: 1, extended: 2, all: 99 } as const;

/** A CPU session whose runs read feeds from, and write bound outputs into, caller memory. */
export class CapiSession {
  #session: Ptr;

  private constructor(
    private readonly l: Loaded,
    session: Ptr,
    readonly inputNames: readonly string[],
    readonly outputNames: readonly string[],
  ) {
    this.#session = session;
  }

  static create(model: Uint8Array, options: CapiSessionOptions): CapiSession {
    const l = load();
    const { api } = l;
    const opts: Ptr[] = [null];
    check(l, api.CreateSessionOptions(opts));
    const o = opts[0];
    const session: Ptr[] = [null];
    try {
      check(l, api.SetIntraOpNumThreads(o, options.threads));
      check(l, api.SetInterOpNumThreads(o, 1));
      check(l, api.SetSessionExecutionMode(o, 0)); // sequential
      check(l, api.SetSessionGraphOptimizationLevel(o, OPT_LEVEL[options.optimization]));
      check(l, options.memoryArena ? api.EnableCpuMemArena(o) : api.DisableCpuMemArena(o));
      check(l, options.memoryPattern ? api.EnableMemPattern(o) : api.DisableMemPattern(o));
      check(l, api.SetSessionLogSeverityLevel(o, 3));
      check(l, api.CreateSessionFromArray(l.env, model, model.byteLength, o, session));
    } finally {
      api.ReleaseSessionOptions(o);
    }
    const names = (count: keyof Api, get: keyof Api): string[] => {
      const n: number[] = [0];
      check(l, api[count](session[0], n));
      const out: string[] = [];
      for (let i = 0; i < Number(n[0]); i++) {
        const p: Ptr[] = [null];
        check(l, api[get](session[0], i, l.allocator, p));
        out.push(l.koffi.decode(p[0], 'char', -1) as string);
        check(l, api.AllocatorFree(l.allocator, p[0]));
      }
      return out;
    };
    try {
      return new CapiSession(l, session[0] ?? null, names('SessionGetInputCount', 'SessionGetInputName'), names('SessionGetOutputCount', 'SessionGetOutputName'));
    } catch (e) {
      api.ReleaseSession(session[0]);
      throw e;
    }
  }

  /**
   * Run synchronously (blocks the thread: call it from a worker). Outputs present in `into` are
   * written straight into those tensors and returned as them; the others are copied out of ORT.
   */
  run(feeds: Record<string, HostTensor>, outputs: readonly string[], into: Record<string, HostTensor> = {}): Record<string, HostTensor> {
    if (!this.#session) throw new Error('session was released');
    const { api } = this.l;
    const created: Ptr[] = [];
    const wrap = (name: string, t: HostTensor): Ptr => {
      const type = ELEMENT_TYPE[t.dtype];
      if (type === undefined) throw new Error(`dtype ${t.dtype} of "${name}" cannot be fed to onnxruntime`);
      // Materialise the typed array's buffer off the V8 heap, so its address is stable until
      // the run returns (small typed arrays start on the heap, where a GC may move them).
      void t.data.buffer;
      const out: Ptr[] = [null];
      check(this.l, api.CreateTensorWithDataAsOrtValue(this.l.cpu, t.data, t.data.byteLength, BigInt64Array.from(t.dims, BigInt), t.dims.length, type, out));
      created.push(out[0] ?? null);
      return out[0] ?? null;
    };
    try {
      const inNames = Object.keys(feeds);
      const inputs = inNames.map((k) => wrap(k, feeds[k] as HostTensor));
      const outValues: Ptr[] = outputs.map((k) => (into[k] ? wrap(k, into[k]) : null));
      check(this.l, api.Run(this.#session, null, inNames, inputs, inNames.length, [...outputs], outputs.length, outValues));
      // Values ORT allocated for unbound outputs are ours to release, copied out or not.
      for (const [i, k] of outputs.entries()) if (!into[k]) created.push(outValues[i] ?? null);
      return Object.fromEntries(outputs.map((k, i) => [k, into[k] ?? this.#copyOut(k, outValues[i] ?? null)]));
    } finally {
      for (const v of created) if (v) api.ReleaseValue(v);
    }
  }

  #copyOut(name: string, value: Ptr): HostTensor {
    const { api, koffi } = this.l;
    const info: Ptr[] = [null];
    check(this.l, api.GetTensorTypeAndShape(value, info));
    try {
      const type: number[] = [0];
      check(this.l, api.GetTensorElementType(info[0], type));
      const dtype = DTYPE_OF.get(type[0] as number);
      const Ctor = dtype ? ARRAY_OF[dtype] : undefined;
      if (!dtype || !Ctor) throw new Error(`output "${name}" has an element type (${type[0]}) the engine does not read`);
      const rank: number[] = [0];
      check(this.l, api.GetDimensionsCount(info[0], rank));
      const dims = new BigInt64Array(Number(rank[0]));
      check(this.l, api.GetDimensions(info[0], dims, dims.length));
      const shape = [...dims].map(Number);
      const count = shape.reduce((a, b) => a * b, 1);
      const data = new Ctor(new ArrayBuffer(count * Ctor.BYTES_PER_ELEMENT));
      if (count > 0) {
        const p: Ptr[] = [null];
        check(this.l, api.GetTensorMutableData(value, p));
        new Uint8Array(data.buffer).set(koffi.decode(p[0], koffi.array('uint8_t', data.byteLength)) as Uint8Array);
      }
      return { dtype, dims: shape, data };
    } finally {
      api.ReleaseTensorTypeAndShapeInfo(info[0]);
    }
  }

  release(): void {
    if (this.#session) this.l.api.ReleaseSession(this.#session);
    this.#session = null;
  }
}
