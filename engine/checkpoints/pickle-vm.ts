// A small, non-executing pickle interpreter (protocols 0-4 data opcodes). Globals, REDUCE,
// BUILD and persistent ids are delegated to caller hooks that decide what is allowed.
// Not for: general Python objects; object-construction opcodes (INST/OBJ/NEWOBJ) are refused.

import { CheckpointError } from './errors.ts';

/** A `module.name` reference produced by GLOBAL/STACK_GLOBAL after the hook allowed it. */
export interface PickleGlobal {
  kind: 'global';
  module: string;
  name: string;
}

/** Caller policy. Each hook may throw to refuse. */
export interface PickleHooks {
  /** Resolve GLOBAL module.name to a value (typically a PickleGlobal), or throw. */
  global(module: string, name: string): unknown;
  /** Called for REDUCE: callable(*args). */
  reduce(callable: unknown, args: unknown[]): unknown;
  /** Called for BINPERSID/PERSID. */
  persistentLoad(pid: unknown): unknown;
  /** Called for BUILD (obj.__setstate__(state)); returns the resulting object. */
  build(obj: unknown, state: unknown): unknown;
}

/** Python tuple values are frozen arrays; lists are plain arrays; dicts are Maps. */
export type PickleTuple = readonly unknown[];

const OP_NAMES: Record<number, string> = {
  0x69: 'INST',
  0x6f: 'OBJ',
  0x81: 'NEWOBJ',
  0x92: 'NEWOBJ_EX',
  0x82: 'EXT1',
  0x83: 'EXT2',
  0x84: 'EXT4',
};

/** Interpret a pickle and return the object left by STOP. */
export function unpickle(data: Uint8Array, hooks: PickleHooks, file: string): unknown {
  return unpickleAt(data, 0, hooks, file).value;
}

/**
 * Interpret the pickle starting at byte `start` of `data`; returns the object left by STOP and
 * the offset after STOP (legacy torch files hold several pickles back to back, then raw data).
 */
export function unpickleAt(data: Uint8Array, start: number, hooks: PickleHooks, file: string): { value: unknown; end: number } {
  const fail = (reason: string): never => {
    throw new CheckpointError(file, `corrupt or unsupported pickle: ${reason}`);
  };
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const latin1 = new TextDecoder('latin1');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let pos = start;
  let stack: unknown[] = [];
  const marks: unknown[][] = [];
  const memo = new Map<number, unknown>();

  const need = (n: number): number => {
    if (n < 0 || pos + n > data.byteLength)
      fail(`truncated at byte ${pos} (needs ${n} more bytes)`);
    const p = pos;
    pos += n;
    return p;
  };
  const u8 = (): number => data[need(1)] as number;
  const u16 = (): number => dv.getUint16(need(2), true);
  const u32 = (): number => dv.getUint32(need(4), true);
  const u64 = (): number => {
    const v = dv.getBigUint64(need(8), true);
    if (v > BigInt(data.byteLength)) fail(`length ${v} exceeds the pickle size`);
    return Number(v);
  };
  const bytesOf = (n: number): Uint8Array => data.subarray(need(n), pos);
  const line = (): string => {
    const end = data.indexOf(0x0a, pos);
    if (end < 0) fail(`truncated text argument at byte ${pos}`);
    const s = latin1.decode(data.subarray(pos, end));
    pos = end + 1;
    return s;
  };
  const str = (n: number): string => {
    const b = bytesOf(n); // a length past the end is a truncation, not a bad string
    try {
      return utf8.decode(b);
    } catch {
      return fail(`invalid UTF-8 string at byte ${pos - n}`);
    }
  };
  const pop = (): unknown => {
    if (stack.length === 0) fail(`stack underflow at byte ${pos - 1}`);
    return stack.pop();
  };
  const top = (): unknown => {
    if (stack.length === 0) fail(`stack underflow at byte ${pos - 1}`);
    return stack[stack.length - 1];
  };
  const popMark = (): unknown[] => {
    const items = stack;
    const prev = marks.pop();
    if (!prev) return fail(`MARK missing at byte ${pos - 1}`);
    stack = prev;
    return items;
  };
  const push = (v: unknown): void => {
    stack.push(v);
  };
  const tuple = (items: unknown[]): PickleTuple => Object.freeze(items);
  const asDict = (v: unknown): Map<unknown, unknown> => {
    if (!(v instanceof Map)) fail(`SETITEM(S) target is not a dict at byte ${pos - 1}`);
    return v as Map<unknown, unknown>;
  };
  const asList = (v: unknown): unknown[] => {
    if (!Array.isArray(v) || Object.isFrozen(v))
      fail(`APPEND(S) target is not a list at byte ${pos - 1}`);
    return v as unknown[];
  };
  const memoGet = (i: number): unknown => {
    if (!memo.has(i)) fail(`memo key ${i} is not defined`);
    return memo.get(i);
  };
  const longFromBytes = (b: Uint8Array): number | bigint => {
    let v = 0n;
    for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i] as number);
    if (b.length > 0 && ((b[b.length - 1] as number) & 0x80) !== 0) v -= 1n << BigInt(8 * b.length);
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : v;
  };
  const textInt = (s: string): number | bigint | boolean => {
    if (s === '01') return true;
    if (s === '00') return false;
    const t = s.endsWith('L') ? s.slice(0, -1) : s;
    if (!/^[+-]?\d+$/.test(t)) return fail(`invalid integer literal "${s}"`);
    const v = BigInt(t);
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : v;
  };

  for (;;) {
    const op = u8();
    switch (op) {
      case 0x80: // PROTO
        u8();
        break;
      case 0x95: // FRAME
        need(8);
        break;
      case 0x2e: {
        // STOP
        const v = pop();
        if (marks.length > 0) fail('unclosed MARK at STOP');
        return { value: v, end: pos };
      }
      case 0x28: // MARK
        marks.push(stack);
        stack = [];
        break;
      case 0x30: // POP
        pop();
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      case 0x32: // DUP
        push(top());
        break;
      case 0x4e: // NONE
        push(null);
        break;
      case 0x88: // NEWTRUE
        push(true);
        break;
      case 0x89: // NEWFALSE
        push(false);
        break;
      case 0x4a: // BININT
        push(dv.getInt32(need(4), true));
        break;
      case 0x4b: // BININT1
        push(u8());
        break;
      case 0x4d: // BININT2
        push(u16());
        break;
      case 0x49: // INT
        push(textInt(line()));
        break;
      case 0x4c: // LONG
        push(textInt(line()));
        break;
      case 0x8a: // LONG1
        push(longFromBytes(bytesOf(u8())));
        break;
      case 0x8b: {
        // LONG4
        const n = dv.getInt32(need(4), true);
        push(longFromBytes(bytesOf(n)));
        break;
      }
      case 0x47: // BINFLOAT
        push(dv.getFloat64(need(8), false));
        break;
      case 0x46: {
        // FLOAT
        const f = Number(line());
        if (Number.isNaN(f)) fail('invalid float literal');
        push(f);
        break;
      }
      case 0x58: // BINUNICODE
        push(str(u32()));
        break;
      case 0x8c: // SHORT_BINUNICODE
        push(str(u8()));
        break;
      case 0x8d: // BINUNICODE8
        push(str(u64()));
        break;
      case 0x54: // BINSTRING
        push(latin1.decode(bytesOf(dv.getInt32(need(4), true))));
        break;
      case 0x55: // SHORT_BINSTRING
        push(latin1.decode(bytesOf(u8())));
        break;
      case 0x42: // BINBYTES
        push(bytesOf(u32()));
        break;
      case 0x43: // SHORT_BINBYTES
        push(bytesOf(u8()));
        break;
      case 0x8e: // BINBYTES8
        push(bytesOf(u64()));
        break;
      case 0x29: // EMPTY_TUPLE
        push(tuple([]));
        break;
      case 0x74: // TUPLE
        push(tuple(popMark()));
        break;
      case 0x85: // TUPLE1
        push(tuple([pop()]));
        break;
      case 0x86: {
        const b = pop();
        const a = pop();
        push(tuple([a, b]));
        break;
      } // TUPLE2
      case 0x87: {
        const c = pop();
        const b = pop();
        const a = pop();
        push(tuple([a, b, c]));
        break;
      } // TUPLE3
      case 0x5d: // EMPTY_LIST
        push([]);
        break;
      case 0x6c: // LIST
        push(popMark());
        break;
      case 0x61: {
        const v = pop();
        asList(top()).push(v);
        break;
      } // APPEND
      case 0x65: {
        const items = popMark();
        asList(top()).push(...items);
        break;
      } // APPENDS
      case 0x7d: // EMPTY_DICT
        push(new Map());
        break;
      case 0x64: {
        // DICT
        const items = popMark();
        const m = new Map<unknown, unknown>();
        for (let i = 0; i + 1 < items.length; i += 2) m.set(items[i], items[i + 1]);
        push(m);
        break;
      }
      case 0x73: {
        const v = pop();
        const k = pop();
        asDict(top()).set(k, v);
        break;
      } // SETITEM
      case 0x75: {
        // SETITEMS
        const items = popMark();
        if (items.length % 2 !== 0) fail('SETITEMS with an odd number of items');
        const m = asDict(top());
        for (let i = 0; i < items.length; i += 2) m.set(items[i], items[i + 1]);
        break;
      }
      case 0x71: // BINPUT
        memo.set(u8(), top());
        break;
      case 0x72: // LONG_BINPUT
        memo.set(u32(), top());
        break;
      case 0x70: // PUT
        memo.set(Number(textInt(line())), top());
        break;
      case 0x94: // MEMOIZE
        memo.set(memo.size, top());
        break;
      case 0x68: // BINGET
        push(memoGet(u8()));
        break;
      case 0x6a: // LONG_BINGET
        push(memoGet(u32()));
        break;
      case 0x67: // GET
        push(memoGet(Number(textInt(line()))));
        break;
      case 0x63: {
        // GLOBAL
        const module = line();
        const name = line();
        push(hooks.global(module, name));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof module !== 'string' || typeof name !== 'string')
          fail('STACK_GLOBAL needs two strings');
        push(hooks.global(module as string, name as string));
        break;
      }
      case 0x52: {
        // REDUCE
        const args = pop();
        const callable = pop();
        if (!Array.isArray(args)) fail('REDUCE arguments are not a tuple');
        push(hooks.reduce(callable, args as unknown[]));
        break;
      }
      case 0x62: {
        const state = pop();
        push(hooks.build(pop(), state));
        break;
      } // BUILD
      case 0x51: // BINPERSID
        push(hooks.persistentLoad(pop()));
        break;
      case 0x50: // PERSID
        push(hooks.persistentLoad(line()));
        break;
      default: {
        const name = OP_NAMES[op];
        fail(
          `${name ? `refused opcode ${name}` : `unknown opcode 0x${op.toString(16).padStart(2, '0')}`} at byte ${pos - 1}`,
        );
      }
    }
  }
}
