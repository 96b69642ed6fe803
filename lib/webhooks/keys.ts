import "server-only";
import { type CryptoKey, type JWK, importJWK } from "jose";

// The upstream's webhook signing keys (GET /.well-known/jwks.json, upstream-facts §11), kept in this process. The
// facts say a receiver may cache them for up to 24 h and that keys rotate with the old `kid` kept a while: so a known
// `kid` is served from the cache until the set is 24 h old, and an unknown one makes the set be read again, once,
// before the signature is refused. A flood of made-up `kid`s reads the set at most once per REFETCH_COOLDOWN_MS.

/** How long a read of the key set is trusted (facts §11: at most 24 h). */
export const KEYS_MAX_AGE_MS = 24 * 60 * 60_000;
/** Least time between two reads of the set caused by unknown `kid`s. */
export const REFETCH_COOLDOWN_MS = 10_000;

export type KeyLookup = { key: CryptoKey | Uint8Array; refreshed: boolean } | { key: null; reason: string };

export interface WebhookKeySourceOptions {
  fetchKeys: () => Promise<{ keys: Record<string, unknown>[] }>;
  now?: () => number;
  maxAgeMs?: number;
  cooldownMs?: number;
}

export class WebhookKeySource {
  private keys = new Map<string, Promise<CryptoKey | Uint8Array>>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private lastUnknownRefetchAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;
  /** Reads of the key set so far (for tests and the Webhooks page's diagnostics). */
  reads = 0;

  constructor(private readonly options: WebhookKeySourceOptions) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Reads the set again (concurrent callers share the read); a failed read keeps the keys known so far. */
  private refresh(): Promise<void> {
    this.reading ??= (async () => {
      try {
        const { keys } = await this.options.fetchKeys();
        this.reads++;
        const next = new Map<string, Promise<CryptoKey | Uint8Array>>();
        for (const jwk of keys) {
          const kid = typeof jwk.kid === "string" ? jwk.kid : null;
          // Only EC P-256 keys verify ES256; a key of another kind is never a match.
          if (!kid || jwk.kty !== "EC" || jwk.crv !== "P-256") continue;
          const imported = importJWK(jwk as JWK, "ES256");
          imported.catch(() => undefined);
          next.set(kid, imported);
        }
        this.keys = next;
        this.fetchedAt = this.now();
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /** The public key for `kid`, or why there is none. */
  async lookup(kid: string): Promise<KeyLookup> {
    let refreshed = false;
    if (this.now() - this.fetchedAt >= (this.options.maxAgeMs ?? KEYS_MAX_AGE_MS)) {
      try {
        await this.refresh();
        refreshed = true;
      } catch {
        if (this.keys.size === 0)
          return {
            key: null,
            reason: "the upstream's signing keys could not be read (GET /.well-known/jwks.json failed)",
          };
      }
    }
    if (!this.keys.has(kid) && !refreshed && this.reading) {
      // Another request's read of the set is under way: after a rotation the upstream's deliveries in flight all carry
      // the new kid, and the first one's read is theirs too (the cooldown would refuse them all while it runs).
      await this.reading.catch(() => undefined);
      refreshed = true;
    }
    if (
      !this.keys.has(kid) &&
      !refreshed &&
      this.now() - this.lastUnknownRefetchAt >= (this.options.cooldownMs ?? REFETCH_COOLDOWN_MS)
    ) {
      // A key rotated in since the last read: read the set once more before refusing.
      this.lastUnknownRefetchAt = this.now();
      try {
        await this.refresh();
        refreshed = true;
      } catch {
        return {
          key: null,
          reason: `it is signed with key "${kid}", which Linkdesk does not know, and the upstream's signing keys could not be read again`,
        };
      }
    }
    const key = this.keys.get(kid);
    if (!key)
      return {
        key: null,
        reason: `it is signed with key "${kid}", which the upstream's key set (/.well-known/jwks.json) does not list`,
      };
    try {
      return { key: await key, refreshed };
    } catch {
      return { key: null, reason: `the upstream's key "${kid}" is not a usable ES256 public key` };
    }
  }
}
