// A tiny ONNX text classifier the tests build themselves, so the ONNX backend of the injection
// detector (daemon/models/onnx-classifier.ts) is tested on a real model with no download.
// The graph: input_ids/attention_mask int64 [batch, seq] -> Gather over a one-feature embedding
// table (1 for the trigger words "zebra" and "quokka", else 0) -> times the mask -> ReduceMax over
// the sequence -> MatMul -> Add -> logits [batch, 2]: label 1 "INJECTION" wins wherever a trigger
// word is in the window (p = 0.982), label 0 "BENIGN" elsewhere (p = 0.018). Max pooling makes a
// window's score independent of how much text surrounds the trigger.
//
// The protobuf is written by hand (field numbers from onnx/onnx.proto, given beside each message),
// which is simpler than a protobuf library plus a copy of the schema for seven messages.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

// ---- protobuf wire format: varints, length-delimited fields ----

function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}
/** Field `no` as a varint (wire type 0). */
const int = (no: number, n: number | bigint): Buffer => Buffer.from([...varint((no << 3) | 0), ...varint(n)]);
/** Field `no` as bytes, a string or an embedded message (wire type 2). */
const bytes = (no: number, body: Buffer | string): Buffer => {
  const b = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from([...varint((no << 3) | 2), ...varint(b.length)]), b]);
};
const msg = (...fields: Buffer[]): Buffer => Buffer.concat(fields);

// ---- ONNX messages ----

const FLOAT = 1;
const INT64 = 7;

/** TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian values). */
function tensor(name: string, dims: number[], type: typeof FLOAT | typeof INT64, values: number[]): Buffer {
  const raw = Buffer.alloc(values.length * (type === FLOAT ? 4 : 8));
  values.forEach((v, i) => (type === FLOAT ? raw.writeFloatLE(v, i * 4) : raw.writeBigInt64LE(BigInt(v), i * 8)));
  return msg(...dims.map((d) => int(1, d)), int(2, type), bytes(8, name), bytes(9, raw));
}

/** AttributeProto: name = 1, i = 3, ints = 8, type = 20 (INT = 2, INTS = 7). */
function attrInt(name: string, value: number): Buffer {
  return msg(bytes(1, name), int(3, value), int(20, 2));
}
function attrInts(name: string, values: number[]): Buffer {
  return msg(bytes(1, name), ...values.map((v) => int(8, v)), int(20, 7));
}

/** NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5. */
function node(op: string, inputs: string[], outputs: string[], attributes: Buffer[] = []): Buffer {
  return msg(
    ...inputs.map((i) => bytes(1, i)),
    ...outputs.map((o) => bytes(2, o)),
    bytes(3, `${op}_${outputs[0]}`),
    bytes(4, op),
    ...attributes.map((a) => bytes(5, a)),
  );
}

/**
 * ValueInfoProto (name = 1, type = 2) of a tensor: TypeProto.tensor_type = 1 { elem_type = 1,
 * shape = 2 { dim = 1 { dim_value = 1 | dim_param = 2 } } }.
 */
function valueInfo(name: string, type: number, dims: Array<number | string>): Buffer {
  const shape = msg(...dims.map((d) => bytes(1, typeof d === 'number' ? int(1, d) : bytes(2, d))));
  return msg(bytes(1, name), bytes(2, bytes(1, msg(int(1, type), bytes(2, shape)))));
}

// ---- the model ----

export const TRIGGERS = ['zebra', 'quokka'] as const;
const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
const WORDS = [
  ...'the a an of to and in is it for on with as was at by be this that are from or have please you your can'.split(' '),
  ...'summarise summarize report weather today tomorrow hello world meeting team quarterly points three bullet'.split(' '),
  ...'translate french english write short poem about spring cats dogs garden budget review notes email'.split(' '),
  ...TRIGGERS,
  ...'abcdefghijklmnopqrstuvwxyz0123456789'.split(''),
  ...'abcdefghijklmnopqrstuvwxyz0123456789'.split('').map((c) => `##${c}`),
  ...'.,;:!?\'"()-/'.split(''),
];
export const VOCAB: readonly string[] = [...SPECIAL, ...WORDS];

export interface TinyModelOptions {
  /** Tokens per window the model declares (config.json max_position_embeddings). */
  readonly maxLength?: number;
  /** Labels by class index; the default is BENIGN, INJECTION. */
  readonly labels?: readonly string[];
  /**
   * A model that loads and runs on the special tokens only: its embedding table has one row per
   * special token, so any word's id is out of bounds and onnxruntime's Gather fails at run time.
   */
  readonly broken?: boolean;
  /** Where the model is put: `onnx/model.onnx` as Hugging Face exports lay it out, or `model.onnx`. */
  readonly layout?: 'root' | 'onnx';
}

/** The model's ONNX bytes. */
export function tinyModelBytes(options: TinyModelOptions = {}): Buffer {
  const rows = options.broken ? SPECIAL.length : VOCAB.length;
  const embedding = Array.from({ length: rows }, (_, i) => ((TRIGGERS as readonly string[]).includes(VOCAB[i]!) ? 1 : 0));
  const graph = msg(
    bytes(1, node('Gather', ['embedding', 'input_ids'], ['embedded'])),
    bytes(1, node('Cast', ['attention_mask'], ['mask_f'], [attrInt('to', FLOAT)])),
    bytes(1, node('Unsqueeze', ['mask_f', 'last_axis'], ['mask_3d'])),
    bytes(1, node('Mul', ['embedded', 'mask_3d'], ['masked'])),
    bytes(1, node('ReduceMax', ['masked'], ['pooled'], [attrInts('axes', [1]), attrInt('keepdims', 0)])),
    bytes(1, node('MatMul', ['pooled', 'weight'], ['scaled'])),
    bytes(1, node('Add', ['scaled', 'bias'], ['logits'])),
    bytes(2, 'tiny_injection_classifier'),
    bytes(5, tensor('embedding', [rows, 1], FLOAT, embedding)),
    bytes(5, tensor('last_axis', [1], INT64, [2])),
    bytes(5, tensor('weight', [1, 2], FLOAT, [-4, 4])),
    bytes(5, tensor('bias', [2], FLOAT, [2, -2])),
    bytes(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    bytes(11, valueInfo('attention_mask', INT64, ['batch', 'sequence'])),
    bytes(12, valueInfo('logits', FLOAT, ['batch', 2])),
  );
  // ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 { domain = 1, version = 2 }.
  return msg(int(1, 8), bytes(2, 'governance-gateway tests'), bytes(7, graph), bytes(8, msg(bytes(1, ''), int(2, 13))));
}

/** A BERT-style WordPiece tokenizer.json over VOCAB: lower-cased, [CLS] text [SEP]. */
export function tinyTokenizer(): Record<string, unknown> {
  const id = (t: string) => VOCAB.indexOf(t);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, i) => ({
      id: i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(VOCAB.map((t, i) => [t, i])),
    },
  };
}

/** Writes the model directory (model, tokenizer.json, config.json) into a new temporary folder. */
export async function buildTinyModelDir(options: TinyModelOptions = {}): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-tiny-onnx-'));
  const modelPath = options.layout === 'onnx' ? path.join(dir, 'onnx', 'model.onnx') : path.join(dir, 'model.onnx');
  await fs.mkdir(path.dirname(modelPath), { recursive: true });
  await fs.writeFile(modelPath, tinyModelBytes(options));
  await fs.writeFile(path.join(dir, 'tokenizer.json'), JSON.stringify(tinyTokenizer()));
  const labels = options.labels ?? ['BENIGN', 'INJECTION'];
  const config = {
    architectures: ['TinyInjectionClassifier'],
    max_position_embeddings: options.maxLength ?? 16,
    id2label: Object.fromEntries(labels.map((l, i) => [String(i), l])),
  };
  await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}
