import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

export interface ByteRange {
  offset: number;
  length: number;
}

/**
 * The answer to a model file challenge: for each byte range of the file, SHA-256 of the nonce followed by those bytes.
 * The nonce makes the answer unknowable without the file at hand; the platform computes the same from its own copy.
 */
export async function hashRanges(path: string, nonceHex: string, ranges: ByteRange[]): Promise<string[]> {
  const file = await open(path, 'r');
  try {
    const hashes: string[] = [];
    for (const r of ranges) {
      const bytes = Buffer.alloc(r.length);
      const { bytesRead } = await file.read(bytes, 0, r.length, r.offset);
      hashes.push(createHash('sha256').update(Buffer.from(nonceHex, 'hex')).update(bytes.subarray(0, bytesRead)).digest('hex'));
    }
    return hashes;
  } finally {
    await file.close();
  }
}

/** SHA-256 of a whole file, streamed: how a pulled model file is checked against the catalog's hash. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
