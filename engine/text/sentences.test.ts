// Sentence splitter: expected splits on realistic biomedical/clinical text, abbreviation guards,
// and span invariants on real abstracts (first 200 lines per file) and MTSamples notes.
// Data comes from the shared folder (BENCHTOP_SHARED, default /work/shared) and is required.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { splitSentences, type SentenceSpan } from './sentences.ts';

const SHARED = process.env['BENCHTOP_SHARED'] ?? '/work/shared';

const sentences = (t: string): string[] => splitSentences(t).map((s) => t.slice(s.start, s.end));

/** Abbreviations a sentence must never end with (unless a list item follows a dosing one). */
const RE_ABBREV_END =
  /(?:^|[\s(,;:/])(?:e\.g|i\.e|et al|Figs?|Dr|Mr|Mrs|Ms|vs|approx|No|no|St|U\.S|Jan|Feb|Dec)\.$/;
const RE_DOSING_END = /(?:^|[\s(,;:/])(?:q\.i\.d|b\.i\.d|t\.i\.d|p\.r\.n|p\.o|q\.d|mg)\.$/;

/** Span invariant violations (empty when spans are ordered, trimmed, covering and abbreviation-safe). */
function invariantProblems(text: string, spans: SentenceSpan[]): string[] {
  const bad: string[] = [];
  let prevEnd = 0;
  const covered = new Uint8Array(text.length);
  for (const [k, s] of spans.entries()) {
    const body = text.slice(s.start, s.end);
    const at = `span ${k} ${JSON.stringify(body.slice(-40))}`;
    if (s.start < prevEnd || s.end <= s.start) bad.push(`${at}: out of order or empty`);
    if (/\s/.test(text.charAt(s.start)) || /\s/.test(text.charAt(s.end - 1)))
      bad.push(`${at}: not trimmed`);
    // A sentence ends at the text end, before whitespace or after a flattened-break comma, so
    // never inside "3.5" or "U.S.".
    if (!(
      s.end === text.length ||
      /\s/.test(text.charAt(s.end)) ||
      text.charAt(s.end - 1) === ','
    )) {
      bad.push(`${at}: ends inside a word`);
    }
    const next = spans[k + 1];
    if (next !== undefined) {
      if (RE_ABBREV_END.test(body.replace(/,$/, ''))) bad.push(`${at}: ends with an abbreviation`);
      if (RE_DOSING_END.test(body) && !/^\d{1,2}[.)]\s/.test(text.slice(next.start)))
        bad.push(`${at}: dosing split`);
    }
    covered.fill(1, s.start, s.end);
    prevEnd = s.end;
  }
  for (let i = 0; i < text.length; i++) {
    if (!covered[i] && !/\s/.test(text.charAt(i)))
      bad.push(`char ${i} ${JSON.stringify(text.charAt(i))} not covered`);
  }
  return bad;
}

function checkInvariants(text: string, spans: SentenceSpan[]): void {
  expect(invariantProblems(text, spans)).toEqual([]);
}

describe('splitSentences', () => {
  it('splits abstracts on sentence-final punctuation before capitals, digits and quotes', () => {
    const t =
      'Naloxone reverses the antihypertensive effect of clonidine. In rats, the decrease in blood pressure ' +
      'was reversed by naloxone (0.2 to 2 mg/kg). 15 of 20 animals responded! Was the effect central? "Yes," ' +
      'the authors argue.';
    expect(sentences(t)).toEqual([
      'Naloxone reverses the antihypertensive effect of clonidine.',
      'In rats, the decrease in blood pressure was reversed by naloxone (0.2 to 2 mg/kg).',
      '15 of 20 animals responded!',
      'Was the effect central?',
      '"Yes," the authors argue.',
    ]);
  });

  it('does not split after abbreviations, initials and decimals', () => {
    const t =
      'Cytokines, e.g. IL-6, i.e. Interleukin 6, were measured as described by Smith et al. In addition ' +
      'Figs. 2 and 3 (cf. Fig. 4) show approx. 3.5 mg. Results vs. Placebo were reported by Dr. Jones, Mr. ' +
      'Brown, Mrs. Green and Ms. White of St. Mary hospital (U.S. Army) in Jan. 2020 and Dec. 2021. ' +
      'Specimen No. 5 and no. 7 were lost. J. Smith and A. B. Jones cultured E. coli O157.';
    expect(sentences(t)).toEqual([
      'Cytokines, e.g. IL-6, i.e. Interleukin 6, were measured as described by Smith et al. In addition ' +
        'Figs. 2 and 3 (cf. Fig. 4) show approx. 3.5 mg. Results vs. Placebo were reported by Dr. Jones, Mr. ' +
        'Brown, Mrs. Green and Ms. White of St. Mary hospital (U.S. Army) in Jan. 2020 and Dec. 2021.',
      'Specimen No. 5 and no. 7 were lost.',
      'J. Smith and A. B. Jones cultured E. coli O157.',
    ]);
  });

  it('keeps clinical dosing abbreviations inside the sentence', () => {
    const t =
      'Start metoprolol 25 mg p.o. b.i.d. Continue insulin t.i.d. With meals. Tylenol q.d. PRN pain. Ok.';
    expect(sentences(t)).toEqual([
      'Start metoprolol 25 mg p.o. b.i.d. Continue insulin t.i.d. With meals.',
      'Tylenol q.d. PRN pain.',
      'Ok.',
    ]);
  });

  it('handles numbered lists, headers and blank lines in clinical notes', () => {
    const t =
      'HISTORY OF PRESENT ILLNESS:\nThe patient is a 45-year-old male with\nchest pain. He denies fever.\n\n' +
      'MEDICATIONS:\n1. Aspirin 81 mg daily. 2. Lisinopril 10 mg b.i.d. 3. Metformin 500 mg q.d.\n' +
      'PHYSICAL EXAMINATION\nVitals stable.\n- Lungs clear\n- Heart regular';
    expect(sentences(t)).toEqual([
      'HISTORY OF PRESENT ILLNESS:',
      'The patient is a 45-year-old male with\nchest pain.',
      'He denies fever.',
      'MEDICATIONS:',
      '1. Aspirin 81 mg daily.',
      '2. Lisinopril 10 mg b.i.d.',
      '3. Metformin 500 mg q.d.',
      'PHYSICAL EXAMINATION',
      'Vitals stable.',
      '- Lungs clear',
      '- Heart regular',
    ]);
  });

  it('lets lettered items end sentences and keeps inline header/list markers', () => {
    expect(sentences('Levels of vitamin D. Patients with hepatitis B. Treated by J. Doe.')).toEqual(
      ['Levels of vitamin D.', 'Patients with hepatitis B.', 'Treated by J. Doe.'],
    );
  });

  it('does not end a sentence inside brackets that close later on the same line', () => {
    // NCBI-disease abstracts: the split cut the entity "Glucose-6-phosphate dehydrogenase (G6PD;
    // EC 1. 1. 1. 49) deficiency" in two, and 158 of 5,880 splits fell inside brackets.
    expect(
      sentences('Glucose-6-phosphate dehydrogenase (G6PD; EC 1. 1. 1. 49) deficiency is common. It is X-linked.'),
    ).toEqual([
      'Glucose-6-phosphate dehydrogenase (G6PD; EC 1. 1. 1. 49) deficiency is common.',
      'It is X-linked.',
    ]);
    expect(sentences('Sixteen subjects (0. 5 percent) were homozygous (P = 0. 03). Ten were not.')).toHaveLength(2);
    // Nested brackets and a comma-flattened break inside a citation.
    expect(sentences('In a model of LID [Neurobiol. Dis., 17 (2004), 219] it failed. Next.')).toHaveLength(2);
    // A bracket that does not close on the line does not hold the split back.
    expect(sentences('Values (see the text. Then more (here). End.')).toEqual([
      'Values (see the text.',
      'Then more (here).',
      'End.',
    ]);
  });

  it("splits MTSamples' comma-flattened line breaks, but not after abbreviations", () => {
    expect(
      sentences(
        'ASSESSMENT:,  Allergic rhinitis.,PLAN:,1.  She will try Zyrtec.,2.  Samples given.',
      ),
    ).toEqual([
      'ASSESSMENT:,',
      'Allergic rhinitis.,',
      'PLAN:,',
      '1.  She will try Zyrtec.,',
      '2.  Samples given.',
    ]);
    expect(sentences('MEDICATIONS: , Her only medication is Allegra.,ALLERGIES: , None.')).toEqual([
      'MEDICATIONS: ,',
      'Her only medication is Allegra.,',
      'ALLERGIES: ,',
      'None.',
    ]);
    expect(sentences('Antihistamines, e.g., Zyrtec were tried.')).toHaveLength(1);
  });

  it('handles empty, whitespace-only, CRLF and unterminated text', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences(' \n\t ')).toEqual([]);
    expect(sentences('  First line.\r\n\r\nSecond para without period  ')).toEqual([
      'First line.',
      'Second para without period',
    ]);
    expect(splitSentences('  Done.  ')).toEqual([{ start: 2, end: 7 }]);
  });

  it('keeps invariants on the first 200 lines of every biomedical text file', () => {
    const dir = join(SHARED, 'data', 'text', 'biomed');
    const files = readdirSync(dir).filter((f) => f.endsWith('.txt'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8').split('\n').slice(0, 200).join('\n');
      const spans = splitSentences(text);
      checkInvariants(text, spans);
      const mean = text.replace(/\s+/g, ' ').length / spans.length;
      expect(mean).toBeGreaterThan(60);
      expect(mean).toBeLessThan(300);
    }
  });

  it('keeps invariants on MTSamples clinical notes', () => {
    const csv = readFileSync(
      join(SHARED, 'data', 'documents', 'mtsamples', 'mtsamples_401rows.csv'),
      'utf8',
    );
    const rows = parse(csv, { relax_column_count: true, relax_quotes: true });
    const notes = rows
      .map((r) => r[4] ?? '')
      .filter((n) => n.length > 200)
      .slice(0, 40);
    expect(notes.length).toBe(40);
    for (const note of notes) {
      const spans = splitSentences(note);
      checkInvariants(note, spans);
      expect(spans.length).toBeGreaterThan(1);
    }
  });
});
