// A run of a model over a Benchtop JSONL export writes the predictions without the input's review
// state: its "benchtop" status and suggestion ids were the project's, and read with the
// predictions they would mark them reviewed, or some of them as suggestions by id.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { predict } from './predict-task.ts';
import { randomTaskModel, removeTempDirs, tempDir } from './test-helpers.ts';

afterAll(removeTempDirs);

describe('predict over a Benchtop JSONL export', () => {
  it('keeps the input metadata but not its review state', async () => {
    const dir = tempDir('predict-review');
    const model = randomTaskModel(path.join(dir, 'ner'), { task: 'ner', maxLength: 32 }, ['O', 'B-Chemical', 'I-Chemical']);
    const input = path.join(dir, 'export.jsonl');
    const record = {
      id: 'n1',
      text: 'Aspirin caused headache.',
      entities: [{ id: 'T1', type: 'Chemical', start: 0, end: 7 }],
      relations: [],
      metadata: { site: 'A' },
      benchtop: { status: 'reviewed', suggestions: { entities: [{ id: 'T1', by: 'ner-v1' }], relations: [] } },
    };
    writeFileSync(input, `${JSON.stringify(record)}\n`);
    const out = path.join(dir, 'out.jsonl');
    await predict({ model, input, out, format: 'jsonl', batchSize: 4 });
    const written = JSON.parse(readFileSync(out, 'utf8').trim()) as Record<string, unknown>;
    expect(written.metadata).toEqual({ site: 'A' });
    expect(written).not.toHaveProperty('benchtop');
  }, 30_000);
});
