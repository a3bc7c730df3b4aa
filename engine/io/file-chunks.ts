// Reading a file a chunk at a time: text corpora may be larger than one read can return (2 GiB;
// Node's readFileSync fails with "File size (…) is greater than 2 GiB"), and need not be in memory.
import { closeSync, openSync, readSync } from 'node:fs';

const MB = 1 << 20;

/** The bytes of open file `fd` from byte `from` on, `size` at a time; each chunk is valid until the next is read. */
export function* chunksOf(fd: number, from = 0, size = MB): Generator<Buffer> {
  const buf = Buffer.alloc(size);
  for (let pos = from; ; ) {
    const n = readSync(fd, buf, 0, size, pos);
    if (n === 0) return;
    pos += n;
    yield buf.subarray(0, n);
  }
}

/** The bytes of `file`, 1 MB at a time (see chunksOf). */
export function* fileChunks(file: string): Generator<Buffer> {
  const fd = openSync(file, 'r');
  try {
    yield* chunksOf(fd);
  } finally {
    closeSync(fd);
  }
}

/** The first `size` bytes of `file` (fewer when it is shorter): a header or magic number. */
export function fileHead(file: string, size: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(size);
    return head.subarray(0, readSync(fd, head, 0, size, 0));
  } finally {
    closeSync(fd);
  }
}
