import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import rangeParser from 'range-parser';

/**
 * A model mirror for pull tests, as Hugging Face serves files: one directory over HTTP, single byte ranges (206),
 * throttled so that a pull takes long enough to interrupt, counting the bytes it sends by file. With `lfsHeaders`,
 * it also states each file's SHA-256 and size as Hugging Face does for its LFS files (x-linked-etag, x-linked-size).
 */
export interface FileServer {
  url: string;
  /** Bytes of each file sent so far. */
  sent: Map<string, number>;
  /** Files answered with other bytes than the ones on disk (a mirror that serves a corrupted copy). */
  corrupt: Set<string>;
  close(): Promise<void>;
}

export async function startFileServer(dir: string, opts: { bytesPerSecond: number; lfsHeaders?: boolean }): Promise<FileServer> {
  const sent = new Map<string, number>();
  const corrupt = new Set<string>();
  const chunk = 64 * 1024;
  const delayMs = (chunk / opts.bytesPerSecond) * 1000;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
      const file = /^[A-Za-z0-9._-]+$/.test(name) ? await stat(join(dir, name)).catch(() => null) : null;
      if (!file?.isFile()) {
        res.writeHead(404).end();
        return;
      }
      let start = 0;
      let end = file.size - 1;
      const ranges = req.headers.range ? rangeParser(file.size, req.headers.range) : null;
      if (ranges === -1) {
        res.writeHead(416, { 'Content-Range': `bytes */${file.size}` }).end();
        return;
      }
      if (Array.isArray(ranges) && ranges.length === 1) {
        ({ start, end } = ranges[0]!);
        res.statusCode = 206;
        res.setHeader('Content-Range', `bytes ${start}-${end}/${file.size}`);
      }
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('Content-Length', end - start + 1);
      res.setHeader('Content-Type', 'application/octet-stream');
      if (opts.lfsHeaders) {
        const sha = createHash('sha256')
          .update(await readFile(join(dir, name)))
          .digest('hex');
        res.setHeader('X-Linked-Etag', `"${sha}"`);
        res.setHeader('X-Linked-Size', file.size);
      }
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      const throttle = new Transform({
        transform(data: Buffer, _enc, done) {
          sent.set(name, (sent.get(name) ?? 0) + data.length);
          const out = corrupt.has(name) ? Buffer.from(data.map((b) => b ^ 0xff)) : data;
          setTimeout(() => done(null, out), delayMs);
        },
      });
      const source = createReadStream(join(dir, name), { start, end, highWaterMark: chunk });
      res.once('close', () => source.destroy());
      source.pipe(throttle).pipe(res);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    corrupt,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
