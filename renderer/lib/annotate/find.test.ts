// Finding words in a document: case-blind, any white space between words, regex characters
// literal, and stepping forwards and backwards round the ends.
import { describe, expect, it } from 'vitest';
import { findAll, nextMatch } from './find.ts';

const TEXT = 'The APC gene.\n\nLoss of APC leads to colon\ncarcinoma ( apc ) and 1+1 [ 2 ] .';

describe('findAll', () => {
  it('finds every occurrence, case-blind, with its offsets', () => {
    const found = findAll(TEXT, 'apc');
    expect(found.map((m) => TEXT.slice(m.start, m.end))).toEqual(['APC', 'APC', 'apc']);
    expect(found[0]).toEqual({ start: 4, end: 7 });
  });
  it('matches a space in the query with any white space, line breaks included', () => {
    const [m] = findAll(TEXT, 'colon  carcinoma');
    expect(TEXT.slice(m!.start, m!.end)).toBe('colon\ncarcinoma');
  });
  it('takes regular-expression characters literally and finds nothing for a blank query', () => {
    expect(findAll(TEXT, '1+1').map((m) => TEXT.slice(m.start, m.end))).toEqual(['1+1']);
    expect(findAll(TEXT, '[ 2 ]')).toHaveLength(1);
    expect(findAll(TEXT, '( apc )')).toHaveLength(1);
    expect(findAll(TEXT, '.*')).toEqual([]);
    expect(findAll(TEXT, '  ')).toEqual([]);
  });
});

describe('nextMatch', () => {
  const found = findAll(TEXT, 'apc'); // starts 4, 23, 54
  it('steps forwards from an offset and goes round at the end', () => {
    expect(nextMatch(found, 0, 1)).toBe(0);
    expect(nextMatch(found, 5, 1)).toBe(1);
    expect(nextMatch(found, 23, 1)).toBe(1);
    expect(nextMatch(found, 56, 1)).toBe(0);
  });
  it('steps backwards and goes round at the start', () => {
    expect(nextMatch(found, 23, -1)).toBe(0);
    expect(nextMatch(found, 60, -1)).toBe(2);
    expect(nextMatch(found, 4, -1)).toBe(2);
  });
  it('says -1 when there is nothing to go to', () => {
    expect(nextMatch([], 0, 1)).toBe(-1);
    expect(nextMatch([], 0, -1)).toBe(-1);
  });
});

describe('findAll, blind to accents as the Documents search is', () => {
  const NOTE = 'Patient: José MÜLLER. Naïve T-cells; Mu\u0308ller (decomposed); café-au-lait 🩺 ❤\uFE0F.';
  const quoted = (q: string): string[] => findAll(NOTE, q).map((m) => NOTE.slice(m.start, m.end));
  it('finds accented words typed without their accents, and with them', () => {
    expect(quoted('muller')).toEqual(['MÜLLER', 'Mu\u0308ller']);
    expect(quoted('Müller')).toEqual(['MÜLLER', 'Mu\u0308ller']);
    expect(quoted('naive t-cells')).toEqual(['Naïve T-cells']);
    expect(quoted('jose')).toEqual(['José']);
    expect(quoted('CAFE-AU')).toEqual(['café-au']);
  });
  it('gives offsets in the text as it is: an accent written apart and an emoji stay whole', () => {
    const at = NOTE.indexOf('Mu\u0308ller');
    expect(findAll(NOTE, 'mu')[1]).toEqual({ start: at, end: at + 3 });
    expect(quoted('🩺')).toEqual(['🩺']);
    expect(quoted('❤')).toEqual(['❤\uFE0F']);
  });
});
