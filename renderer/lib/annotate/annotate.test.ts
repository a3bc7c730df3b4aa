import { describe, expect, it } from 'vitest';
import type { AnnotationEdit, EntityRecord, RelationRecord } from '../../../engine/api/contract.ts';
import { applyEdits, deleteEntityEdits, invertEdits } from './edits.ts';
import {
  PENDING_KEY,
  assignLanes,
  blockIndexOf,
  buildBlocks,
  buildMarks,
  segmentBlock,
} from './layout.ts';
import { TokenIndex } from './tokens.ts';

const ent = (key: string, start: number, end: number): EntityRecord => ({
  key,
  type: 'Disease',
  spans: [{ start, end }],
  text: '',
  origin: 'annotator',
  status: 'final',
});

describe('TokenIndex', () => {
  const t = new TokenIndex('G6PD-deficient  patients (n=12).');
  it('treats punctuation as its own token', () => {
    expect(t.snap(1, 3)).toEqual({ start: 0, end: 4 }); // G6PD
    expect(t.snap(3, 6)).toEqual({ start: 0, end: 14 }); // G6PD-deficient
    expect(t.snap(14, 16)).toBeNull(); // spaces only
    expect(t.snap(20, 17)).toEqual({ start: 16, end: 24 }); // backwards selection
  });
  it('steps span edges by one token and never empties a span', () => {
    expect(t.step({ start: 0, end: 4 }, 'end', 1)).toEqual({ start: 0, end: 5 });
    expect(t.step({ start: 0, end: 4 }, 'end', -1)).toEqual({ start: 0, end: 4 });
    expect(t.step({ start: 5, end: 14 }, 'start', -1)).toEqual({ start: 4, end: 14 });
    expect(t.step({ start: 0, end: 4 }, 'start', -1)).toEqual({ start: 0, end: 4 });
  });
  it('never cuts a character: emoji sequences, flags, skin tones and combining marks stay whole', () => {
    const text = 'Hx 👨‍👩‍👧 and 🇺🇸🇬🇧, ❤️ 👍🏽 ◌́ (e\u0301) 𝛼-syn';
    const ix = new TokenIndex(text);
    const tokens = [...ix.starts].map((s, i) => text.slice(s, ix.ends[i]));
    expect(tokens).toEqual(['Hx', '👨‍👩‍👧', 'and', '🇺🇸', '🇬🇧', ',', '❤️', '👍🏽', '◌́', '(', 'e\u0301', ')', '𝛼', '-', 'syn']);
    // A selection inside the family emoji (its middle person) takes the whole sequence.
    const family = text.indexOf('👩');
    expect(ix.snap(family, family + 2)).toEqual({ start: 3, end: 3 + '👨‍👩‍👧'.length });
    // Stepping from the first flag takes the whole second one.
    const us = text.indexOf('🇺🇸');
    expect(ix.step({ start: us, end: us + 4 }, 'end', 1)).toEqual({ start: us, end: us + 8 });
  });
  it('gives scripts written without spaces one token per character', () => {
    const text = '患者有肝癌病史。インスリン投与 and ตับ';
    const ix = new TokenIndex(text);
    const liver = text.indexOf('肝癌');
    expect(ix.snap(liver, liver + 2)).toEqual({ start: liver, end: liver + 2 }); // not the whole sentence
    expect(ix.snap(liver, liver + 1)).toEqual({ start: liver, end: liver + 1 });
    const and = text.indexOf('and');
    expect(ix.snap(and + 1, and + 2)).toEqual({ start: and, end: and + 3 });
  });
});

describe('layout', () => {
  it('splits text into blocks at newlines and long paragraphs at spaces', () => {
    const text = `Title\n${'word '.repeat(300)}\nEnd`;
    const blocks = buildBlocks(text, 700);
    expect(blocks[0]).toEqual({ start: 0, end: 6 });
    expect(blocks.every((b) => b.end - b.start <= 700)).toBe(true);
    expect(blocks.map((b) => text.slice(b.start, b.end)).join('')).toBe(text);
    expect(blockIndexOf(blocks, text.length - 1)).toBe(blocks.length - 1);
    expect(blockIndexOf(blocks, 3)).toBe(0);
  });

  it('cuts a long paragraph of sentences between sentences, not inside one', () => {
    // A transcribed note on one line (as mtsamples has them): each block starts a new line, so a
    // cut at any space read "He did six months of not" / "drinking alcohol" on two lines.
    const sentences = [
      'He has been overweight for ten years since the age of 33, at his highest he was 358 pounds.',
      'He did six months of not drinking alcohol and not taking in many calories.',
      'He has difficulty climbing stairs, difficulty with airline seats, tying shoes, used to public seating (sic.)',
      'She said "it does not appear to be working very well."',
      'Is he a diabetic, on medication?',
    ];
    const text = Array.from({ length: 12 }, (_, i) => sentences[i % sentences.length]).join('  ');
    const parts = buildBlocks(text, 700).map((b) => text.slice(b.start, b.end));
    expect(parts.join('')).toBe(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts.slice(0, -1)) expect(p).toMatch(/[.?]["')]?\s+$/);
    for (const p of parts.slice(1)) expect(p).toMatch(/^\S/);
    // Without a sentence end in reach, a space still does.
    const words = 'no full stop in this long line of words '.repeat(30);
    expect(buildBlocks(words, 700).slice(0, -1).every((b) => words[b.end - 1] === ' ')).toBe(true);
  });

  it('cuts a long paragraph without spaces after a CJK sentence mark, and never inside a character', () => {
    const cjk = '患者有肝癌病史，长期服用药物。'.repeat(60);
    const blocks = buildBlocks(cjk, 700);
    expect(blocks.map((b) => cjk.slice(b.start, b.end)).join('')).toBe(cjk);
    expect(blocks.slice(0, -1).every((b) => /[。，]$/.test(cjk.slice(b.start, b.end)))).toBe(true);
    for (const text of [`x${'𝛼'.repeat(400)}`, `x${'👍🏽'.repeat(200)}`, `x${'e\u0301'.repeat(400)}`]) {
      const parts = buildBlocks(text, 700).map((b) => text.slice(b.start, b.end));
      expect(parts.join('')).toBe(text);
      expect(parts.length).toBeGreaterThan(1);
      // Each piece starts on a whole character: not a low surrogate, skin tone or accent.
      expect(parts.slice(1).every((p) => /^[x𝛼e]|^👍/u.test(p))).toBe(true);
    }
  });

  it('gives nested and overlapping entities different lanes, disjoint ones the same', () => {
    const lanes = assignLanes(
      [ent('outer', 0, 20), ent('inner', 5, 10), ent('overlap', 15, 30), ent('later', 40, 45)].map(
        (e) => ({ key: e.key, spans: e.spans }),
      ),
    );
    expect(lanes.get('outer')).toBe(0);
    expect(lanes.get('inner')).toBe(1);
    expect(lanes.get('overlap')).toBe(1);
    expect(lanes.get('later')).toBe(0);
  });

  it('cuts a block into segments at every mark boundary', () => {
    const mark = (key: string, start: number, end: number, lane: number) => ({
      key,
      type: 'X',
      start,
      end,
      lane,
      isHead: true,
      isSuggestion: false,
    });
    const segs = segmentBlock({ start: 0, end: 30 }, [mark('a', 0, 20, 0), mark('b', 5, 10, 1)]);
    expect(segs.map((s) => [s.start, s.end, s.marks.map((m) => m.key).join('')])).toEqual([
      [0, 5, 'a'],
      [5, 10, 'ab'],
      [10, 20, 'a'],
      [20, 30, ''],
    ]);
    expect(segs[1]!.heads.map((m) => m.key)).toEqual(['b']);
  });

  it('outlines one pending span, or each mention of a relation in a lane of its own', () => {
    const ents = [ent('T1', 0, 7), ent('T2', 15, 21)];
    const one = buildMarks(ents, { start: 0, end: 7 });
    expect(one.filter((m) => m.key === PENDING_KEY).map((m) => [m.start, m.end])).toEqual([[0, 7]]);
    const pair = buildMarks(ents, [
      { start: 0, end: 7 },
      { start: 15, end: 21 },
    ]);
    const outlined = pair.filter((m) => m.key === PENDING_KEY);
    expect(outlined.map((m) => [m.start, m.end])).toEqual([
      [0, 7],
      [15, 21],
    ]);
    // Each outline shares its words with an entity, so each sits in a lane beside it.
    for (const o of outlined) {
      const under = pair.find((m) => m.key !== PENDING_KEY && m.start === o.start)!;
      expect(under.lane).not.toBe(o.lane);
    }
  });
});

describe('edits', () => {
  it('inverts any batch exactly, including cascaded relation deletes', () => {
    const entities = [ent('T1', 0, 4), ent('T2', 10, 14)];
    const relations: RelationRecord[] = [
      { key: 'R1', type: 'treats', arg1: 'T1', arg2: 'T2', origin: 'annotator', status: 'final' },
    ];
    const before = { entities, relations };
    const batch: AnnotationEdit[] = [
      { op: 'update-entity', key: 'T2', type: 'Chemical', status: 'accepted' },
      ...deleteEntityEdits(before, 'T1'),
      { op: 'add-entity', entity: ent('T3', 20, 24) },
    ];
    const after = applyEdits(before, batch);
    expect(after.entities.map((e) => e.key)).toEqual(['T2', 'T3']);
    expect(after.relations).toEqual([]);
    const restored = applyEdits(after, invertEdits(before, batch));
    expect(restored.relations).toEqual(relations);
    expect([...restored.entities].sort((a, b) => a.key.localeCompare(b.key))).toEqual(entities);
  });
});

describe('renderBlock', () => {
  it('escapes document text, keys and types, and refuses non-hex colours', async () => {
    const { renderBlock } = await import('./render.ts');
    const text = '<img src=x onerror=alert(1)> & "quoted"';
    const mark = {
      key: 'T"1',
      type: '<b>Type',
      start: 0,
      end: 4,
      lane: 0,
      isHead: true,
      isSuggestion: false,
    };
    const html = renderBlock(text, segmentBlock({ start: 0, end: text.length }, [mark]), {
      selected: 'T"1',
      source: null,
      target: null,
      colors: new Map([['<b>Type', 'red;background:url(x)']]),
    });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;img');
    expect(html).toContain('data-keys="T&quot;1"');
    expect(html).toContain('class="seg selected"');
    expect(html).not.toContain('url(x)');
    expect(html).toContain('#888888');
  });

  it('makes a line with stacked chips tall enough for its stack', async () => {
    const { renderBlock } = await import('./render.ts');
    const text = 'Parkinson disease and tremor';
    const mark = (key: string, start: number, end: number, lane: number) => ({ key, type: 'Disease', start, end, lane, isHead: true, isSuggestion: false });
    const st = { selected: null, source: null, target: null, colors: new Map() };
    const stacked = renderBlock(text, segmentBlock({ start: 0, end: text.length }, [mark('T1', 0, 17, 1), mark('T2', 0, 9, 0)]), st);
    expect(stacked.match(/line-height:\d+px/g)).toEqual(['line-height:74px']);
    const single = renderBlock(text, segmentBlock({ start: 0, end: text.length }, [mark('T3', 22, 28, 0)]), st);
    expect(single.match(/line-height:\d+px/g)).toEqual(['line-height:46px']);
    expect(renderBlock(text, segmentBlock({ start: 0, end: text.length }, []), st)).not.toContain('line-height');
    // A relation argument's line keeps room above its chips for the arc (2 × ARC_ROOM more).
    const related = renderBlock(text, segmentBlock({ start: 0, end: text.length }, [mark('T3', 22, 28, 0)]), { ...st, related: new Set(['T3']) });
    expect(related.match(/line-height:\d+px/g)).toEqual(['line-height:114px']);
    const unrelated = renderBlock(text, segmentBlock({ start: 0, end: text.length }, [mark('T3', 22, 28, 0)]), { ...st, related: new Set(['T9']) });
    expect(unrelated.match(/line-height:\d+px/g)).toEqual(['line-height:46px']);
  });
  it('stacks the chips of two short adjacent entities instead of overlapping them', async () => {
    const { renderBlock } = await import('./render.ts');
    const text = 'HD PD and later a tremor';
    const mark = (key: string, start: number, end: number) => ({ key, type: 'SpecificDisease', start, end, lane: 0, isHead: true, isSuggestion: false });
    const st = { selected: null, source: null, target: null, colors: new Map() };
    const html = renderBlock(text, segmentBlock({ start: 0, end: text.length }, [mark('T1', 0, 2), mark('T2', 3, 5), mark('T3', 18, 24)]), st);
    // T2's chip goes a row up (and its line grows for it); T3 is far enough for the first row.
    expect(html.match(/bottom:calc\(100% \+ \d+px\)/g)).toEqual(['bottom:calc(100% + 0px)', 'bottom:calc(100% + 14px)', 'bottom:calc(100% + 0px)']);
    expect(html.match(/line-height:\d+px/g)).toEqual(['line-height:46px', 'line-height:74px', 'line-height:46px']);
  });
  it('spells out each entity type as hidden text for screen readers only when asked (read-only views)', async () => {
    const { renderBlock } = await import('./render.ts');
    const text = 'BRCA1 and <tumour>';
    const mark = (key: string, type: string, start: number, end: number) => ({ key, type, start, end, lane: 0, isHead: true, isSuggestion: false });
    const marks = [mark('T1', 'Gene', 0, 5), mark('T2', '<Disease>', 10, 18)];
    const st = { selected: null, source: null, target: null, colors: new Map<string, string>() };
    const spoken = renderBlock(text, segmentBlock({ start: 0, end: text.length }, marks), { ...st, isSpoken: true });
    expect(spoken).toContain('<span class="visually-hidden">(Gene) </span>BRCA1</span>');
    expect(spoken).toContain('<span class="visually-hidden">(&lt;Disease&gt;) </span>&lt;tumour&gt;</span>');
    // The editor (selection offsets come from its text nodes) gets no extra text.
    expect(renderBlock(text, segmentBlock({ start: 0, end: text.length }, marks), st)).not.toContain('visually-hidden');
  });

  it('writes each chip in black or white, whichever meets WCAG AA on its type colour', async () => {
    const { renderBlock, chipTextColor } = await import('./render.ts');
    const lum = (hex: string): number => {
      const [r, g, b] = [1, 3, 5].map((i) => {
        const c = parseInt(hex.slice(i, i + 2), 16) / 255;
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const ratio = (a: string, b: string): number => {
      const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
      return (hi! + 0.05) / (lo! + 0.05);
    };
    const hex = (n: number): string => n.toString(16).padStart(2, '0');
    for (let r = 0; r < 256; r += 17)
      for (let g = 0; g < 256; g += 17)
        for (let b = 0; b < 256; b += 17) {
          const bg = `#${hex(r)}${hex(g)}${hex(b)}`;
          expect(ratio(bg, chipTextColor(bg)), bg).toBeGreaterThanOrEqual(4.5);
        }
    // The demo schema's green took white text at 4.36:1; dark colours keep white.
    const text = 'aspirin and heparin';
    const mark = (key: string, type: string, start: number, end: number) => ({ key, type, start, end, lane: 0, isHead: true, isSuggestion: false });
    const html = renderBlock(text, segmentBlock({ start: 0, end: text.length }, [mark('T1', 'Chemical', 0, 7), mark('T2', 'Gene', 12, 19)]), {
      selected: null,
      source: null,
      target: null,
      colors: new Map([['Chemical', '#2b8a3e'], ['Gene', '#1f3a93']]),
    });
    expect(html).toContain('background:#2b8a3e;color:#000000;');
    expect(html).toContain('background:#1f3a93;color:#ffffff;');
  });
});

describe('placeLabels', () => {
  it('moves a label up a row while it would overlap one already placed, and leaves others alone', async () => {
    const { placeLabels, labelWidth, LABEL_ROW } = await import('./arc-labels.ts');
    const w = labelWidth('treats');
    const ys = placeLabels([
      { x: 100, y: 50, width: w },
      { x: 110, y: 50, width: w }, // overlaps the first
      { x: 104, y: 48, width: w }, // overlaps both
      { x: 300, y: 50, width: w }, // far away
    ]);
    expect(ys[0]).toBe(50);
    expect(ys[3]).toBe(50);
    expect(new Set(ys.slice(0, 3)).size).toBe(3);
    for (const y of ys.slice(1, 3)) expect(y).toBeLessThanOrEqual(50 - LABEL_ROW + 2);
    // A label chip under an arc's apex pushes its label up too.
    expect(placeLabels([{ x: 100, y: 50, width: w }], [{ x: 95, y: 52, width: 40 }])[0]).toBe(50 - LABEL_ROW);
  });
});
