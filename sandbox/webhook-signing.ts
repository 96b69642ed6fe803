// The keys webhooks are signed with (upstream-facts §11). Each delivery carries `MoneyKit-Signature`: an ES256 JWT
// whose header names the key (`kid`) and whose claims hold the hex SHA-256 of the exact body and the time it was
// signed (`iat`). Receivers fetch the public keys from GET /.well-known/jwks.json and may cache them for up to 24 h, so
// a key replaced by a rotation stays listed for a while (webhookKeyRetentionMs) before it disappears.
import { createHash, generateKeyPairSync, randomBytes, sign, type JsonWebKey, type KeyObject } from "node:crypto";

export interface PublicJwk extends JsonWebKey {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  alg: "ES256";
  use: "sig";
}

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: PublicJwk;
  createdAtMs: number;
  /** Set once a rotation replaced the key; it is listed until retiredAtMs + retention. */
  retiredAtMs: number | null;
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

export function sha256Hex(body: string | Buffer): string {
  return createHash("sha256").update(body).digest("hex");
}

export class SigningKeys {
  private keys: SigningKey[] = [];

  constructor(
    private readonly now: () => number,
    private readonly retentionMs: number,
  ) {
    this.keys.push(this.generate());
  }

  private generate(): SigningKey {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const exported = publicKey.export({ format: "jwk" });
    // Unique across rotations and sandbox restarts, so a receiver's cached key is never mistaken for a new one.
    const kid = `sandbox_${new Date(this.now()).toISOString().slice(0, 10).replace(/-/g, "")}_${randomBytes(6).toString("hex")}`;
    const jwk: PublicJwk = {
      kty: "EC",
      crv: "P-256",
      x: String(exported.x),
      y: String(exported.y),
      kid,
      alg: "ES256",
      use: "sig",
    };
    return { kid, privateKey, jwk, createdAtMs: this.now(), retiredAtMs: null };
  }

  private get current(): SigningKey {
    const key = this.keys[this.keys.length - 1];
    if (!key) throw new Error("no signing key");
    return key;
  }

  get currentKid(): string {
    return this.current.kid;
  }

  /** A new key signs from now on; the one it replaces stays in the JWKS for the retention period. */
  rotate(): { kid: string; retired: string; retiredKeyListedUntil: string } {
    const retired = this.current;
    retired.retiredAtMs = this.now();
    this.keys.push(this.generate());
    this.prune();
    return {
      kid: this.currentKid,
      retired: retired.kid,
      retiredKeyListedUntil: new Date(retired.retiredAtMs + this.retentionMs).toISOString(),
    };
  }

  private prune(): void {
    const now = this.now();
    this.keys = this.keys.filter((key) => key.retiredAtMs === null || key.retiredAtMs + this.retentionMs > now);
  }

  /** The JWK Set: the signing key first, then the retired keys still within their retention. */
  jwks(): { keys: PublicJwk[] } {
    this.prune();
    return { keys: [...this.keys].reverse().map((key) => ({ ...key.jwk })) };
  }

  /** `MoneyKit-Signature` for one body, signed now with the current key. */
  signatureFor(body: string): string {
    const key = this.current;
    const header = base64url(JSON.stringify({ alg: "ES256", typ: "JWT", kid: key.kid }));
    const claims = base64url(
      JSON.stringify({ request_body_sha256: sha256Hex(body), iat: Math.floor(this.now() / 1000) }),
    );
    const signingInput = `${header}.${claims}`;
    // JWS wants the raw r||s pair (64 bytes), not the DER structure Node produces by default.
    const signature = sign("sha256", Buffer.from(signingInput), { key: key.privateKey, dsaEncoding: "ieee-p1363" });
    return `${signingInput}.${base64url(signature)}`;
  }
}
