// What an attachment is, from its bytes: file-type's magic-number verdict, else our own text
// check. The answer is a plan: which extractor runs, or why nothing does.

import { fileTypeFromBuffer } from 'file-type';
import { classifyText, decodeText, TEXT_MIME, type TextKind } from './text.js';

export type AttachmentCategory = 'text' | 'document' | 'image' | 'audio' | 'video' | 'archive' | 'other';

export type Plan =
  | { route: 'text'; mime: string; category: 'text' | 'document'; kind: TextKind; text: string; note?: string }
  | { route: 'pdf' | 'docx'; mime: string; category: 'document' }
  | { route: 'none'; mime: string; category: AttachmentCategory; note: string };

export const NOT_INSPECTED: Readonly<Record<AttachmentCategory, string>> = {
  image: 'not_inspected: image content is not scanned (no OCR)',
  audio: 'not_inspected: audio content is not scanned (no transcription)',
  video: 'not_inspected: video content is not scanned',
  archive: 'not_inspected: archive members are not unpacked or scanned',
  document: 'not_inspected: text extraction is not supported for this document format',
  other: 'not_inspected: binary content of an unrecognised or unsupported type',
  text: 'not_inspected: the text could not be decoded',
};

const DOCX_FAMILY = new Set(['docx', 'docm', 'dotx', 'dotm']);
// Formats file-type recognises that are text underneath: they keep file-type's media type.
const TEXT_FORMATS = new Set(['xml', 'ics', 'vcf', 'vtt', 'rtf', 'reg', 'ps', 'eps']);
const DOCUMENTS = new Set([
  'pdf',
  'docx',
  'docm',
  'dotx',
  'dotm',
  'xlsx',
  'xlsm',
  'xltx',
  'xltm',
  'pptx',
  'pptm',
  'potx',
  'potm',
  'ppsx',
  'ppsm',
  'vsdx',
  'odt',
  'ods',
  'odp',
  'odg',
  'ott',
  'ots',
  'otp',
  'otg',
  'epub',
  'mobi',
  'rtf',
  'cfb',
  'chm',
  'ps',
  'eps',
  'indd',
]);
const ARCHIVES = new Set([
  'zip',
  'tar',
  'rar',
  'gz',
  'bz2',
  '7z',
  'xz',
  'zst',
  'lz4',
  'lz',
  'lzh',
  'Z',
  'cab',
  'arj',
  'cpio',
  'ace',
  'ar',
  'deb',
  'rpm',
  'dmg',
  'jar',
  'apk',
  'xpi',
  'crx',
  'asar',
  'tar.gz',
]);

function categoryOf(ext: string, mime: string): AttachmentCategory {
  if (DOCUMENTS.has(ext)) return 'document';
  if (ARCHIVES.has(ext)) return 'archive';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('audio/')) return 'audio';
  if (mime.startsWith('video/')) return 'video';
  return 'other';
}

// file-type guards its own reads, but a parser fault on hostile bytes must not end the request.
async function magic(bytes: Uint8Array): Promise<{ ext: string; mime: string } | undefined> {
  try {
    return await fileTypeFromBuffer(bytes);
  } catch {
    return undefined;
  }
}

function textPlan(text: string, declaredType: string | null, found: { ext: string; mime: string } | undefined): Plan {
  const kind = classifyText(text, declaredType, found?.ext === 'xml');
  if (found !== undefined && TEXT_FORMATS.has(found.ext)) {
    // Keep file-type's name for the text formats it knows, except XHTML, which opens like XML.
    const mime = kind === 'html' ? TEXT_MIME.html : found.mime;
    const category = DOCUMENTS.has(found.ext) ? 'document' : 'text';
    return { route: 'text', mime, category, kind: found.ext === 'xml' ? kind : 'plain', text };
  }
  const plan: Plan = { route: 'text', mime: TEXT_MIME[kind], category: 'text', kind, text };
  return found === undefined ? plan : { ...plan, note: `sniffed: opens like ${found.ext} but is text` };
}

/**
 * PDF and DOCX go to their extractors. Otherwise bytes that decode as clean text are text, even
 * when they open with a binary signature: file-type calls "BMW ..." a BMP and "ID3 ..." an MP3 on
 * their first bytes alone, and trusting that would let any text skip the scan behind two letters.
 */
export async function planFor(bytes: Uint8Array, declaredType: string | null): Promise<Plan> {
  const found = await magic(bytes);
  if (found?.ext === 'pdf') return { route: 'pdf', mime: found.mime, category: 'document' };
  if (found !== undefined && DOCX_FAMILY.has(found.ext)) return { route: 'docx', mime: found.mime, category: 'document' };
  const text = decodeText(bytes);
  if (text !== null) return textPlan(text, declaredType, found);
  if (found === undefined) return { route: 'none', mime: 'application/octet-stream', category: 'other', note: NOT_INSPECTED.other };
  const category = categoryOf(found.ext, found.mime);
  return { route: 'none', mime: found.mime, category, note: NOT_INSPECTED[category] };
}
