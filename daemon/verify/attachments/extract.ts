// Bytes to findings-ready facts: sniff, pick the extractor, extract within the limits. Runs in
// the extractor worker; the daemon's thread only decodes base64 and checks sizes.

import { docxText, pdfText, type DocumentLimits } from './documents.js';
import { extractHtmlText } from './html.js';
import { extractJsonText } from './json.js';
import { planFor, type AttachmentCategory, type Plan } from './sniff.js';
import { clip } from './text.js';

export type ExtractLimits = DocumentLimits;

export type ExtractResult =
  | {
      ok: true;
      mime: string;
      category: AttachmentCategory;
      inspected: boolean;
      text: string | null;
      truncated: boolean;
      note?: string;
    }
  | { ok: false; reason: 'too_large' | 'undecodable'; detail: string };

const HTML_NOTE = 'html: visible text only; markup, comments, script and style not scanned';
const NO_TEXT_LAYER = 'no_text: the PDF has no text layer (scanned pages are not OCRed)';

function joinNotes(...notes: Array<string | undefined>): string | undefined {
  const present = notes.filter((n): n is string => n !== undefined);
  return present.length === 0 ? undefined : present.join('; ');
}

type Got = { text: string; truncated: boolean; note?: string | undefined };

function fromText(plan: Extract<Plan, { route: 'text' }>, maxChars: number): Got {
  if (plan.kind === 'json') return { ...extractJsonText(plan.text, maxChars), note: plan.note };
  if (plan.kind === 'html') return { ...extractHtmlText(plan.text, maxChars), note: joinNotes(plan.note, HTML_NOTE) };
  return { ...clip(plan.text, maxChars), note: plan.note };
}

export async function extractBytes(bytes: Uint8Array, declaredType: string | null, limits: ExtractLimits): Promise<ExtractResult> {
  const plan = await planFor(bytes, declaredType);
  const facts = { mime: plan.mime, category: plan.category };
  if (plan.route === 'none') return { ok: true, ...facts, inspected: false, text: null, truncated: false, note: plan.note };
  let got: Got;
  if (plan.route === 'text') got = fromText(plan, limits.maxChars);
  else {
    const doc = plan.route === 'pdf' ? await pdfText(bytes, limits) : await docxText(bytes, limits);
    if (!doc.ok) return doc;
    got = plan.route === 'pdf' && doc.text.trim() === '' ? { text: '', truncated: false, note: NO_TEXT_LAYER } : doc;
  }
  const cut = got.truncated
    ? `truncated: text cut at ${got.text.length} characters (extraction limit); the rest is not scanned`
    : undefined;
  const note = joinNotes(got.note, cut);
  return { ok: true, ...facts, inspected: true, text: got.text, truncated: got.truncated, ...(note === undefined ? {} : { note }) };
}
