/**
 * The tray icon, drawn here rather than shipped as a file: a filled disc in the brand's violet, 32×32, as a PNG
 * (Linux, macOS) or an ICO holding a 32-bit bitmap (Windows' tray wants .ico), base64 as systray2 takes it.
 */
import { crc32, deflateSync } from 'node:zlib';

const SIZE = 32;
const COLOR = [0x6d, 0x4a, 0xff] as const;

/** RGBA pixels, row by row from the top: the disc, its edge anti-aliased, transparent around it. */
function pixels(): Buffer {
  const px = Buffer.alloc(SIZE * SIZE * 4);
  const c = (SIZE - 1) / 2;
  const r = SIZE / 2 - 1;
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      const d = Math.hypot(x - c, y - c);
      const alpha = Math.round(255 * Math.min(1, Math.max(0, r - d + 0.5)));
      px.set([...COLOR, alpha], (y * SIZE + x) * 4);
    }
  return px;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function iconPng(): Buffer {
  const px = pixels();
  const rows = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  // Each scanline starts with its filter byte (0: none).
  for (let y = 0; y < SIZE; y++) px.copy(rows, y * (SIZE * 4 + 1) + 1, y * SIZE * 4, (y + 1) * SIZE * 4);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function iconIco(): Buffer {
  const px = pixels();
  // A BMP inside an ICO: BITMAPINFOHEADER with twice the height (colour, then the AND mask), rows bottom-up, BGRA.
  const bmp = Buffer.alloc(40);
  bmp.writeUInt32LE(40, 0);
  bmp.writeInt32LE(SIZE, 4);
  bmp.writeInt32LE(SIZE * 2, 8);
  bmp.writeUInt16LE(1, 12);
  bmp.writeUInt16LE(32, 14);
  const colour = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) {
      const from = (y * SIZE + x) * 4;
      const to = ((SIZE - 1 - y) * SIZE + x) * 4;
      colour.set([px[from + 2]!, px[from + 1]!, px[from]!, px[from + 3]!], to);
    }
  // The alpha channel decides; an all-zero mask (rows padded to 4 bytes) draws every pixel through it.
  const mask = Buffer.alloc(SIZE * 4);
  const image = Buffer.concat([bmp, colour, mask]);
  const dir = Buffer.alloc(22);
  dir.writeUInt16LE(0, 0);
  dir.writeUInt16LE(1, 2); // an icon
  dir.writeUInt16LE(1, 4); // one image
  dir.set([SIZE, SIZE, 0, 0], 6);
  dir.writeUInt16LE(1, 10);
  dir.writeUInt16LE(32, 12);
  dir.writeUInt32LE(image.length, 14);
  dir.writeUInt32LE(22, 18);
  return Buffer.concat([dir, image]);
}

/** The icon for this platform's tray, base64. */
export const trayIcon = (platform: NodeJS.Platform = process.platform): string => (platform === 'win32' ? iconIco() : iconPng()).toString('base64');
