// The attachment stage of the verify pipeline: base64 payload in, facts and scannable text out.
// No HTTP, no database; the pipeline scans `text` like the prompt and decides what the rest means.
//
// What an attachment is comes from its bytes, never from the client: file-type's magic numbers,
// else our own check (valid UTF-8, or UTF-16 with a BOM, or control-free windows-1252, with no NUL
// is text). Bytes that decode as clean text are scanned as text even when they open with a binary
// signature (file-type calls "BMW ..." a BMP); only the PDF and DOCX signatures outrank that.
// The declared `content_type` is recorded and only breaks ties among text kinds.
//
// Extracted and scanned:
//   plain text, CSV, XML, ics/vcf/vtt/rtf   as they are
//   JSON    every key, string and number, one `key: value` per line (nested PII included);
//           nested deeper than 512 it is scanned as plain text instead
//   HTML    visible text: tags, comments, script and style dropped, entities decoded. Markup the
//           reader does not see (attributes, comments, scripts) is NOT scanned; the note says so
//   PDF     the text layer, by pdf-parse (pdf.js) in a worker thread; a PDF of scanned pages has
//           no text layer and yields '' with a note (no OCR)
//   DOCX    (and docm, dotx, dotm) by mammoth in a worker thread, after the zip-bomb guard
// Reported with their type and `inspected: false`, never scanned:
//   image, audio, video (no OCR or transcription here), archives (members are not unpacked:
//   recursion is where bombs and smuggling live), other document formats (xlsx, pptx, odt, epub,
//   legacy/encrypted Office), unknown binaries.
// Recommendation for the pipeline: nothing uninspected may PASS silently. Image, audio and video
// -> FLAGGED with the content_type; archive and unknown binary -> FLAGGED by default and BLOCKED
// under a strict policy, since their content reaches the model unscanned; `truncated` -> FLAGGED.
//
// Limits (defaults below; all are parameters) and how they hold:
//   count           too_many_attachments, before anything is decoded
//   bytes           per attachment and per request, computed from the base64 length before
//                   decoding -> attachment_too_large
//   extracted text  one character budget per request; text beyond it is cut and `truncated` set
//   time            the daemon's thread only checks base64 and sizes. Sniffing and every extractor
//                   run in a pool of two worker threads; a job past `timeoutMs` (counted from when a
//                   worker takes it; queueing and worker start-up are not charged to the client) has
//                   its worker terminated (pdf.js cannot be cancelled, a thread can) ->
//                   attachment_extraction_timeout. Measured here: pdf.js spent 12 s in one
//                   synchronous stretch on a 200 MB Flate stream; a crafted 5 MB HTML or JSON
//                   file costs 1-5 s of linear work. None of it can stall the event loop
//   memory          worker heap capped at 256 MB (exhaustion -> attachment_too_large); DOCX members
//                   are inflated under a hard cap before mammoth sees them (maxExpandedBytes);
//                   PDF stream expansion is bounded by the deadline (pdf.js inflated ~17 MB/s)
// Bad base64, a damaged or encrypted PDF, a damaged DOCX -> attachment_undecodable.

import { AttachmentError } from './errors.js';
import { decodeBase64, decodedLength, normaliseBase64 } from './base64.js';
import type { AttachmentCategory } from './sniff.js';
import { closeSharedPool, sharedPool } from './worker-pool.js';

export { AttachmentError, type AttachmentErrorCode } from './errors.js';
export { NOT_INSPECTED, type AttachmentCategory } from './sniff.js';

export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
export const MAX_TOTAL_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_EXTRACTED_CHARS = 1_000_000;
export const ATTACHMENT_TIMEOUT_MS = 5_000;
export const MAX_EXPANDED_BYTES = 64 * 1024 * 1024;
export const MAX_ZIP_ENTRIES = 5_000;
export const MAX_PDF_PAGES = 1_000;

export interface AttachmentLimits {
  readonly maxAttachments: number;
  /** Decoded bytes of one attachment. */
  readonly maxAttachmentBytes: number;
  /** Decoded bytes of all attachments of a request. */
  readonly maxTotalBytes: number;
  /** Characters of extracted text for the whole request. */
  readonly maxExtractedChars: number;
  /** Wall-clock budget of one PDF or DOCX extraction, counted from when a worker takes it. */
  readonly timeoutMs: number;
  /** What a DOCX may inflate to, all members together. */
  readonly maxExpandedBytes: number;
  readonly maxZipEntries: number;
  /** Pages of a PDF read; more sets `truncated`. */
  readonly maxPdfPages: number;
}

export const DEFAULT_ATTACHMENT_LIMITS: AttachmentLimits = Object.freeze({
  maxAttachments: MAX_ATTACHMENTS,
  maxAttachmentBytes: MAX_ATTACHMENT_BYTES,
  maxTotalBytes: MAX_TOTAL_ATTACHMENT_BYTES,
  maxExtractedChars: MAX_EXTRACTED_CHARS,
  timeoutMs: ATTACHMENT_TIMEOUT_MS,
  maxExpandedBytes: MAX_EXPANDED_BYTES,
  maxZipEntries: MAX_ZIP_ENTRIES,
  maxPdfPages: MAX_PDF_PAGES,
});

/** What one request has left; shared by its attachments, which are extracted in order. */
export interface AttachmentBudget {
  /** Index the next attachment gets. */
  next: number;
  remainingBytes: number;
  remainingChars: number;
}

export function createAttachmentBudget(limits: AttachmentLimits = DEFAULT_ATTACHMENT_LIMITS): AttachmentBudget {
  return { next: 0, remainingBytes: limits.maxTotalBytes, remainingChars: limits.maxExtractedChars };
}

/** One element of the request's `attachments` (see attachmentSchema in shared/verify-schemas.ts). */
export interface AttachmentInput {
  readonly name?: string | undefined;
  readonly content_type?: string | undefined;
  readonly data: string;
}

export interface ExtractedAttachment {
  readonly index: number;
  readonly name: string | null;
  /** What the client said; informational only. */
  readonly declared_type: string | null;
  /** What the bytes are. */
  readonly mime: string;
  readonly category: AttachmentCategory;
  /** Decoded size in bytes. */
  readonly size: number;
  /** True when `text` holds what the attachment says (possibly cut, see `truncated`). */
  readonly inspected: boolean;
  /** Text to scan like the prompt; null when not inspected. */
  readonly text: string | null;
  /** True when text was cut at the character budget or a PDF's page limit. */
  readonly truncated: boolean;
  readonly note?: string;
}

function decode(input: AttachmentInput, index: number, limits: AttachmentLimits, budget: AttachmentBudget): Buffer {
  const normalised = normaliseBase64(input.data);
  if (normalised === null) throw new AttachmentError('attachment_undecodable', index, 'data is not valid base64');
  const size = decodedLength(normalised);
  if (size > limits.maxAttachmentBytes) {
    throw new AttachmentError('attachment_too_large', index, `larger than ${limits.maxAttachmentBytes} bytes`);
  }
  if (size > budget.remainingBytes) {
    throw new AttachmentError('attachment_too_large', index, `attachments together exceed ${limits.maxTotalBytes} bytes`);
  }
  if (size === 0) throw new AttachmentError('attachment_undecodable', index, 'data is empty');
  budget.remainingBytes -= size;
  return decodeBase64(normalised);
}

// Everything after the size checks runs in a worker under the deadline, sniffing included.
async function inWorker(bytes: Buffer, declared: string | null, index: number, limits: AttachmentLimits, maxChars: number) {
  const job = {
    // A tight copy: a small Buffer is a view into a shared pool, which must not be cloned across.
    bytes: new Uint8Array(bytes),
    declaredType: declared,
    limits: { maxChars, maxPdfPages: limits.maxPdfPages, maxExpandedBytes: limits.maxExpandedBytes, maxZipEntries: limits.maxZipEntries },
  };
  const outcome = await sharedPool().run(job, limits.timeoutMs);
  if (outcome.kind === 'timeout') {
    throw new AttachmentError('attachment_extraction_timeout', index, `extraction took longer than ${limits.timeoutMs} ms`);
  }
  if (outcome.kind === 'crashed') {
    throw outcome.outOfMemory
      ? new AttachmentError('attachment_too_large', index, 'extraction exceeded its memory limit')
      : new AttachmentError('attachment_undecodable', index, 'extraction failed');
  }
  const result = outcome.reply.result;
  if (!result.ok) {
    throw new AttachmentError(result.reason === 'too_large' ? 'attachment_too_large' : 'attachment_undecodable', index, result.detail);
  }
  return result;
}

/**
 * Decodes, sniffs and extracts one attachment. Throws AttachmentError for anything the route
 * should refuse with 400; any other throw is a fault of ours. Call in request order with one
 * budget per request, one attachment at a time (extractAttachments does).
 */
export async function extractAttachment(
  input: AttachmentInput,
  limits: AttachmentLimits,
  budget: AttachmentBudget,
): Promise<ExtractedAttachment> {
  const index = budget.next++;
  if (index >= limits.maxAttachments) {
    throw new AttachmentError('too_many_attachments', index, `at most ${limits.maxAttachments} attachments per request`);
  }
  const bytes = decode(input, index, limits, budget);
  const declared = input.content_type ?? null;
  const { ok: _ok, ...facts } = await inWorker(bytes, declared, index, limits, Math.min(limits.maxExtractedChars, budget.remainingChars));
  budget.remainingChars -= facts.text?.length ?? 0;
  return { index, name: input.name ?? null, declared_type: declared, size: bytes.length, ...facts };
}

/** All attachments of one request, in order, under one budget. */
export async function extractAttachments(
  inputs: readonly AttachmentInput[],
  limits: AttachmentLimits = DEFAULT_ATTACHMENT_LIMITS,
): Promise<ExtractedAttachment[]> {
  if (inputs.length > limits.maxAttachments) {
    throw new AttachmentError('too_many_attachments', limits.maxAttachments, `at most ${limits.maxAttachments} attachments per request`);
  }
  const budget = createAttachmentBudget(limits);
  const out: ExtractedAttachment[] = [];
  for (const input of inputs) out.push(await extractAttachment(input, limits, budget));
  return out;
}

/** Starts the extractor workers ahead of the first request (daemon boot); they load pdf.js, ~1 s. */
export async function warmAttachmentWorkers(): Promise<void> {
  await sharedPool().warm();
}

/** Stops the extractor worker threads (daemon shutdown, test teardown). Idle ones never hold the process open. */
export async function closeAttachmentWorkers(): Promise<void> {
  await closeSharedPool();
}
