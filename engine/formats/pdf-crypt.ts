// Decrypting the streams of a PDF that opens with the empty user password, so the checks before
// pdfjs can count what they unpack to (pdf-filters.ts). Many PDFs from hospital systems are
// encrypted that way: they open without a password but are "locked against copying or printing".
// The PDF Standard security handler (ISO 32000-2, 7.6.4): RC4 (V1, V2, and V4 crypt filters with
// /CFM /V2), AES-128 (/AESV2) and AES-256 (V5, R5 and R6, /AESV3), each stream with the key of its
// object as pdfjs derives it. A file that needs a real password, another security handler, or an
// encryption dictionary pdfjs would not read either is refused. Strings are not decrypted: the
// counting reads only streams.

import { createCipheriv, createDecipheriv, createHash, type Decipher } from 'node:crypto';
import { type PdfDict, PdfName, type PdfEncryption, type PdfStream, type PdfValue } from './pdf-objects.ts';

/** The message for an encrypted PDF Benchtop cannot read: one that needs a password, or another kind of encryption. */
export const ENCRYPTED_PDF =
  'password-protected PDF (it needs a password to open, or is encrypted in a way Benchtop does not read): open it with its password, save or print it to an unencrypted PDF, then read that copy';

/** A decryption fed a stream's data in pieces: what each piece decrypts to, then what is left at its end. */
export interface StreamDecipher {
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
}

/** The decipher for a stream's data, or undefined where the stream is stored unencrypted. */
export type StreamDecryption = (stream: PdfStream) => StreamDecipher | undefined;

/** The padding string of Algorithm 2: the empty password, padded. */
const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

const bytes = (v: PdfValue | undefined): Buffer => Buffer.from(typeof v === 'string' ? v : '', 'latin1');
const md5 = (...parts: Uint8Array[]): Buffer => createHash('md5').update(Buffer.concat(parts)).digest();
const sha = (name: string, data: Uint8Array): Buffer => createHash(name).update(data).digest();
const nameOf = (v: PdfValue | undefined): string | undefined => (v instanceof PdfName ? v.name : undefined);

/** RC4, written here: the OpenSSL 3 in Node 20 may not offer it. */
class Rc4 implements StreamDecipher {
  private readonly s = new Uint8Array(256);
  private i = 0;
  private j = 0;

  constructor(key: Uint8Array) {
    const s = this.s;
    for (let i = 0; i < 256; i++) s[i] = i;
    for (let i = 0, j = 0; i < 256; i++) {
      const si = s[i] ?? 0;
      j = (j + si + (key[i % key.length] ?? 0)) & 0xff;
      s[i] = s[j] ?? 0;
      s[j] = si;
    }
  }

  update(data: Uint8Array): Uint8Array {
    const s = this.s;
    const out = new Uint8Array(data.length);
    let { i, j } = this;
    for (let k = 0; k < data.length; k++) {
      i = (i + 1) & 0xff;
      const si = s[i] ?? 0;
      j = (j + si) & 0xff;
      const sj = s[j] ?? 0;
      s[i] = sj;
      s[j] = si;
      out[k] = (data[k] ?? 0) ^ (s[(si + sj) & 0xff] ?? 0);
    }
    this.i = i;
    this.j = j;
    return out;
  }

  final(): Uint8Array {
    return new Uint8Array(0);
  }
}

/** AES-CBC with the IV in the data's first 16 bytes and PKCS#7 padding at its end (held back until the end is known). */
class AesCbc implements StreamDecipher {
  private iv: number[] = [];
  private decipher: Decipher | undefined;
  private held: Buffer = Buffer.alloc(0);

  constructor(private readonly key: Buffer) {}

  update(data: Uint8Array): Uint8Array {
    let rest = data;
    if (!this.decipher) {
      const need = 16 - this.iv.length;
      this.iv.push(...data.subarray(0, need));
      rest = data.subarray(need);
      if (this.iv.length < 16) return new Uint8Array(0);
      this.decipher = createDecipheriv(`aes-${this.key.length * 8}-cbc`, this.key, Buffer.from(this.iv)).setAutoPadding(false);
    }
    const out = Buffer.concat([this.held, this.decipher.update(rest)]);
    this.held = out.subarray(Math.max(0, out.length - 16));
    return out.subarray(0, out.length - this.held.length);
  }

  /** The last block less its padding; a last block cut short (damaged data) cannot be decrypted and is left out. */
  final(): Uint8Array {
    const pad = this.held[15] ?? 0;
    return this.held.length === 16 && pad >= 1 && pad <= 16 ? this.held.subarray(0, 16 - pad) : this.held;
  }
}

/** Algorithm 2.B (R6): the SHA-256/384/512 and AES rounds over the password, a salt and (for the owner) /U. */
function hash2B(password: Buffer, salt: Buffer, udata: Buffer): Buffer {
  let k = sha('sha256', Buffer.concat([password, salt, udata]));
  let e: Buffer = Buffer.alloc(0);
  for (let i = 0; i < 64 || (e[e.length - 1] ?? 0) > i - 32; i++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, udata])));
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32)).setAutoPadding(false);
    e = Buffer.concat([cipher.update(k1), cipher.final()]);
    const sum = e.subarray(0, 16).reduce((a, x) => a + x, 0);
    k = sha(['sha256', 'sha384', 'sha512'][sum % 3] ?? 'sha256', e);
  }
  return k.subarray(0, 32);
}

/** The file key of V5 (AES-256) for the empty user password, or undefined when /U does not validate it. */
function aes256Key(dict: PdfDict): Buffer | undefined {
  const u = bytes(dict.get('U'));
  const ue = bytes(dict.get('UE'));
  if (u.length < 48 || ue.length < 32) return undefined;
  const empty = Buffer.alloc(0);
  const hash = (salt: Buffer): Buffer => (dict.get('R') === 6 ? hash2B(empty, salt, empty) : sha('sha256', salt));
  if (!hash(u.subarray(32, 40)).equals(u.subarray(0, 32))) return undefined;
  const decipher = createDecipheriv('aes-256-cbc', hash(u.subarray(40, 48)), Buffer.alloc(16)).setAutoPadding(false);
  return Buffer.concat([decipher.update(ue.subarray(0, 32)), decipher.final()]);
}

/** The key length in bits as pdfjs reads it (/Length, else 40 before V4, else the stream crypt filter's, else 128), or undefined when invalid. */
function keyBits(dict: PdfDict): number | undefined {
  let bits = dict.get('Length');
  if (!bits) {
    const v = dict.get('V');
    const cf = dict.get('CF');
    const handler = cf instanceof Map ? cf.get(nameOf(dict.get('StmF')) ?? '') : undefined;
    bits = typeof v === 'number' && v <= 3 ? 40 : handler instanceof Map ? handler.get('Length') || 128 : undefined;
    if (typeof bits === 'number' && bits < 40) bits *= 8;
  }
  return typeof bits === 'number' && Number.isInteger(bits) && bits >= 40 && bits % 8 === 0 ? bits : undefined;
}

/** The file key of V1, V2 and V4 (Algorithm 2) for the empty user password, or undefined when /U does not validate it (Algorithms 4 and 5). */
function rc4Key(dict: PdfDict, fileId: Buffer, bits: number, encryptMetadata: boolean): Buffer | undefined {
  const r = dict.get('R');
  const revision = typeof r === 'number' ? r : 0;
  const p = dict.get('P');
  const flags = Buffer.alloc(4);
  flags.writeUInt32LE((typeof p === 'number' ? p : 0) >>> 0);
  const n = bits >> 3;
  let hash = md5(PAD, bytes(dict.get('O')).subarray(0, 32), flags, fileId, revision >= 4 && !encryptMetadata ? Buffer.alloc(4, 0xff) : Buffer.alloc(0));
  if (revision >= 3) for (let i = 0; i < 50; i++) hash = md5(hash.subarray(0, n));
  const key = hash.subarray(0, n);
  let check: Uint8Array;
  if (revision >= 3) {
    check = new Rc4(key).update(md5(PAD, fileId));
    for (let i = 1; i <= 19; i++) check = new Rc4(key.map((k) => k ^ i)).update(check);
  } else check = new Rc4(key).update(PAD);
  const u = bytes(dict.get('U'));
  return check.every((c, i) => u[i] === c) ? key : undefined;
}

/** The key of one object (Algorithm 1): the file key, the object number and generation, and "sAlT" for AES. */
function objectKey(key: Buffer, num: number, gen: number, aes: boolean): Buffer {
  const id = Buffer.from([num & 0xff, (num >> 8) & 0xff, (num >> 16) & 0xff, gen & 0xff, (gen >> 8) & 0xff]);
  return md5(key, id, aes ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0)).subarray(0, Math.min(key.length + 5, 16));
}

/** How the streams of a PDF of these encryptions are decrypted, for the file key of the empty user password. */
function standard(dict: PdfDict, fileId: Buffer): StreamDecryption | undefined {
  const v = dict.get('V');
  if (nameOf(dict.get('Filter')) !== 'Standard' || (v !== 1 && v !== 2 && v !== 4 && v !== 5)) return undefined;
  const bits = keyBits(dict);
  if (bits === undefined) return undefined;
  const encryptMetadata = (v === 4 || v === 5) && dict.get('EncryptMetadata') !== false;
  let key = v === 5 ? aes256Key(dict) : rc4Key(dict, fileId, bits, encryptMetadata);
  if (!key) return undefined;
  if (v === 4 && key.length < 16) key = Buffer.concat([key, Buffer.alloc(16 - key.length)]);
  const fileKey = key;
  let method = 'V2';
  if (v === 4 || v === 5) {
    // The stream crypt filter (/StmF, /Identity when absent): a name /CF defines, or none (no decryption).
    const stmf = dict.get('StmF') ?? new PdfName('Identity');
    const cf = dict.get('CF');
    if (!(stmf instanceof PdfName)) return undefined;
    const filter = cf instanceof Map ? cf.get(stmf.name) : undefined;
    method = (filter instanceof Map ? nameOf(filter.get('CFM')) : undefined) ?? 'None';
    if (!['None', 'V2', 'AESV2', 'AESV3'].includes(method)) return undefined;
  }
  return ({ num, gen, dict: stream }) => {
    const type = nameOf(stream.get('Type'));
    // Cross-reference streams are never encrypted; the metadata stream not when /EncryptMetadata is false.
    if (type === 'XRef' || (type === 'Metadata' && (v === 4 || v === 5) && !encryptMetadata)) return undefined;
    if (method === 'None') return undefined;
    if (method === 'AESV3') return new AesCbc(fileKey);
    if (method === 'AESV2') return new AesCbc(objectKey(fileKey, num, gen, true));
    return new Rc4(objectKey(fileKey, num, gen, false));
  };
}

/**
 * How a PDF's streams are decrypted: `decrypt` undefined when it is not encrypted; a `problem`
 * when it is but cannot be read without a password (or with the Standard security handler as
 * pdfjs reads it), or when its trailers name different encryptions (which one the reader takes
 * is not known, and streams decrypted with another key would unpack to nothing here).
 */
export function streamDecryption(encryptions: PdfEncryption[]): { decrypt?: StreamDecryption; problem?: string } {
  if (encryptions.length === 0) return {};
  const [only] = encryptions;
  const decrypt = encryptions.length === 1 && only?.dict ? standard(only.dict, Buffer.from(only.fileId, 'latin1')) : undefined;
  return decrypt ? { decrypt } : { problem: ENCRYPTED_PDF };
}
