// onnxruntime's own telemetry stays off: a process that runs models through the engine leaves no
// event queue or device id in the user's cache folder and no session files in the temp folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineProcessEnv } from './process-env.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'benchtop-telemetry-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs a model through Session (binding and C API) in a child with its own home, cache and temp folders. */
function runModels(env: NodeJS.ProcessEnv): { home: string; temp: string } {
  const home = mkdtempSync(path.join(tmp, 'home-'));
  const temp = path.join(home, 'tmp');
  mkdirSync(temp);
  const code = `const { GraphBuilder } = await import(${JSON.stringify(path.resolve('engine/onnx/builder.ts'))});
const { serializeModel } = await import(${JSON.stringify(path.resolve('engine/onnx/serialize.ts'))});
const { float32Tensor } = await import(${JSON.stringify(path.resolve('engine/onnx/ir.ts'))});
const { Session } = await import(${JSON.stringify(path.resolve('engine/runtime/session.ts'))});
const b = new GraphBuilder('t');
b.output(b.Relu(b.input('x', 'float32', [2])), 'y');
const model = serializeModel({ graph: b.build(), opsetVersion: b.opset, producerName: 't', metadata: {} });
for (const inPlace of [false, true]) {
  const s = await Session.create(model, { inPlace });
  await s.run({ x: float32Tensor([2], [-1, 2]) });
  await s.release();
}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...env, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), TMPDIR: temp },
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return { home, temp };
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe("onnxruntime's telemetry", () => {
  it('leaves no event queue, device id or session file behind, even when the user asked for telemetry', () => {
    const env = { ...process.env, ORT_DISABLE_TELEMETRY: '0' };
    const { home, temp } = runModels(env);
    expect(filesUnder(path.join(home, '.cache'))).toEqual([]);
    expect(filesUnder(temp).filter((f) => !f.startsWith('tsx-'))).toEqual([]);
  }, 60_000);

  it('is off in the environment every engine process starts with', () => {
    expect(engineProcessEnv({ ORT_DISABLE_TELEMETRY: '0' }).ORT_DISABLE_TELEMETRY).toBe('1');
  });
});
