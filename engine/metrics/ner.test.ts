// NER metrics: seqeval get_entities edge cases (lenient I- starts, type switches, IOB1, BIOES),
// the seqeval README example, strict/lenient span matching, error lists, the confusion matrix,
// a literal port of seqeval as a randomized oracle, and NCBI-disease test gold vs corruptions.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR, HAS_DATA } from '../formats/test-fixtures.ts';
import type { Span } from './ner.ts';
import { evaluateNer, evaluateNerTags, extractSpans, repairBio } from './ner.ts';

const sp = (type: string, start: number, end: number): Span => ({ type, start, end });
const short = (spans: Span[]): string[] => spans.map((s) => `${s.type}[${s.start},${s.end})`);

describe('extractSpans (seqeval default get_entities)', () => {
  it.each([
    ['I- after O starts an entity', ['O', 'I-A', 'I-A', 'O'], ['A[1,3)']],
    ['I- at sentence start', ['I-A', 'O'], ['A[0,1)']],
    ['type switch inside a chunk', ['B-A', 'I-B', 'I-B'], ['A[0,1)', 'B[1,3)']],
    ['trailing I- after O', ['B-A', 'O', 'I-A'], ['A[0,1)', 'A[2,3)']],
    ['entity running to the end', ['O', 'B-A', 'I-A'], ['A[1,3)']],
    ['consecutive B-', ['B-A', 'B-A', 'I-A', 'B-B'], ['A[0,1)', 'A[1,3)', 'B[3,4)']],
    ['bare B/I tags get type _', ['B', 'I', 'O', 'I'], ['_[0,2)', '_[3,4)']],
    ['types with dashes', ['B-Gene-or-protein', 'I-Gene-or-protein'], ['Gene-or-protein[0,2)']],
    ['empty', [], []],
  ])('%s', (_name, tags, want) => {
    expect(short(extractSpans(tags))).toEqual(want);
  });

  it('IOB1: I- runs, B- only between same-type neighbours', () => {
    const tags = ['I-PER', 'I-PER', 'B-PER', 'I-LOC', 'O', 'I-LOC'];
    expect(short(extractSpans(tags, 'IOB1'))).toEqual(['PER[0,2)', 'PER[2,3)', 'LOC[3,4)', 'LOC[5,6)']);
  });

  it('BIOES, including E/S transitions seqeval treats leniently', () => {
    const tags = ['S-A', 'B-A', 'I-A', 'E-A', 'O', 'E-A', 'I-A', 'E-A', 'E-A', 'S-B', 'I-B'];
    expect(short(extractSpans(tags, 'BIOES'))).toEqual(['A[0,1)', 'A[1,4)', 'A[5,6)', 'A[6,8)', 'A[8,9)', 'B[9,10)', 'B[10,11)']);
  });

  it('rejects tags outside the scheme', () => {
    expect(() => extractSpans(['O', 'E-A'])).toThrow(/"E-A" at 1 is not a valid IOB2 tag/);
    expect(() => extractSpans(['Disease'])).toThrow(RangeError);
    expect(() => extractSpans(['BX'], 'BIOES')).toThrow(RangeError);
  });
});

describe('repairBio', () => {
  it('turns I-X that does not continue X into B-X, leaving spans unchanged', () => {
    const tags = ['I-A', 'I-A', 'O', 'I-A', 'B-A', 'I-B', 'I-B', 'B-B', 'I-B', 'I'];
    const fixed = repairBio(tags);
    expect(fixed).toEqual(['B-A', 'I-A', 'O', 'B-A', 'B-A', 'B-B', 'I-B', 'B-B', 'I-B', 'B']);
    expect(extractSpans(fixed)).toEqual(extractSpans(tags));
  });
});

/** Literal port of seqeval 1.x (default mode): flatten with 'O' separators, set-based counting. */
function seqevalOracle(yTrue: string[][], yPred: string[][]): Record<string, [number, number, number]> {
  const entities = (seq: string[][]): Set<string> => {
    const flat = seq.flatMap((s) => [...s, 'O']);
    const chunks = new Set<string>();
    let [prevTag, prevType, begin] = ['O', '', 0];
    [...flat, 'O'].forEach((chunk, i) => {
      const tag = chunk.charAt(0);
      const rest = chunk.slice(1); // Python: chunk[1:].split('-', maxsplit=1)[-1] or '_'
      const type = (rest.includes('-') ? rest.slice(rest.indexOf('-') + 1) : rest) || '_';
      let end = prevTag === 'E' || prevTag === 'S';
      for (const [a, b] of ['BB', 'BS', 'BO', 'IB', 'IS', 'IO']) if (prevTag === a && tag === b) end = true;
      if (prevTag !== 'O' && prevTag !== '.' && prevType !== type) end = true;
      let start = tag === 'B' || tag === 'S';
      for (const [a, b] of ['EE', 'EI', 'SE', 'SI', 'OE', 'OI']) if (prevTag === a && tag === b) start = true;
      if (tag !== 'O' && tag !== '.' && prevType !== type) start = true;
      if (end) chunks.add(`${prevType}\t${begin}\t${i - 1}`);
      if (start) begin = i;
      [prevTag, prevType] = [tag, type];
    });
    return chunks;
  };
  const t = entities(yTrue);
  const p = entities(yPred);
  const out: Record<string, [number, number, number]> = {};
  for (const type of new Set([...t, ...p].map((c) => c.split('\t')[0] ?? ''))) {
    const tt = [...t].filter((c) => c.startsWith(`${type}\t`));
    const pp = [...p].filter((c) => c.startsWith(`${type}\t`));
    const tp = tt.filter((c) => p.has(c)).length;
    out[type] = [tp, pp.length - tp, tt.length - tp];
  }
  return out;
}

/**
 * Port of seqeval 1.x mode="strict", scheme=IOB2 (`Entities` / `Tokens.entities` with IOB2's
 * start/inside/end patterns: an entity is B-X then I-X of the same type; an I- that does not
 * continue one is no entity), and its classification_report numbers: per-type [tp, fp, fn],
 * micro F1 and macro F1 over the types found in either side; 0 where a ratio is 0/0.
 */
function seqevalStrictReport(
  yTrue: string[][],
  yPred: string[][],
): { perType: Record<string, [number, number, number]>; micro: number; macro: number } {
  const entities = (seq: string[][]): Set<string> => {
    const out = new Set<string>();
    seq.forEach((sent, s) => {
      const tok = (t: string): [string, string] => [t.charAt(0), t.slice(1).replace(/^-+|-+$/g, '') || '_'];
      const ext = [...sent, 'O'].map(tok);
      for (let i = 0; i < sent.length; i++) {
        const [prefix, type] = ext[i] ?? ['O', '_'];
        if (prefix !== 'B') continue;
        let end = i + 1;
        while (ext[end]?.[0] === 'I' && ext[end]?.[1] === type) end++;
        out.add(`${type}\t${s}\t${i}\t${end}`);
        i = end - 1;
      }
    });
    return out;
  };
  const t = entities(yTrue);
  const p = entities(yPred);
  const div = (a: number, b: number): number => (b === 0 ? 0 : a / b);
  const f1 = (tp: number, fp: number, fn: number): number => {
    const [pr, rc] = [div(tp, tp + fp), div(tp, tp + fn)];
    return div(2 * pr * rc, pr + rc);
  };
  const perType: Record<string, [number, number, number]> = {};
  for (const type of [...new Set([...t, ...p].map((c) => c.split('\t')[0] ?? ''))].sort()) {
    const tt = [...t].filter((c) => c.startsWith(`${type}\t`));
    const pp = [...p].filter((c) => c.startsWith(`${type}\t`));
    const tp = tt.filter((c) => p.has(c)).length;
    perType[type] = [tp, pp.length - tp, tt.length - tp];
  }
  const rows = Object.values(perType);
  const sum = (k: number): number => rows.reduce((a, r) => a + (r[k] ?? 0), 0);
  return {
    perType,
    micro: f1(sum(0), sum(1), sum(2)),
    macro: div(rows.reduce((a, [tp, fp, fn]) => a + f1(tp, fp, fn), 0), rows.length),
  };
}

describe('evaluateNerTags vs seqeval', () => {
  it('reproduces the seqeval README example', () => {
    const yTrue = [['O', 'O', 'O', 'B-MISC', 'I-MISC', 'I-MISC', 'O'], ['B-PER', 'I-PER', 'O']];
    const yPred = [['O', 'O', 'B-MISC', 'I-MISC', 'I-MISC', 'I-MISC', 'O'], ['B-PER', 'I-PER', 'O']];
    const { strict } = evaluateNerTags(yTrue, yPred);
    expect(strict.per_type.MISC).toMatchObject({ precision: 0, recall: 0, f1: 0, support: 1 });
    expect(strict.per_type.PER).toMatchObject({ precision: 1, recall: 1, f1: 1, support: 1 });
    expect(strict.micro).toMatchObject({ precision: 0.5, recall: 0.5, f1: 0.5, tp: 1, fp: 1, fn: 1 });
    expect(strict.macro).toMatchObject({ precision: 0.5, recall: 0.5, f1: 0.5 });
  });

  it('matches a literal seqeval port on random tag sequences (per-type tp/fp/fn)', () => {
    let seed = 12345;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const vocab = ['O', 'O', 'O', 'B-A', 'I-A', 'B-B', 'I-B', 'I-C'];
    for (let trial = 0; trial < 300; trial++) {
      const lens = Array.from({ length: 1 + rand(4) }, () => rand(9));
      const gen = (): string[][] => lens.map((n) => Array.from({ length: n }, () => vocab[rand(vocab.length)] ?? 'O'));
      const [yTrue, yPred] = [gen(), gen()];
      const oracle = seqevalOracle(yTrue, yPred);
      const { strict } = evaluateNerTags(yTrue, yPred);
      const ours = Object.fromEntries(Object.entries(strict.per_type).map(([k, r]) => [k, [r.tp, r.fp, r.fn]]));
      expect(ours).toEqual(oracle);
    }
  });

  it('equals seqeval mode="strict" (IOB2) on the tags the engine scores, micro and macro', () => {
    // Gold comes from spans and predictions go through repairBio, so both are valid IOB2, where
    // seqeval's strict and default modes agree. On raw tags the modes differ, and the engine
    // follows the default one (as conlleval): see the next test.
    const cases: [string, string[][], string[][]][] = [
      ['I- without B-', [['O', 'B-A', 'I-A', 'O']], [['O', 'I-A', 'I-A', 'O']]],
      ['B- then I- of another type', [['B-A', 'B-B', 'I-B']], [['B-A', 'I-B', 'I-B']]],
      ['entities at the sequence end', [['O', 'B-A', 'I-A'], ['B-B']], [['O', 'B-A', 'I-A'], ['I-B']]],
      ['type switch mid-entity', [['B-A', 'I-A', 'I-A']], [['B-A', 'I-A', 'I-B']]],
      ['empty gold', [['O', 'O']], [['B-A', 'I-A']]],
      ['empty prediction', [['B-A', 'O', 'B-B']], [['O', 'O', 'O']]],
      ['nothing anywhere (0/0 is reported as 0, as seqeval does)', [['O']], [['O']]],
    ];
    for (const [name, yTrue, yPred] of cases) {
      const t = yTrue.map(repairBio);
      const p = yPred.map(repairBio);
      const want = seqevalStrictReport(t, p);
      const { strict } = evaluateNerTags(t, p);
      const got = {
        perType: Object.fromEntries(Object.entries(strict.per_type).map(([k, r]) => [k, [r.tp, r.fp, r.fn]])),
        micro: strict.micro.f1,
        macro: strict.macro.f1,
      };
      expect(got, name).toEqual(want);
      // Raw tags scored by the engine give the same numbers as their repaired form.
      expect(evaluateNerTags(yTrue, yPred).strict, name).toEqual(strict);
    }
    let seed = 4242;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const vocab = ['O', 'O', 'B-A', 'I-A', 'B-B', 'I-B', 'I-C'];
    for (let trial = 0; trial < 300; trial++) {
      const lens = Array.from({ length: 1 + rand(4) }, () => rand(9));
      const gen = (): string[][] => lens.map((n) => repairBio(Array.from({ length: n }, () => vocab[rand(vocab.length)] ?? 'O')));
      const [t, p] = [gen(), gen()];
      const { strict } = evaluateNerTags(t, p);
      const want = seqevalStrictReport(t, p);
      expect(strict.micro.f1).toBeCloseTo(want.micro, 12);
      expect(strict.macro.f1).toBeCloseTo(want.macro, 12);
    }
  });

  it('on tags that are not valid IOB2, follows seqeval default mode, not mode="strict"', () => {
    // seqeval strict drops an I-A after O and the I-B after B-A; the default mode (and the
    // engine, which decodes model output the same way) counts them as entities.
    const t = [['O', 'I-A', 'I-A', 'O', 'B-A', 'I-B']];
    expect(seqevalStrictReport(t, t).perType).toEqual({ A: [1, 0, 0] });
    expect(seqevalOracle(t, t)).toEqual({ A: [2, 0, 0], B: [1, 0, 0] });
    const { strict } = evaluateNerTags(t, t);
    expect(strict.per_type.A).toMatchObject({ tp: 2, fp: 0, fn: 0 });
    expect(strict.per_type.B).toMatchObject({ tp: 1, fp: 0, fn: 0 });
  });

  it('checks sentence counts and lengths', () => {
    expect(() => evaluateNerTags([['O']], [])).toThrow(/1 sentences, pred 0/);
    expect(() => evaluateNerTags([['O', 'O']], [['O']])).toThrow(/sentence 0/);
  });
});

describe('evaluateNer', () => {
  const gold = [[sp('A', 0, 2), sp('B', 5, 7), sp('A', 10, 12)], [sp('B', 0, 3)]];
  const pred = [[sp('C', 20, 21), sp('A', 9, 12), sp('A', 5, 7), sp('A', 0, 2)], []];
  const ev = evaluateNer(gold, pred);

  it('strict: exact bounds and type', () => {
    expect(ev.strict.per_type.A).toEqual({ precision: 1 / 3, recall: 0.5, f1: 0.4, tp: 1, fp: 2, fn: 1, support: 2 });
    expect(ev.strict.per_type.B).toEqual({ precision: 0, recall: 0, f1: 0, tp: 0, fp: 0, fn: 2, support: 2 });
    expect(ev.strict.per_type.C).toEqual({ precision: 0, recall: 0, f1: 0, tp: 0, fp: 1, fn: 0, support: 0 });
    expect(ev.strict.micro).toEqual({ precision: 0.25, recall: 0.25, f1: 0.25, tp: 1, fp: 3, fn: 3 });
    expect(ev.strict.macro.precision).toBeCloseTo(1 / 9, 12);
    expect(ev.strict.macro.recall).toBeCloseTo(1 / 6, 12);
    expect(ev.strict.macro.f1).toBeCloseTo(0.4 / 3, 12);
  });

  it('lenient: same type and overlap', () => {
    expect(ev.lenient.per_type.A).toMatchObject({ tp: 2, fp: 1, fn: 0, recall: 1 });
    expect(ev.lenient.per_type.A?.f1).toBeCloseTo(0.8, 12);
    expect(ev.lenient.micro).toMatchObject({ precision: 0.5, recall: 0.5, f1: 0.5 });
  });

  it('lists strict errors with their kind', () => {
    const fmt = (e: { doc: number; span: Span; kind: string }): string => `${e.doc}:${short([e.span])[0]}:${e.kind}`;
    expect(ev.falsePositives.map(fmt)).toEqual(['0:A[5,7):type', '0:A[9,12):boundary', '0:C[20,21):spurious']);
    expect(ev.falseNegatives.map(fmt)).toEqual(['0:B[5,7):type', '0:A[10,12):boundary', '1:B[0,3):missed']);
  });

  it('builds a same-span confusion matrix with O row/column', () => {
    expect(ev.confusion.labels).toEqual(['A', 'B', 'C', 'O']);
    expect(ev.confusion.counts).toEqual([
      [1, 0, 0, 1],
      [1, 0, 0, 1],
      [0, 0, 0, 0],
      [1, 0, 1, 0],
    ]);
  });

  it('lenient matching is one-to-one, greedy by overlap, never stealing exact matches', () => {
    const one = evaluateNer([[sp('A', 0, 5)]], [[sp('A', 0, 2), sp('A', 3, 5)]]).lenient.micro;
    expect(one).toMatchObject({ tp: 1, fp: 1, fn: 0 });
    const best = evaluateNer([[sp('A', 0, 3), sp('A', 3, 6)]], [[sp('A', 2, 6)]]);
    expect(best.lenient.micro).toMatchObject({ tp: 1, fp: 0, fn: 1 });
    const exact = evaluateNer([[sp('A', 0, 10), sp('A', 0, 2)]], [[sp('A', 0, 2)]]);
    expect(exact.strict.micro.tp).toBe(1);
    expect(exact.lenient.micro.tp).toBe(1);
    const otherType = evaluateNer([[sp('A', 0, 5)]], [[sp('B', 0, 5)]]);
    expect(otherType.lenient.micro).toMatchObject({ tp: 0, fp: 1, fn: 1 });
  });

  it('counts are consistent and lenient tp ≥ strict tp on random spans', () => {
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const gen = (): Span[] => Array.from({ length: rand(6) }, () => {
      const start = rand(12);
      return sp(rand(2) ? 'A' : 'B', start, start + 1 + rand(4));
    });
    for (let t = 0; t < 300; t++) {
      const [g, p] = [[gen(), gen()], [gen(), gen()]];
      const ev2 = evaluateNer(g, p);
      for (const r of [ev2.strict.micro, ev2.lenient.micro]) {
        expect(r.tp + r.fn).toBe(g.flat().length);
        expect(r.tp + r.fp).toBe(p.flat().length);
      }
      expect(ev2.lenient.micro.tp).toBeGreaterThanOrEqual(ev2.strict.micro.tp);
      expect(ev2.confusion.counts.flat().reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(Math.max(g.flat().length, p.flat().length));
    }
  });

  it('types option restricts and pins rows; empty input gives zeros', () => {
    const r = evaluateNer([[sp('A', 0, 1), sp('X', 2, 3)]], [[sp('A', 0, 1)]], { types: ['A', 'Z'] }).strict;
    expect(Object.keys(r.per_type)).toEqual(['A', 'Z']);
    expect(r.macro).toMatchObject({ precision: 0.5, recall: 0.5, f1: 0.5 });
    expect(evaluateNer([], []).strict.micro).toEqual({ precision: 0, recall: 0, f1: 0, tp: 0, fp: 0, fn: 0 });
    expect(() => evaluateNer([[]], [])).toThrow(RangeError);
  });
});

describe.skipIf(!HAS_DATA)('NCBI-disease test split', () => {
  const content = readFileSync(join(DATA_DIR, 'ner/ncbi-disease/test.tsv'), 'utf8');
  const gold = content.split(/\n\n+/).filter((b) => b.trim() !== '')
    .map((b) => b.split('\n').filter((l) => l !== '').map((l) => l.split('\t')[1] ?? ''));
  const spans = gold.map((tags) => extractSpans(tags));
  const n = spans.flat().length;

  it('gold vs gold is perfect; entity count = B- tags + I- tags that start an entity', () => {
    const starts = gold.flat().filter((t, i, all) => t.startsWith('B-') || (t.startsWith('I-') && (i === 0 || all[i - 1] === 'O'))).length;
    expect(gold).toHaveLength(940);
    expect(n).toBe(starts);
    const ev = evaluateNerTags(gold, gold);
    for (const r of [ev.strict.micro, ev.strict.macro, ev.lenient.micro, ev.strict.per_type.Disease]) {
      expect(r).toMatchObject({ precision: 1, recall: 1, f1: 1 });
    }
    expect(ev.falsePositives).toEqual([]);
    expect(ev.confusion.counts).toEqual([[n, 0], [0, 0]]);
  });

  it('dropping every 3rd entity: precision 1, recall (n - floor(n/3)) / n', () => {
    let k = 0;
    const pred = gold.map((tags, s) => {
      const out = [...tags];
      for (const e of spans[s] ?? []) if (++k % 3 === 0) out.fill('O', e.start, e.end);
      return out;
    });
    const dropped = Math.floor(n / 3);
    const ev = evaluateNerTags(gold, pred);
    expect(ev.strict.micro).toMatchObject({ precision: 1, tp: n - dropped, fp: 0, fn: dropped });
    expect(ev.strict.micro.recall).toBe((n - dropped) / n);
    expect(ev.lenient.micro.recall).toBe((n - dropped) / n);
    expect(ev.falseNegatives).toHaveLength(dropped);
    expect(ev.falseNegatives.every((e) => e.kind === 'missed')).toBe(true);
  });

  it('trimming the last token of multi-token entities: strict misses them, lenient keeps them', () => {
    const multi = spans.flat().filter((e) => e.end - e.start > 1).length;
    const pred = gold.map((tags, s) => {
      const out = [...tags];
      for (const e of spans[s] ?? []) if (e.end - e.start > 1) out[e.end - 1] = 'O';
      return out;
    });
    const ev = evaluateNerTags(gold, pred);
    expect(ev.strict.micro).toMatchObject({ tp: n - multi, fp: multi, fn: multi });
    expect(ev.lenient.micro).toMatchObject({ tp: n, fp: 0, fn: 0, f1: 1 });
    expect(ev.falsePositives.every((e) => e.kind === 'boundary')).toBe(true);
  });
});
