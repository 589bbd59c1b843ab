// RFC 8785 (JSON Canonicalization Scheme) serialization: the one byte form that every hash of the
// ledger is computed over, so that daemon, CLI and outside verifiers agree byte for byte.
import canonicalizeImport from 'canonicalize';

const canonicalize = canonicalizeImport as unknown as (value: unknown) => string | undefined;

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized');
  return text;
}
