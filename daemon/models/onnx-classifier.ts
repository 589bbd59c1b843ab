// The injection detector's optional transformer backend: a text classifier the operator provides as
// a local ONNX model directory (GATEWAY_INJECTION_MODEL_DIR, e.g. a Prompt Guard-class model), run
// with onnxruntime-node on the CPU. Nothing is fetched: the directory holds model.onnx (or
// onnx/model.onnx), tokenizer.json (read by @huggingface/tokenizers) and config.json (id2label).
//
// A text's probability is the sum of the softmax probabilities of the labels whose name matches
// INJECTION_LABEL, taken per token window (injection-onnx-windows.ts); its score is the highest window's.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { z } from 'zod';
import { MAX_WINDOW_TOKENS, textWindows, type WindowLayout } from '../detectors/injection-onnx-windows.js';

/** Labels counted as injection; a model none of whose labels match is refused at load. */
export const INJECTION_LABEL = /injection|jailbreak|malicious|unsafe/i;
/** Windows per onnxruntime call: bounds the input tensor to 8 x 512 tokens. */
const BATCH = 8;

export class OnnxModelError extends Error {}
/** The model's run did not finish within the budget (detector_timeout; any other failure is detector_error). */
export class OnnxTimeoutError extends Error {}

export interface OnnxClassifier {
  readonly dir: string;
  readonly labels: readonly string[];
  readonly maxTokens: number;
  /** Each text's injection probability in [0, 1]; rejects (OnnxTimeoutError past `budgetMs`) rather than guess. */
  score(texts: readonly string[], budgetMs: number): Promise<number[]>;
  close(): Promise<void>;
}

const ModelConfig = z.object({
  id2label: z.record(z.string().regex(/^\d+$/), z.string()),
  max_position_embeddings: z.number().int().positive().optional(),
});
const TokenizerConfig = z.object({ model_max_length: z.number().optional() }).passthrough();

async function readJson(dir: string, name: string, optional = false): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, name), 'utf8');
  } catch (err) {
    if (optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new OnnxModelError(`${name} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new OnnxModelError(`${name} is not JSON`);
  }
}

async function modelFile(dir: string): Promise<string> {
  for (const candidate of ['model.onnx', path.join('onnx', 'model.onnx')]) {
    const file = path.join(dir, candidate);
    if (
      await fs.stat(file).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return file;
  }
  throw new OnnxModelError('no model.onnx or onnx/model.onnx in the directory');
}

const INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

/**
 * Loads and checks the model directory, then runs it once on an empty text so a model that cannot
 * run, or answers in another shape than its labels, is refused at start rather than at a request.
 * Throws OnnxModelError with one line naming the problem.
 */
export async function loadOnnxClassifier(dir: string): Promise<OnnxClassifier> {
  const fail = (what: string): never => {
    throw new OnnxModelError(what);
  };
  try {
    if (
      !(await fs.stat(dir).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    )
      fail('not a directory');
    const file = await modelFile(dir);
    const config = ModelConfig.safeParse(await readJson(dir, 'config.json'));
    if (!config.success) fail('config.json has no id2label of class index to label name');
    const { id2label, max_position_embeddings } = config.data!;
    const labels = Object.keys(id2label).map((_, i) => id2label[String(i)] ?? fail(`config.json id2label has no label ${i}`));
    const injection = labels.flatMap((l, i) => (INJECTION_LABEL.test(l) ? [i] : []));
    if (injection.length === 0) fail(`config.json id2label has no label matching ${INJECTION_LABEL.source} (${labels.join(', ')})`);
    const tokConfig = TokenizerConfig.parse(await readJson(dir, 'tokenizer_config.json', true));
    const { Tokenizer } = await import('@huggingface/tokenizers');
    let tokenizer: InstanceType<typeof Tokenizer>;
    try {
      tokenizer = new Tokenizer(await readJson(dir, 'tokenizer.json'), tokConfig);
    } catch (err) {
      if (err instanceof OnnxModelError) throw err;
      return fail(`tokenizer.json is not a tokenizer this gateway reads (${(err as Error).message})`);
    }
    const maxTokens = Math.min(
      MAX_WINDOW_TOKENS,
      max_position_embeddings ?? MAX_WINDOW_TOKENS,
      tokConfig.model_max_length ?? MAX_WINDOW_TOKENS,
    );
    const layout = windowLayout(tokenizer, maxTokens);
    // onnxruntime's native binding is loaded only by a daemon configured with a model.
    const ort = await import('onnxruntime-node');
    let session: InferenceSession;
    try {
      session = await ort.InferenceSession.create(file, { executionProviders: ['cpu'], logSeverityLevel: 4 });
    } catch (err) {
      return fail(`${path.relative(dir, file)} does not load in onnxruntime (${(err as Error).message.split('\n')[0]})`);
    }
    const unknown = session.inputNames.filter((n) => !INPUTS.has(n));
    if (!session.inputNames.includes('input_ids') || unknown.length > 0)
      fail(`the model's inputs (${session.inputNames.join(', ')}) are not input_ids with attention_mask or token_type_ids`);
    const classifier = new Classifier(dir, labels, injection, tokenizer, layout, session, ort.Tensor);
    try {
      await classifier.score([''], 60_000);
    } catch (err) {
      return fail(`the model does not run on an empty text (${(err as Error).message.split('\n')[0]})`);
    }
    return classifier;
  } catch (err) {
    throw new OnnxModelError(`GATEWAY_INJECTION_MODEL_DIR ${dir}: ${(err as Error).message.split('\n')[0]}`);
  }
}

interface Tokenizes {
  encode(text: string, options?: { add_special_tokens?: boolean }): { ids: number[] };
  token_to_id(token: string): number | undefined;
}

/** The special tokens around a window ([CLS] ... [SEP], <s> ... </s>), learnt from the tokenizer itself. */
function windowLayout(tokenizer: Tokenizes, maxTokens: number): WindowLayout {
  const bare = tokenizer.encode('x', { add_special_tokens: false }).ids;
  const full = tokenizer.encode('x', { add_special_tokens: true }).ids;
  let at = 0;
  while (at + bare.length <= full.length && bare.some((id, i) => full[at + i] !== id)) at++;
  if (bare.length === 0 || at + bare.length > full.length) throw new OnnxModelError('tokenizer.json: cannot tell its special tokens');
  const prefix = full.slice(0, at);
  const suffix = full.slice(at + bare.length);
  const padId = ['[PAD]', '<pad>', '<|pad|>'].map((t) => tokenizer.token_to_id(t)).find((id) => id !== undefined) ?? 0;
  if (maxTokens - prefix.length - suffix.length < 8) throw new OnnxModelError(`a window of ${maxTokens} tokens leaves no room for text`);
  return { prefix, suffix, padId, maxTokens };
}

type TensorCtor = new (type: 'int64', data: BigInt64Array, dims: readonly number[]) => Tensor;

class Classifier implements OnnxClassifier {
  readonly maxTokens: number;
  constructor(
    readonly dir: string,
    readonly labels: readonly string[],
    private readonly injection: readonly number[],
    private readonly tokenizer: Tokenizes,
    private readonly layout: WindowLayout,
    private readonly session: InferenceSession,
    private readonly Tensor: TensorCtor,
  ) {
    this.maxTokens = layout.maxTokens;
  }

  async score(texts: readonly string[], budgetMs: number): Promise<number[]> {
    const deadline = performance.now() + budgetMs;
    const out: number[] = [];
    for (const text of texts) {
      const windows = textWindows(text, (t) => this.tokenizer.encode(t, { add_special_tokens: false }).ids, this.layout);
      let best = 0;
      for (let i = 0; i < windows.length; i += BATCH) {
        for (const p of await this.run(windows.slice(i, i + BATCH), deadline)) best = Math.max(best, p);
      }
      out.push(best);
    }
    return out;
  }

  /** One onnxruntime call over a batch of windows (padded to the longest), each window's probability. */
  private async run(windows: readonly number[][], deadline: number): Promise<number[]> {
    const width = Math.max(...windows.map((w) => w.length));
    const ids = new BigInt64Array(windows.length * width).fill(BigInt(this.layout.padId));
    const mask = new BigInt64Array(windows.length * width);
    windows.forEach((w, r) =>
      w.forEach((id, c) => {
        ids[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      }),
    );
    const dims = [windows.length, width];
    const all: Record<string, Tensor> = {
      input_ids: new this.Tensor('int64', ids, dims),
      attention_mask: new this.Tensor('int64', mask, dims),
      token_type_ids: new this.Tensor('int64', new BigInt64Array(ids.length), dims),
    };
    const feeds = Object.fromEntries(this.session.inputNames.map((n) => [n, all[n]!]));
    const left = deadline - performance.now();
    if (left <= 0) throw new OnnxTimeoutError('injection model past its budget');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new OnnxTimeoutError('injection model past its budget')), left);
    });
    try {
      const result = await Promise.race([this.session.run(feeds), late]);
      return this.probabilities(result[this.session.outputNames[0]!]!, windows.length);
    } finally {
      clearTimeout(timer);
    }
  }

  private probabilities(logits: Tensor, rows: number): number[] {
    const n = this.labels.length;
    if (logits.type !== 'float32' || logits.dims.length !== 2 || logits.dims[0] !== rows || logits.dims[1] !== n)
      throw new Error(`the model answered ${logits.type} [${logits.dims.join(', ')}], not float32 [${rows}, ${n}] logits`);
    const data = logits.data as Float32Array;
    const out: number[] = [];
    for (let r = 0; r < rows; r++) {
      const row = data.subarray(r * n, (r + 1) * n);
      const top = Math.max(...row);
      const exp = Array.from(row, (v) => Math.exp(v - top));
      const sum = exp.reduce((a, b) => a + b, 0);
      out.push(this.injection.reduce((a, i) => a + exp[i]!, 0) / sum);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
