// PDF and DOCX to text, with pdf-parse (pdf.js) and mammoth. Loaded only inside the extractor
// worker: both run synchronous stretches a crafted file can make long.

import mammoth from 'mammoth';
import { PDFParse, PasswordException, VerbosityLevel } from 'pdf-parse';
import { clip } from './text.js';
import { checkZipExpansion } from './zip-guard.js';

export type DocumentText =
  | { ok: true; text: string; truncated: boolean }
  | { ok: false; reason: 'too_large' | 'undecodable'; detail: string };

export interface DocumentLimits {
  readonly maxChars: number;
  readonly maxPdfPages: number;
  readonly maxExpandedBytes: number;
  readonly maxZipEntries: number;
}

/**
 * Loads pdf.js's parser half (it imports lazily, on the first document) by opening an empty
 * document, so that cost lands in worker start-up rather than in an attachment's deadline.
 */
export async function warmPdf(): Promise<void> {
  await pdfText(new TextEncoder().encode('%PDF-1.4\n%%EOF\n'), { maxChars: 0, maxPdfPages: 1, maxExpandedBytes: 0, maxZipEntries: 0 });
}

export async function pdfText(bytes: Uint8Array, limits: DocumentLimits): Promise<DocumentText> {
  const parser = new PDFParse({
    data: bytes,
    verbosity: VerbosityLevel.ERRORS,
    isEvalSupported: false,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  try {
    const result = await parser.getText({ first: limits.maxPdfPages, pageJoiner: '' });
    const clipped = clip(result.text, limits.maxChars);
    return { ok: true, text: clipped.text, truncated: clipped.truncated || result.total > limits.maxPdfPages };
  } catch (err) {
    if (err instanceof PasswordException) return { ok: false, reason: 'undecodable', detail: 'the PDF is encrypted' };
    return { ok: false, reason: 'undecodable', detail: 'the PDF is damaged or not a PDF' };
  } finally {
    await parser.destroy().catch(() => {});
  }
}

export async function docxText(bytes: Uint8Array, limits: DocumentLimits): Promise<DocumentText> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const check = checkZipExpansion(buffer, limits.maxExpandedBytes, limits.maxZipEntries);
  if (!check.ok) {
    return check.reason === 'too_large'
      ? { ok: false, reason: 'too_large', detail: `the DOCX ${check.detail}` }
      : { ok: false, reason: 'undecodable', detail: `the DOCX is damaged (${check.detail})` };
  }
  try {
    const result = await mammoth.extractRawText({ buffer });
    return { ok: true, ...clip(result.value, limits.maxChars) };
  } catch {
    return { ok: false, reason: 'undecodable', detail: 'the DOCX is damaged or has no document part' };
  }
}
