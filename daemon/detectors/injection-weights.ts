// The classifier's two shipped heads (scripts/train-injection.mjs writes them): data modules, read by
// the module loader with the code itself, checked against this code's feature space at import, so a
// file that does not load stops the daemon at start naming it. The prompt head reads what a user
// sends; the data head what the model will read (a tool's result, an attachment).
import promptHead from './injection-model.json' with { type: 'json' };
import dataHead from './injection-model-data.json' with { type: 'json' };
import { DATA_MODEL_PATH, MODEL_PATH, modelFrom, type InjectionModel } from './injection-model-file.js';

const PROMPT = modelFrom(promptHead, MODEL_PATH);
const DATA = modelFrom(dataHead, DATA_MODEL_PATH);

/** The shipped prompt head. */
export const shippedModel = (): InjectionModel => PROMPT;
/** The shipped data head. */
export const shippedDataModel = (): InjectionModel => DATA;
