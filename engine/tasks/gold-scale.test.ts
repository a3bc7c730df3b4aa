// The checks of relation gold before an evaluation (which annotated relations no candidate pair
// reaches, which entity pairs are left out as too far apart) on a long line of entities: they
// listed every pair of the line (the square of its entities) and searched all the entities for
// each candidate, so a 3,000-entity note took 10 s, and a cancel waited for all of it. They now
// count in n·log n, with the same results as the straightforward listing (checked here on random
// documents), and look at the cancel between documents, in `eval` and in `train` (its dev data).
//
// Work is measured by counting reads of the entities, not by the clock (CI runs under load); the
// cancel is timed against the checks' own duration, as evaluate-cancel.test.ts does.

import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../formats/random-documents.ts';
import type { Document, Entity, Relation } from '../formats/types.ts';
import { unreachedRelations } from '../metrics/gold-notes.ts';
import { CancelledError } from './batching.ts';
import type { TaskEvent } from './events.ts';
import { reGoldIssues } from './gold.ts';
import { evaluate } from './predict-task.ts';
import { bounds, documentCandidates, MAX_ENTITIES_BETWEEN, maskType, sentenceEntities } from './re-data.ts';
import { distantPairIssues, reExamples } from './re-task.ts';
import { entityListDocument, HAS_DATA, randomTaskModel, removeTempDirs, tempDir, VOCAB } from './test-helpers.ts';
import { train, type TrainArgs } from './train-task.ts';

afterAll(removeTempDirs);

const PAIRS: [string, string][] = [['CHEMICAL', 'DISEASE']];
const VIEW = { labels: ['false', 'CID'], negativeLabel: 'false', entityPairs: PAIRS };
const documents = (docs: Document[]) => ({ kind: 'documents' as const, documents: docs, issues: [], files: [] });

/** True when entities x and y are relation r's two (either order; by ids, or by concepts). */
function reaches(r: Relation, x: Entity, y: Entity): boolean {
  const is = (e: Entity, id: string): boolean => (r.byConcept ? (e.normIds ?? []).includes(id) : e.id === id);
  return (is(x, r.arg1) && is(y, r.arg2)) || (is(x, r.arg2) && is(y, r.arg1));
}

/** Every non-overlapping pair of allowed types in a sentence, listed one by one (the reference). */
function allPairs(doc: Document, pairs: readonly (readonly [string, string])[]): { x: Entity; y: Entity; far: boolean }[] {
  const allowed = new Set(pairs.map(([a, b]) => `${a}\t${b}`));
  const out: { x: Entity; y: Entity; far: boolean }[] = [];
  for (const { inside } of sentenceEntities(doc, doc.entities))
    inside.forEach((a, i) =>
      inside.forEach((b, j) => {
        if (j <= i || bounds(b)[0] < bounds(a)[1]) return;
        const [ta, tb] = [maskType(a.type), maskType(b.type)];
        const xy = allowed.has(`${ta}\t${tb}`) ? [a, b] : allowed.has(`${tb}\t${ta}`) ? [b, a] : undefined;
        if (xy) out.push({ x: xy[0] as Entity, y: xy[1] as Entity, far: j - i - 1 > MAX_ENTITIES_BETWEEN });
      }),
    );
  return out;
}

/** A document of one to three sentences, some of them long, with nested, multi-span and odd entities. */
function randomDocument(r: () => number, d: number): Document {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  let text = '';
  const entities: Entity[] = [];
  const sentences = 1 + Math.floor(r() * 3);
  for (let s = 0; s < sentences; s++) {
    const words = Math.floor(r() ** 2 * 200);
    for (let w = 0; w < words; w++) {
      const start = text.length;
      text += `${pick(['aspirin', 'asthma', 'BRCA1', 'x'])} `;
      if (r() < 0.6) {
        const wide = r() < 0.1; // reaches into the next word (nested or overlapping)
        const spans = r() < 0.05 ? [{ start, end: start + 2 }, { start: start + 3, end: start + 5 }] : [{ start, end: start + (wide ? 9 : r() < 0.02 ? 0 : 5) }];
        const normIds = r() < 0.7 ? Array.from({ length: 1 + Math.floor(r() * 2) }, () => pick(['C1', 'C2', 'C3', 'D1', 'D2', 'G1'])) : undefined;
        entities.push({ id: `T${entities.length}`, type: pick(['Chemical', 'Disease', 'Gene', 'gene product']), spans, text: '', ...(normIds && { normIds }) });
      }
    }
    text += '. ';
  }
  const relations: Relation[] = Array.from({ length: Math.floor(r() * 12) }, (_, k) =>
    r() < 0.5 && entities.length > 0
      ? { id: `R${k}`, type: 'CID', arg1: pick(entities).id, arg2: pick(entities).id }
      : { id: `R${k}`, type: 'CID', arg1: pick(['C1', 'C2', 'C3', 'D1']), arg2: pick(['D1', 'D2', 'G1', 'C1']), byConcept: true },
  );
  return { id: `doc${d}`, text, entities: entities.sort(() => r() - 0.5), relations };
}

describe('the checks of relation gold give what listing every pair gives', () => {
  it('on 300 random documents: candidates, left-out pairs, the relations they carry, and those no candidate reaches', () => {
    const r = seededRandom(7);
    for (let d = 0; d < 300; d++) {
      const doc = randomDocument(r, d);
      const pairs = [PAIRS, [['GENE', 'GENE'] as [string, string], ['GENE_PRODUCT', 'CHEMICAL'] as [string, string]]][d % 2] as [string, string][];
      const listed = allPairs(doc, pairs);
      const near = listed.filter((p) => !p.far);
      const far = listed.filter((p) => p.far);
      const cands = documentCandidates([doc], pairs, 'false', { withGold: false }).map((c) => c.pair!);
      expect(cands).toEqual(near.map((p) => ({ doc: 0, arg1: p.x.id, arg2: p.y.id })));
      const open = doc.relations.filter((rel) => !near.some((p) => reaches(rel, p.x, p.y)));
      expect(unreachedRelations([doc], cands)).toEqual({ unreached: open.length, total: doc.relations.length });
      const carried = new Set(open).size === open.length ? open.filter((rel) => far.some((p) => reaches(rel, p.x, p.y))).length : NaN;
      const [issue, ...rest] = distantPairIssues([doc], pairs, () => 'f', { gold: true });
      expect(rest).toEqual([]);
      const said = issue ? /^document doc\d+: (\d+) entity pairs? w.*?(?:, and (\d+) annotated relations? links? such a pair)?$/.exec(issue.message) : null;
      expect({ d, far: Number(said?.[1] ?? 0), carried: Number(said?.[2] ?? 0) }).toEqual({ d, far: far.length, carried });
    }
  });
});

/** `doc` with its entities counting each read of one of their fields into `reads` (over `budget`: an error). */
function counted(doc: Document, budget: number): { doc: Document; reads: () => number } {
  let reads = 0;
  const entities = doc.entities.map(
    (e) =>
      new Proxy(e, {
        get(target, key, receiver) {
          if (++reads > budget) throw new Error(`more than ${budget} reads of the entities`);
          return Reflect.get(target, key, receiver) as unknown;
        },
      }),
  );
  return { doc: { ...doc, entities }, reads: () => reads };
}

/** A 1-line list of `n` chemicals and diseases, concept ids on them, a near and a far relation. */
function longLine(n: number): Document {
  const doc = entityListDocument(n);
  doc.entities.forEach((e, i) => (e.normIds = [`C${i % 40}`]));
  doc.relations = [
    { id: 'R1', type: 'CID', arg1: 'T0', arg2: 'T1' },
    { id: 'R2', type: 'CID', arg1: 'T0', arg2: `T${n - 1}` },
    { id: 'R3', type: 'CID', arg1: 'C0', arg2: 'C1', byConcept: true },
  ];
  return doc;
}

describe('the checks of a 3,000-entity line', () => {
  // Reads of the entities by the checks, and by the candidate pairs made before them.
  const work = async (n: number): Promise<{ checks: number; candidates: number }> => {
    const { doc, reads } = counted(longLine(n), 2000 * n);
    const input = documents([doc]);
    const examples = reExamples(input, PAIRS, 'false');
    const candidates = reads();
    const issues = await reGoldIssues(input, examples, VIEW, 'list.txt');
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringMatching(/^1 of 3 annotated relations are not scored/),
      expect.stringMatching(/^document list: \d+ entity pairs were left out: .*, and 1 annotated relation links such a pair$/),
    ]);
    return { checks: reads() - candidates, candidates };
  };

  it('grow with the entities, not with their square (two million left-out pairs)', async () => {
    const [small, large] = [await work(1000), await work(3000)];
    // Three times the entities: about three times the reads (n·log n), not nine (n²).
    expect(large.checks / small.checks).toBeLessThan(4);
    expect(large.candidates / small.candidates).toBeLessThan(4);
    expect(large.checks).toBeLessThan(1000 * 3000);
  }, 60_000);
});

describe('a cancel during the checks', () => {
  // 60 notes of 300 listed entities: the checks take a while on any machine.
  const docs = Array.from({ length: 60 }, (_, i) => entityListDocument(300, `list-${i}`, [{ id: 'R1', type: 'CID', arg1: 'T0', arg2: 'T299' }]));
  const input = documents(docs);
  const examples = reExamples(input, PAIRS, 'false');

  it('ends them promptly, as a CancelledError', async () => {
    const check = (isCancelled: () => boolean): Promise<unknown[]> => reGoldIssues(input, examples, VIEW, 'lists', { isCancelled });
    expect(await check(() => false)).toHaveLength(61); // once first, so that the timed run is not the slow cold one
    const t0 = performance.now();
    await check(() => false);
    const whole = performance.now() - t0;
    let cancelled = false;
    let at = 0;
    setTimeout(() => {
      cancelled = true;
      at = performance.now();
    }, whole / 4);
    await expect(check(() => cancelled)).rejects.toBeInstanceOf(CancelledError);
    expect(at).toBeGreaterThan(0);
    const after = performance.now() - at;
    expect(after, `ended ${Math.round(after)} ms after the cancel; the checks take ${Math.round(whole)} ms`).toBeLessThan(whole / 2);
  }, 60_000);

  it.skipIf(!HAS_DATA)('ends an evaluation before its warnings are given', async () => {
    const model = randomTaskModel(tempDir('gold-scale'), { task: 're', maxLength: 64, negativeLabel: 'false', entityPairs: PAIRS }, ['false', 'CID']);
    const events: TaskEvent[] = [];
    let looks = 0;
    // Cancelled from the second look on: the checks look before each document.
    const ctx = { emit: (e: TaskEvent) => void events.push(e), isCancelled: () => ++looks > 1 };
    await expect(evaluate({ task: 're', model, documents: docs.slice(0, 3) }, ctx)).rejects.toBeInstanceOf(CancelledError);
    expect(looks).toBe(2);
    expect(events.filter((e) => e.type === 'issue')).toEqual([]);
  }, 60_000);

  it.skipIf(!HAS_DATA)('ends a training run before the warnings on its dev documents', async () => {
    const out = path.join(tempDir('gold-scale-train'), 'model');
    const near = (id: string, n: number): Document => entityListDocument(n, id, [{ id: 'R1', type: 'CID', arg1: 'T0', arg2: 'T1' }, { id: 'R2', type: 'CID', arg1: 'T0', arg2: `T${n - 1}` }]);
    const events: TaskEvent[] = [];
    let looks = 0;
    const ctx = { emit: (e: TaskEvent) => void events.push(e), isCancelled: () => ++looks > 1 };
    const args: TrainArgs = { task: 're', out, trainDocuments: [near('train', 20)], devDocuments: [near('dev-1', 300), near('dev-2', 300)], preset: 'small-2L-128', vocab: VOCAB, maxLength: 64 };
    expect(await train(args, ctx)).toEqual({ status: 'cancelled', out });
    expect(looks).toBe(2);
    expect(events.flatMap((e) => (e.type === 'issue' ? [e.issue.file] : []))).not.toContain('dev documents');
  }, 60_000);
});
