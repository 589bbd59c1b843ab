// Zip-bomb guard for DOCX, run before mammoth. jszip (under mammoth) trusts the sizes in the
// archive and inflates a member completely before checking them, into ArrayBuffers that a
// worker's heap limit does not count. Here every member is inflated with a hard output cap, so
// a lying header cannot get past: what counts is what the data really expands to.

import { inflateRawSync } from 'node:zlib';

export type ZipCheck =
  | { ok: true; expandedBytes: number; entries: number }
  | { ok: false; reason: 'too_large' | 'corrupt'; detail: string };

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

interface Directory {
  offset: number;
  entries: number;
}

function findDirectory(zip: Buffer): Directory | null {
  const floor = Math.max(0, zip.length - 22 - 0xffff);
  for (let p = zip.length - 22; p >= floor; p--) {
    if (zip.readUInt32LE(p) !== EOCD) continue;
    const entries = zip.readUInt16LE(p + 10);
    const offset = zip.readUInt32LE(p + 16);
    if (entries !== 0xffff && offset !== MAX32) return { offset, entries };
    const locator = p - 20;
    if (locator < 0 || zip.readUInt32LE(locator) !== EOCD64_LOCATOR) return null;
    const record = Number(zip.readBigUInt64LE(locator + 8));
    if (record + 56 > zip.length || zip.readUInt32LE(record) !== EOCD64) return null;
    return { entries: Number(zip.readBigUInt64LE(record + 32)), offset: Number(zip.readBigUInt64LE(record + 48)) };
  }
  return null;
}

interface Member {
  method: number;
  flags: number;
  compressed: number;
  local: number;
  next: number;
}

// Sizes and offsets that do not fit 32 bits live in the ZIP64 extra field (id 1), in this order.
function readMember(zip: Buffer, p: number): Member {
  const nameLen = zip.readUInt16LE(p + 28);
  const extraLen = zip.readUInt16LE(p + 30);
  const commentLen = zip.readUInt16LE(p + 32);
  let uncompressed = zip.readUInt32LE(p + 24);
  let compressed = zip.readUInt32LE(p + 20);
  let local = zip.readUInt32LE(p + 42);
  let e = p + 46 + nameLen;
  const extraEnd = e + extraLen;
  while (e + 4 <= extraEnd) {
    const id = zip.readUInt16LE(e);
    const size = zip.readUInt16LE(e + 2);
    if (id === 1) {
      let f = e + 4;
      if (uncompressed === MAX32) {
        uncompressed = Number(zip.readBigUInt64LE(f));
        f += 8;
      }
      if (compressed === MAX32) {
        compressed = Number(zip.readBigUInt64LE(f));
        f += 8;
      }
      if (local === MAX32) local = Number(zip.readBigUInt64LE(f));
    }
    e += 4 + size;
  }
  return {
    method: zip.readUInt16LE(p + 10),
    flags: zip.readUInt16LE(p + 8),
    compressed,
    local,
    next: p + 46 + nameLen + extraLen + commentLen,
  };
}

function expandedSize(zip: Buffer, m: Member, cap: number): number {
  if (m.local + 30 > zip.length || zip.readUInt32LE(m.local) !== LOCAL) throw new RangeError('bad local header');
  const start = m.local + 30 + zip.readUInt16LE(m.local + 26) + zip.readUInt16LE(m.local + 28);
  const end = start + m.compressed;
  if (end > zip.length) throw new RangeError('member runs past the end');
  if (m.method === 0) return m.compressed;
  if (m.method !== 8) throw new RangeError(`compression method ${m.method}`);
  return inflateRawSync(zip.subarray(start, end), { maxOutputLength: Math.max(1, cap) }).length;
}

/** Inflates each member (output discarded) with the remaining allowance as a hard cap. */
export function checkZipExpansion(zip: Buffer, maxExpandedBytes: number, maxEntries: number): ZipCheck {
  try {
    const dir = findDirectory(zip);
    if (dir === null) return { ok: false, reason: 'corrupt', detail: 'not a readable zip archive' };
    if (dir.entries > maxEntries) return { ok: false, reason: 'too_large', detail: `more than ${maxEntries} archive members` };
    let total = 0;
    let p = dir.offset;
    for (let n = 0; n < dir.entries; n++) {
      if (p + 46 > zip.length || zip.readUInt32LE(p) !== CENTRAL) return { ok: false, reason: 'corrupt', detail: 'damaged zip directory' };
      const member = readMember(zip, p);
      if ((member.flags & 1) !== 0) return { ok: false, reason: 'corrupt', detail: 'encrypted archive member' };
      total += expandedSize(zip, member, maxExpandedBytes - total);
      if (total > maxExpandedBytes) break;
      p = member.next;
    }
    if (total > maxExpandedBytes) return { ok: false, reason: 'too_large', detail: `expands to more than ${maxExpandedBytes} bytes` };
    return { ok: true, expandedBytes: total, entries: dir.entries };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      return { ok: false, reason: 'too_large', detail: `expands to more than ${maxExpandedBytes} bytes` };
    }
    return { ok: false, reason: 'corrupt', detail: 'damaged zip archive' };
  }
}
