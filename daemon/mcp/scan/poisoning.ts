// Local, explainable tool-poisoning heuristics run by the scan. Each finding names its heuristic
// (`code`), says what it saw (`detail`) and where: 'name', 'title', 'annotations.title', 'description', 'inputSchema'
// (the schema as a whole) or 'inputSchema.' + an RFC 6901 pointer. A tool with any finding is a
// poisoning suspect. Pure: no I/O, never throws on what a server sent. Text is read by
// poisoning-text.ts, the input schema walked by poisoning-schema.ts; the data is poisoning-phrases.ts
// and poisoning-rules.ts; whether a URL is an exfiltration risk is poisoning-urls.ts, whether the
// input schema compiles schema-validity.ts.
//
// Heuristics:
//   instruction_*            phrases aimed at the model (PHRASE_RULES, several languages) in the name-free
//                            text a model reads: title, description, and every string and key of the
//                            input schema (description, title, default, enum, examples, const, $comment,
//                            custom keywords ...) except identifiers ($schema, $id, $ref, format, pattern).
//                            Also run on text hidden in tag characters.
//   instruction_sensitive_access  additionally: a secret-holding path (SENSITIVE_PATH) next to an
//                            access verb in prose, or anywhere in a schema value (default/const/enum/examples).
//   instruction_exfiltration additionally: an e-mail address (not a reserved example domain) shortly
//                            after send/forward/cc/bcc.
//   unicode_tag_characters, zero_width_characters, bidi_control_characters, variation_selector_run
//                            hidden Unicode anywhere, the name included. Not counted: a zero-width joiner
//                            inside an emoji sequence, ZWJ/ZWNJ between letters of a non-Latin script, a
//                            leading BOM, LRM/RLM/ALM in text that has right-to-left letters.
//   exfiltration_url         URLs in prose and schema values. Docs links are not flagged: an https URL is
//                            a finding only if its host catches requests (CAPTURE_HOSTS, chat webhooks),
//                            is a raw non-loopback IP address, it carries credentials, or a placeholder or
//                            query key looks like data ({contents}, ?token=YOUR_TOKEN). Plain http (or ws,
//                            ftp) to a non-loopback host is a finding. In a schema default/const of a
//                            destination-like parameter (webhook_url, callback, report_endpoint) any real
//                            URL is a finding. RFC 2606 example domains are never findings.
//   tool_shadowing           the name equals another server's tool name, exactly or after normalisation
//                            (NFKC, invisibles dropped, look-alikes folded, case and separators ignored).
//   confusable_name          the name uses look-alike letters (Cyrillic 'ѕ' for 's').
//   description_changed      the description differs from the one recorded at the last scan.
//   invalid_input_schema     ajv 8 cannot compile the input schema (JSON Schema 2020-12 unless it declares
//                            draft-07 or 2019-09, which the SDKs emit), or its root type is not object.
//   scan_truncated           the schema or description exceeds LIMITS (depth, nodes, text, subschemas to
//                            compile), so part of it went unread or unchecked: fails closed.
import { clip, LIMITS, type PoisoningFinding } from './poisoning-finding.js';
import { fold, hiddenUnicode, normaliseToolName, textFindings } from './poisoning-text.js';
import { schemaValidity, walkSchema } from './poisoning-schema.js';

export { LIMITS, POISONING_CODES, type PoisoningCode, type PoisoningFinding } from './poisoning-finding.js';
export { normaliseToolName } from './poisoning-text.js';

export interface PoisoningContext {
  /** Names of the tools of the project's other servers. */
  readonly otherServersToolNames: ReadonlySet<string>;
  /** The description recorded at the last scan; null or absent when there is none to compare with (a new tool). */
  readonly previousDescription?: string | null;
}

export interface PoisonableTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Only its `title` is text a model may be shown; the hints are the classifier's business. */
  readonly annotations?: Readonly<Record<string, unknown>>;
}

// ---- the tool ----

function nameFindings(name: string, others: ReadonlySet<string>): PoisoningFinding[] {
  const out = hiddenUnicode(name, 'name');
  const nfkc = name.normalize('NFKC').toLowerCase();
  const folded = fold(nfkc);
  if (folded !== nfkc) out.push({ code: 'confusable_name', where: 'name', detail: clip(`"${name}" reads as "${folded}"`) });
  if (others.has(name)) {
    out.push({ code: 'tool_shadowing', where: 'name', detail: clip(`another server has a tool named "${name}"`) });
  } else {
    const mine = normaliseToolName(name);
    for (const other of others) {
      if (mine !== '' && normaliseToolName(other) === mine) {
        out.push({
          code: 'tool_shadowing',
          where: 'name',
          detail: clip(`"${name}" matches another server's "${other}" after normalisation`),
        });
        break;
      }
    }
  }
  return out;
}

export function poisoningFindings(tool: PoisonableTool, context: PoisoningContext): PoisoningFinding[] {
  const all: PoisoningFinding[] = [...nameFindings(tool.name, context.otherServersToolNames)];
  if (typeof tool.title === 'string') all.push(...textFindings(tool.title, 'title', 'prose'));
  if (typeof tool.annotations?.title === 'string') all.push(...textFindings(tool.annotations.title, 'annotations.title', 'prose'));
  if (typeof tool.description === 'string') {
    const text = tool.description.slice(0, LIMITS.maxTextChars);
    all.push(...textFindings(text, 'description', 'prose'));
    if (tool.description.length > LIMITS.maxTextChars)
      all.push({
        code: 'scan_truncated',
        where: 'description',
        detail: `description longer than ${LIMITS.maxTextChars} characters; the rest was not read`,
      });
  }
  const previous = context.previousDescription;
  if (typeof previous === 'string' && previous !== (tool.description ?? '')) {
    all.push({
      code: 'description_changed',
      where: 'description',
      detail: `description changed since the last scan (${previous.length} -> ${(tool.description ?? '').length} characters)`,
    });
  }
  const { truncated, subschemas } = walkSchema(tool.inputSchema, all);
  if (truncated)
    all.push({
      code: 'scan_truncated',
      where: 'inputSchema',
      detail: `${truncated}; the rest was not read and the schema was not compiled`,
    });
  else if (subschemas > LIMITS.maxCompiledSubschemas)
    all.push({
      code: 'scan_truncated',
      where: 'inputSchema',
      detail: `${subschemas} subschemas, more than ${LIMITS.maxCompiledSubschemas}: not compiled`,
    });
  else all.push(...schemaValidity(tool.inputSchema));
  const seen = new Set<string>();
  return all
    .filter((f) => {
      const key = `${f.code}\u0000${f.where}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, LIMITS.maxFindings);
}

export const isPoisoningSuspect = (findings: readonly PoisoningFinding[]): boolean => findings.length > 0;
