/**
 * Writes the tray icons (one per state, 1x and @2x) and the app icon as PNGs, so the
 * images are reproducible from code: `npx tsx electron/assets/generate-icons.ts`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { TRAY_STATES, type TrayState } from '../tray-state';

type Rgb = [number, number, number];

/** Colours that read on light and dark menu bars; the state must not depend on colour alone, so each has its own mark. */
const STATE_STYLE: Record<TrayState, { color: Rgb; mark: 'dot' | 'ring' | 'bang' | 'cross' }> = {
  idle: { color: [120, 128, 140], mark: 'ring' },
  running: { color: [37, 120, 220], mark: 'dot' },
  awaiting_approval: { color: [230, 150, 20], mark: 'bang' },
  degraded: { color: [210, 45, 45], mark: 'cross' },
};

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGBA image as PNG: filter byte 0 on every row, one IDAT. */
export function encodePng(size: number, pixel: (x: number, y: number) => [number, number, number, number]): Buffer {
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) rows.set(pixel(x, y), y * (size * 4 + 1) + 1 + x * 4);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** Coverage of a pixel by a shape, 4x4 supersampled so edges are smooth at 16-22 px. */
const coverage = (x: number, y: number, inside: (u: number, v: number) => boolean) => {
  let hits = 0;
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) if (inside(x + (i + 0.5) / 4, y + (j + 0.5) / 4)) hits++;
  return hits / 16;
};

function trayIcon(state: TrayState, size: number): Buffer {
  const { color, mark } = STATE_STYLE[state];
  const c = size / 2;
  const r = size * 0.45;
  const stroke = size * 0.12;
  const inMark = (u: number, v: number) => {
    const dx = u - c;
    const dy = v - c;
    const d = Math.hypot(dx, dy);
    if (mark === 'ring') return d <= r && d >= r - stroke;
    if (d > r) return false;
    if (mark === 'dot') return d >= r * 0.35 || d <= r * 0.2; // a disc with a small hollow: "working"
    // bang and cross are cut out of a full disc
    const cut = mark === 'bang' ? Math.abs(dx) < stroke / 2 && (dy < r * 0.2 || Math.abs(dy - r * 0.45) < stroke / 2) : Math.abs(Math.abs(dx) - Math.abs(dy)) < stroke * 0.7 && d < r * 0.6;
    return !(cut && dy > -r * 0.6);
  };
  return encodePng(size, (x, y) => [...color, Math.round(255 * coverage(x, y, inMark))]);
}

function appIcon(size: number): Buffer {
  const c = size / 2;
  return encodePng(size, (x, y) => {
    const inDisc = coverage(x, y, (u, v) => Math.hypot(u - c, v - c) <= size * 0.46);
    const inMark = coverage(x, y, (u, v) => Math.hypot(u - c, v - c) <= size * 0.18 || (Math.abs(u - c) < size * 0.05 && Math.abs(v - c) < size * 0.34));
    return inMark > 0 ? [255, 255, 255, Math.round(255 * inDisc)] : [37, 120, 220, Math.round(255 * inDisc)];
  });
}

const here = import.meta.dirname;
for (const state of TRAY_STATES) {
  writeFileSync(join(here, `tray-${state}.png`), trayIcon(state, 22));
  writeFileSync(join(here, `tray-${state}@2x.png`), trayIcon(state, 44));
}
writeFileSync(join(here, 'icon.png'), appIcon(512));
