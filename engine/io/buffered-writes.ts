// Text written to an open file a chunk at a time: pieces are gathered until about `chunkChars`
// characters, then handed to the file system in one awaited write, so a long write lets the
// event loop turn between chunks without a system call per piece.
import type { FileHandle } from 'node:fs/promises';

export interface BufferedWrites {
  /** Appends `text`; resolves once it may take more (after a chunk's write when one was due). */
  write: (text: string) => Promise<void>;
  /** Writes what is gathered, whole (short writes are continued). */
  flush: () => Promise<void>;
}

export function bufferedWrites(file: FileHandle, chunkChars: number): BufferedWrites {
  let pending: string[] = [];
  let size = 0;
  const flush = async (): Promise<void> => {
    const bytes = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    size = 0;
    for (let at = 0; at < bytes.length; ) at += (await file.write(bytes, at, bytes.length - at)).bytesWritten;
  };
  const write = async (text: string): Promise<void> => {
    pending.push(text);
    size += text.length;
    if (size >= chunkChars) await flush();
  };
  return { write, flush };
}
