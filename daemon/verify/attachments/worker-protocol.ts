// Messages between the attachment extractor pool and its worker threads.

import type { ExtractLimits, ExtractResult } from './extract.js';

export interface ExtractJob {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly declaredType: string | null;
  readonly limits: ExtractLimits;
}

export interface ExtractReply {
  readonly id: number;
  readonly result: ExtractResult;
}
