// Stage 2: the attachments, as load.ts extracted them (worker threads, before the stages). An
// extraction past its deadline is a check that could not run: BLOCKED (fail closed). An attachment
// too large or undecodable is the client's error: 400 validation_error, nothing written.
import { pass } from '../../pipeline/verdict.js';
import { failClosed, stop, type Stage } from './types.js';

export const attachmentsStage: Stage = {
  name: 'attachments',
  run(ctx) {
    const extraction = ctx.extraction;
    if (extraction.ok) return pass({ attachments: extraction.value });
    if (extraction.code === 'validation_error') return extraction;
    return stop(failClosed(extraction.code, null));
  },
};
