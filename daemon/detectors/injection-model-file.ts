// The classifier's weights file (injection-model.json, injection-model-data.json): its format, checked
// against the feature space of injection-model-features.ts, and the model it decodes to. The files
// themselves are read by the module loader (injection-weights.ts) or, in scripts, by the caller.
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { z } from 'zod';
import { FEATURES, WINDOWS } from './injection-model-features.js';

const ModelFileSchema = z.object({
  version: z.literal(1),
  features: z.object({
    buckets: z.literal(FEATURES.buckets),
    hash: z.literal(FEATURES.hash),
    words: z.tuple([z.literal(1), z.literal(2)]),
    chars: z.tuple([z.literal(3), z.literal(5)]),
    maxWordChars: z.literal(FEATURES.maxWordChars),
  }),
  windows: z.object({ unitWords: z.literal(WINDOWS.unitWords), run: z.literal(WINDOWS.run) }),
  bias: z.number(),
  scale: z.number().positive(),
  /** int8 weights (times scale), raw deflate, base64. */
  weights: z.string(),
  thresholds: z.object({ block: z.number().min(0).max(1), flag: z.number().min(0).max(1) }),
  /** Which head: what a user sends, or what a tool returns (absent in files from before the data head: prompt). */
  head: z.enum(['prompt', 'data']).optional(),
  data: z.record(z.string(), z.unknown()),
});
export type ModelFile = z.infer<typeof ModelFileSchema>;

export interface InjectionModel {
  readonly bias: number;
  readonly weights: Float32Array;
  readonly thresholds: { readonly block: number; readonly flag: number };
}

export const MODEL_PATH = fileURLToPath(new URL('../../../daemon/detectors/injection-model.json', import.meta.url));
/** The data head: the same features, trained also on attacks inside tool results and documents. */
export const DATA_MODEL_PATH = fileURLToPath(new URL('../../../daemon/detectors/injection-model-data.json', import.meta.url));

/** A weights file's content (parsed JSON) as a model; throws on any mismatch with this code's feature space. */
export function modelOf(content: unknown): InjectionModel {
  const file = ModelFileSchema.parse(content);
  const bytes = inflateRawSync(Buffer.from(file.weights, 'base64'));
  if (bytes.length !== FEATURES.buckets) throw new Error(`injection model: ${bytes.length} weights, expected ${FEATURES.buckets}`);
  const q = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const weights = new Float32Array(FEATURES.buckets);
  for (let i = 0; i < q.length; i++) weights[i] = q[i]! * file.scale;
  return { bias: file.bias, weights, thresholds: file.thresholds };
}

/** Parses a weights file's text; throws on any mismatch with this code's feature space. */
export function parseModel(json: string): InjectionModel {
  return modelOf(JSON.parse(json));
}

/** modelOf(), its error naming the file (`source`): a daemon that cannot start says which. */
export function modelFrom(content: unknown, source: string): InjectionModel {
  try {
    return modelOf(content);
  } catch (err) {
    throw new Error(`injection model ${source} does not load: ${err instanceof Error ? err.message : String(err)}`);
  }
}
