// Stage 6: nothing uninspected passes silently. An attachment the gateway could not read (image,
// audio, archive, unknown binary) or read only in part reaches the model unscanned: a request that
// would pass is FLAGGED instead, so a reviewer sees it.
import type { ExtractedAttachment } from '../attachments/index.js';
import { pass } from '../../pipeline/verdict.js';
import type { Ruling, Stage } from './types.js';

export function flagUninspected(ruling: Ruling, attachments: readonly ExtractedAttachment[]): Ruling {
  if (ruling.decision !== 'PASSED') return ruling;
  const unread = attachments.find((a) => !a.inspected || a.truncated);
  if (!unread) return ruling;
  return { decision: 'FLAGGED', reasonKey: 'reason.attachment_uninspectable', reasonParams: { type: unread.mime }, policy: null };
}

export const uninspectedStage: Stage = {
  name: 'uninspected',
  run(_ctx, state) {
    return pass({ ruling: flagUninspected(state.ruling!, state.attachments!) });
  },
};
