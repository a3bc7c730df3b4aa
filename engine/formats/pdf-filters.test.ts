// What a PDF's streams unpack to, counted under every filter pdfjs decodes and any chain of them
// (only a first FlateDecode was counted: LZW, RunLength, ASCII85 or a Flate inside another filter
// unpacked unchecked; then Brotli, a Flate after /Crypt or an unknown name, /F and filters given by
// reference were), stream dictionaries read as pdfjs reads them, and encrypted PDFs that need
// a password refused (those that open without one: pdf-crypt.test.ts).

import { brotliCompressSync, deflateRawSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ENCRYPTED_PDF, importPdf, pdfUnpackProblem } from './pdf.ts';
import { buildPdf } from './test-fixtures.ts';

const ahx = (b: Uint8Array): Buffer => Buffer.from(`${Buffer.from(b).toString('hex').replace(/(.{64})/g, '$1\n')}>`, 'latin1');

function a85(b: Uint8Array): Buffer {
  let out = '';
  for (let i = 0; i < b.length; i += 4) {
    const n = Math.min(4, b.length - i);
    let v = 0;
    for (let j = 0; j < 4; j++) v = v * 256 + (j < n ? (b[i + j] ?? 0) : 0);
    if (v === 0 && n === 4) {
      out += 'z';
      continue;
    }
    let group = '';
    for (let j = 0; j < 5; j++, v = Math.floor(v / 85)) group = String.fromCharCode(33 + (v % 85)) + group;
    out += group.slice(0, n + 1);
  }
  return Buffer.from(`${out}~>`, 'latin1');
}

function runLength(b: Uint8Array): Buffer {
  const out: number[] = [];
  for (let i = 0; i < b.length; ) {
    let run = 1;
    while (i + run < b.length && run < 128 && b[i + run] === b[i]) run++;
    if (run > 1) {
      out.push(257 - run, b[i] ?? 0);
      i += run;
      continue;
    }
    let literal = 1;
    while (i + literal < b.length && literal < 128 && b[i + literal] !== b[i + literal - 1]) literal++;
    out.push(literal - 1, ...b.subarray(i, i + literal));
    i += literal;
  }
  out.push(128);
  return Buffer.from(out);
}

/** LZW as PDF writers make it (EarlyChange 1): a clear code first, no clear when the table fills. */
function lzw(b: Uint8Array): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  let length = 9;
  const write = (code: number): void => {
    acc = (acc << length) | code;
    bits += length;
    for (; bits >= 8; bits -= 8) out.push((acc >>> (bits - 8)) & 0xff);
    acc &= (1 << bits) - 1;
  };
  const table = new Map<number, number>(); // (code of a string) * 256 + next byte → code
  let next = 258;
  let w = -1;
  write(256);
  for (const byte of b) {
    const code = w < 0 ? byte : table.get(w * 256 + byte);
    if (code !== undefined) {
      w = code;
      continue;
    }
    write(w);
    if (next < 4096) table.set(w * 256 + byte, next++);
    length = next >= 2048 ? 12 : next >= 1024 ? 11 : next >= 512 ? 10 : 9; // one code early
    w = byte;
  }
  if (w >= 0) write(w);
  write(257);
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return Buffer.from(out);
}

/** 2,000 lines drawn, 60 KB of varied content: LZW's codes reach 12 bits and its table fills. */
const drawing = Buffer.from(Array.from({ length: 2000 }, (_, i) => `${(i * 37) % 600} ${(i * 91) % 800} m ${(i * 53) % 600} ${(i * 17) % 800} l S`).join('\n') + '\n');
const MB = 1 << 20;
const BOMB = 'unpacks to more than 1 MB (a compression bomb, or a PDF too large to read); split it into smaller files';

/** Each filter and chain: how it encodes a page, and the bytes decoding it makes at every step. */
const chains: Record<string, { encode: (c: Buffer) => Buffer; entries: string; steps: (c: Buffer) => number[] }> = {
  ASCIIHexDecode: { encode: ahx, entries: '/Filter /ASCIIHexDecode', steps: (c) => [c.length] },
  ASCII85Decode: { encode: a85, entries: '/Filter /A85', steps: (c) => [c.length] },
  RunLengthDecode: { encode: runLength, entries: '/Filter /RunLengthDecode', steps: (c) => [c.length] },
  LZWDecode: { encode: lzw, entries: '/Filter /LZWDecode', steps: (c) => [c.length] },
  'ASCII85 then Flate': { encode: (c) => a85(deflateSync(c)), entries: '/Filter [/ASCII85Decode /FlateDecode]', steps: (c) => [deflateSync(c).length, c.length] },
  'Flate twice': { encode: (c) => deflateSync(deflateSync(c)), entries: '/Filter [/Fl /Fl]', steps: (c) => [deflateSync(c).length, c.length] },
  'ASCIIHex then LZW': { encode: (c) => ahx(lzw(c)), entries: '/Filter [/AHx /LZW] /DecodeParms [null << /EarlyChange 1 >>]', steps: (c) => [lzw(c).length, c.length] },
  // pdfjs decodes BrotliDecode; it hands the data of a name it does not know on as it is, and reads /F before /Filter.
  BrotliDecode: { encode: (c) => brotliCompressSync(c), entries: '/Filter /BrotliDecode', steps: (c) => [c.length] },
  'Crypt (Identity) then Flate': { encode: (c) => deflateSync(c), entries: '/Filter [/Crypt /FlateDecode] /DecodeParms [<< /Name /Identity >> null]', steps: (c) => [c.length] },
  'an unknown name then Flate': { encode: (c) => deflateSync(c), entries: '/Filter [/NoSuchDecode /FlateDecode]', steps: (c) => [c.length] },
  'Flate named by /F': { encode: (c) => deflateSync(c), entries: '/F /Fl', steps: (c) => [c.length] },
};

/** A zlib stream whose first (stored) block holds the word "endstream", the data of `c` after it. */
function withDecoy(c: Buffer): Buffer {
  const decoy = Buffer.from('\nendstream\n', 'latin1');
  const stored = Buffer.concat([Buffer.from([0, decoy.length, 0, ~decoy.length & 0xff, 0xff]), decoy]);
  const whole = deflateSync(Buffer.concat([decoy, c]));
  const rest = deflateSync(c, { level: 9 }).subarray(2, -4); // the raw deflate blocks of c
  return Buffer.concat([whole.subarray(0, 2), stored, rest, whole.subarray(-4)]);
}

describe('pdfUnpackProblem', () => {
  it.each(Object.keys(chains))('counts every byte %s decodes to, and the text reads as before', async (name) => {
    const chain = chains[name];
    if (!chain) throw new Error(name);
    const lines = ['Discharge summary: aspirin 75 mg daily.', 'No known drug allergies.'];
    let page = Buffer.alloc(0);
    const pdf = buildPdf([lines], {
      encode: (c) => {
        page = Buffer.concat([drawing, c]);
        return { data: chain.encode(page), entries: chain.entries };
      },
    });
    const total = chain.steps(page).reduce((a, n) => a + n, 0);
    expect(await pdfUnpackProblem(pdf, total)).toBeUndefined();
    expect(await pdfUnpackProblem(pdf, total - 1)).toMatch(/^unpacks to more than/);
    const { documents, issues } = await importPdf(pdf, 'notes.pdf');
    expect(issues).toEqual([]);
    expect(documents[0]?.text).toBe(lines.join('\n'));
  });

  it.each(Object.keys(chains).filter((n) => n !== 'ASCIIHexDecode' && n !== 'ASCII85Decode'))('refuses a bomb under %s', async (name) => {
    const chain = chains[name];
    if (!chain) throw new Error(name);
    const bomb = buildPdf([['Hello.']], { padding: 3 * MB, encode: (c) => ({ data: chain.encode(c), entries: chain.entries }) });
    expect(bomb.length).toBeLessThan(100 << 10);
    expect(await pdfUnpackProblem(bomb, MB)).toBe(BOMB);
    expect(await importPdf(bomb, 'bomb.pdf', { maxStreamBytes: MB })).toEqual({ documents: [], issues: [{ severity: 'error', file: 'bomb.pdf', message: BOMB }] });
    expect(await pdfUnpackProblem(bomb, 8 * MB)).toBeUndefined();
  });

  it('reads the filter of a stream dictionary as the reader does (a long one, or one with "obj" in a string, hid it)', async () => {
    for (const extra of [`/Note (${'x'.repeat(5000)})`, '/Note (1 0 obj)']) {
      const bomb = buildPdf([['Hello.']], { padding: 3 * MB, encode: (c) => ({ data: deflateSync(c), entries: `/Filter /FlateDecode ${extra}` }) });
      expect(await pdfUnpackProblem(bomb, MB)).toBe(BOMB);
    }
  });

  it('resolves a filter given as a reference inside the filter array, as the reader does', async () => {
    const text = Buffer.from(buildPdf([['Hello.']], { padding: 3 * MB, encode: (c) => ({ data: deflateSync(c), entries: '/Filter [9 0 R]' }) })).toString('latin1');
    const bomb = Buffer.from(text.replace('xref', '9 0 obj\n/FlateDecode\nendobj\nxref'), 'latin1');
    expect(await pdfUnpackProblem(bomb, MB)).toBe(BOMB);
    expect(await pdfUnpackProblem(bomb, 4 * MB)).toBeUndefined();
  });

  it('ends a stream at its /Length, as the reader does, not at an "endstream" inside its data', async () => {
    const bomb = buildPdf([['Hello.']], { padding: 3 * MB, encode: (c) => ({ data: withDecoy(c), entries: '/Filter /FlateDecode' }) });
    expect(await pdfUnpackProblem(bomb, MB)).toBe(BOMB);
    const ok = await importPdf(bomb, 'decoy.pdf', { maxStreamBytes: 8 * MB });
    expect(ok.documents[0]?.text).toBe('Hello.'); // the reader did read past the decoy
  });

  it('leaves image codecs uncounted (text extraction never decodes images)', async () => {
    const jpeg = buildPdf([['x']], { padding: 3 * MB, encode: (c) => ({ data: deflateSync(c), entries: '/Filter [/FlateDecode /DCTDecode]' }) });
    expect(await pdfUnpackProblem(jpeg, 4 * MB)).toBeUndefined(); // the Flate step, 3 MB, is counted
    expect(await pdfUnpackProblem(jpeg, MB)).toBe(BOMB);
  });

  it('lets a cancel through while a large stream is counted', async () => {
    const big = buildPdf([['x']], { flate: true, padding: 128 * MB });
    const stop = new Error('cancelled');
    let calls = 0;
    await expect(
      pdfUnpackProblem(big, undefined, () => {
        calls++;
        throw stop;
      }),
    ).rejects.toBe(stop);
    expect(calls).toBe(1);
  });

  it('refuses an encrypted PDF the empty password does not open, saying so (one that it opens is decrypted: pdf-crypt.test.ts)', async () => {
    const text = new TextDecoder().decode(buildPdf([['Secret note.']]));
    // A /U that the empty user password does not make: its streams cannot be decrypted to be counted.
    const locked = text.replace('/Root 1 0 R >>', '/Root 1 0 R /Encrypt << /Filter /Standard /V 2 /R 3 /O <00> /U <00> /P -3904 >> >>');
    expect(await importPdf(new TextEncoder().encode(locked), 'locked.pdf')).toEqual({ documents: [], issues: [{ severity: 'error', file: 'locked.pdf', message: ENCRYPTED_PDF }] });
    expect(ENCRYPTED_PDF).toMatch(/^password-protected PDF .*save or print it to an unencrypted PDF, then read that copy$/);
  });

  it('counts a Flate stream whose zlib header pdfjs reads and zlib refuses (a window size over 32 KB)', async () => {
    const odd = (c: Buffer): Buffer => Buffer.concat([Buffer.from([0x88, 0x1c]), deflateRawSync(c)]); // CINFO 8, FCHECK right
    const bomb = buildPdf([['Hello.']], { padding: 3 * MB, encode: (c) => ({ data: odd(c), entries: '/Filter /FlateDecode' }) });
    expect(await pdfUnpackProblem(bomb, MB)).toBe(BOMB);
    expect((await importPdf(bomb, 'odd.pdf', { maxStreamBytes: 8 * MB })).documents[0]?.text).toBe('Hello.'); // pdfjs reads it
  });

  it('finds the encryption a cross-reference stream names (PDF 1.5 and later have no trailer)', async () => {
    const text = new TextDecoder().decode(buildPdf([['Secret note.']]));
    const xref = text.indexOf('xref');
    const entries = '<< /Type /XRef /Size 6 /W [1 1 1] /Root 1 0 R /Encrypt << /Filter /Standard /V 2 /R 3 /O <00> /U <00> /P -3904 >> /Length 1 >>';
    const locked = `${text.slice(0, xref)}6 0 obj\n${entries}\nstream\nx\nendstream\nendobj\nstartxref\n${xref}\n%%EOF\n`;
    expect(await pdfUnpackProblem(new TextEncoder().encode(locked))).toBe(ENCRYPTED_PDF);
    expect(await pdfUnpackProblem(new TextEncoder().encode(locked.replace('/Encrypt <<', '/NotEncrypt <<')))).toBeUndefined();
  });

  it('stops reading a Flate stream at its end (data after it was copied again on every piece: minutes)', async () => {
    const tail = (c: Buffer): Buffer => Buffer.concat([deflateSync(c), Buffer.alloc(32 * MB, 0x41)]);
    const pdf = buildPdf([['Hello.']], { encode: (c) => ({ data: tail(c), entries: '/Filter /FlateDecode' }) });
    expect(await pdfUnpackProblem(pdf, MB)).toBeUndefined();
  }, 20_000);

  it('reads a stream whose /Length lies in an object stream to its filters\' end, not to an "endstream" inside it', async () => {
    const text = Buffer.from(buildPdf([['Hello.']], { padding: 3 * MB, encode: (c) => ({ data: withDecoy(c), entries: '/Filter /FlateDecode' }) })).toString('latin1');
    const bomb = Buffer.from(text.replace(/\/Length \d+ \/Filter/, '/Length 40 0 R /Filter'), 'latin1'); // object 40: compressed, not seen
    expect(await pdfUnpackProblem(bomb, MB)).toBe(BOMB);
    expect(await pdfUnpackProblem(bomb, 4 * MB)).toBeUndefined(); // the stream's own end, not the file's
  });
});
