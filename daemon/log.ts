// The one pino root logger: JSON to stdout for journald, secrets and prompt text redacted once here.
import { pino, type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.authorization',
  'token',
  '*.token',
  'key',
  '*.key',
  'api_key',
  '*.api_key',
  'password',
  '*.password',
  'prompt',
  '*.prompt',
  'body',
  '*.body',
  'arguments',
  '*.arguments',
  'auth_config',
  '*.auth_config',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gatewayd' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination as pino.DestinationStream | undefined,
  );
}

export type { Logger };
