// The issuer's signing keys, as jose's key lookup for jwtVerify: read from the metadata's jwks_uri,
// kept for ten minutes, read again sooner when a token names a key id the set lacks; never more
// often than the refresh floor, failures included, so a stream of bad tokens cannot make the
// gateway hammer the issuer. While nothing could be read, every token is refused (IssuerUnreachable).
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Logger } from '../log.js';
import { type FetchDeps, fetchJson, IssuerUnreachable } from './guarded-fetch.js';
import { fetchIssuerMetadata, type IssuerMetadata } from './issuer-metadata.js';

/** Keys older than this are read again before use. */
const MAX_AGE_MS = 10 * 60_000;
/** Keys not confirmed for this long (the issuer unreachable meanwhile) are no longer trusted. */
const MAX_STALE_MS = 60 * 60_000;

export class IssuerKeys {
  private metadata: IssuerMetadata | null = null;
  private local: ReturnType<typeof createLocalJWKSet> | null = null;
  private readAt = Number.NEGATIVE_INFINITY;
  private attemptAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | null = null;
  private lastError = 'the issuer has not been read yet';

  constructor(
    private readonly issuer: string,
    private readonly deps: FetchDeps,
    private readonly floorMs: number,
    private readonly log: Logger,
  ) {}

  /** Reads the issuer in the background (at start); a failure is logged and retried on use. */
  start(): Promise<void> {
    return this.refresh();
  }

  /** The issuer's metadata, read once (again on each use while it could not be read). */
  async readMetadata(): Promise<IssuerMetadata> {
    this.metadata ??= await fetchIssuerMetadata(this.deps, this.issuer);
    return this.metadata;
  }

  /** Whether a key set is held now (read within MAX_STALE_MS). */
  ready(now = Date.now()): boolean {
    return this.local !== null && now - this.readAt < MAX_STALE_MS;
  }

  /** jose's key lookup: the key the token's header names, refreshing as described above. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.ready() || Date.now() - this.readAt >= MAX_AGE_MS) await this.refresh();
    if (!this.ready()) throw new IssuerUnreachable(this.lastError);
    try {
      return await this.local!(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey) || !this.mayAttempt()) throw err;
      await this.refresh();
      return this.local!(header, token);
    }
  };

  private mayAttempt(): boolean {
    return Date.now() - this.attemptAt >= this.floorMs;
  }

  private async refresh(): Promise<void> {
    if (!this.pending && this.mayAttempt()) this.pending = this.load().finally(() => (this.pending = null));
    if (this.pending !== null) await this.pending;
  }

  private async load(): Promise<void> {
    this.attemptAt = Date.now();
    try {
      this.metadata ??= await fetchIssuerMetadata(this.deps, this.issuer);
      const doc = await fetchJson(this.deps, this.metadata.jwksUri.href);
      if (doc === null || !Array.isArray(doc.keys)) throw new IssuerUnreachable(`${this.metadata.jwksUri.href}: not a JSON Web Key Set`);
      this.local = createLocalJWKSet(doc as unknown as JSONWebKeySet);
      this.readAt = Date.now();
      this.log.info({ issuer: this.issuer, keys: doc.keys.length }, 'issuer keys read');
    } catch (err) {
      this.lastError = err instanceof IssuerUnreachable ? err.reason : (err as Error).message;
      this.log.warn({ issuer: this.issuer, reason: this.lastError }, 'issuer keys could not be read; tokens are refused until they can');
    }
  }
}
