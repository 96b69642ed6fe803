import "server-only";
import { createHash } from "node:crypto";
import { compactVerify, decodeProtectedHeader, errors as joseErrors } from "jose";
import { z } from "zod";
import type { KeyLookup } from "./keys";

// What makes a webhook the upstream's (upstream-facts §11): `MoneyKit-Signature` is an ES256 JWT whose header names the
// signing key (`kid`, from GET /.well-known/jwks.json) and whose claims hold `request_body_sha256`, the hex SHA-256 of
// the exact bytes received, and `iat`, when it was signed. The body is read as JSON only once its bytes are proven
// the upstream's.
// Time: the upstream retries a delivery it did not get a 2xx for with exponential back-off, keeping its
// webhook_timestamp and idempotency key, and a retry may carry a signature whose `iat` is minutes old (MoneyKit's own
// example verifier refuses only an `iat` in the future). So an `iat` outside WEBHOOK_MAX_AGE_S does not make a
// delivery a forgery: it is the upstream's, but it could be an old delivery replayed, so it is marked late and is
// never applied as an event; the receiver stores it and the link it names is read again from the upstream
// (docs/decisions/webhook-retries.md). A bad signature or body is refused whatever its age.

export const SIGNATURE_HEADER = "moneykit-signature";
export const DELIVERY_TOKEN_HEADER = "moneykit-delivery-token";
export const DELIVERY_ATTEMPT_HEADER = "moneykit-delivery-attempt";

/** The fields every webhook has (facts §11); the rest depends on `webhook_event` and is kept as sent. */
export const webhookEnvelopeSchema = z.looseObject({
  webhook_idempotency_key: z.string().min(1).max(256),
  webhook_timestamp: z.string().refine((value) => !Number.isNaN(Date.parse(value)), "is not a date and time"),
  link_id: z.string().min(1).max(256),
  webhook_event: z.string().min(1).max(128),
  link_tags: z.array(z.string()).optional(),
});

export type WebhookEnvelope = z.infer<typeof webhookEnvelopeSchema>;

export interface VerifiedWebhook {
  envelope: WebhookEnvelope;
  kid: string;
  /** The signature's time. */
  signedAt: Date;
  /**
   * Signed outside the window (a retry after back-off, a replay, or clocks apart), in words; null when within it. The
   * delivery is the upstream's all the same, but it is not applied as an event.
   */
  late: string | null;
}

export type Verification =
  { ok: true; webhook: VerifiedWebhook } | { ok: false; status: 400 | 401; reason: string; kid?: string };

export interface VerifyOptions {
  /** The exact bytes received. */
  body: Uint8Array;
  signature: string | null;
  keyFor: (kid: string) => Promise<KeyLookup>;
  now: Date;
  /** How far `iat` may be from `now`, either way, for the delivery to be applied as an event. */
  maxAgeS: number;
}

// Seconds since 1970, up to the last second of year 9999: beyond, no date (nor the database) can hold it.
const secondsSince1970 = z.number().min(0).max(253_402_300_799);
const claimsSchema = z.looseObject({
  request_body_sha256: z.string(),
  iat: secondsSince1970,
  exp: secondsSince1970.optional(),
  nbf: secondsSince1970.optional(),
});

export async function verifyWebhook({ body, signature, keyFor, now, maxAgeS }: VerifyOptions): Promise<Verification> {
  const refuse = (status: 400 | 401, reason: string, kid?: string): Verification => ({
    ok: false,
    status,
    reason,
    ...(kid ? { kid } : {}),
  });
  const token = signature?.trim();
  if (!token)
    return refuse(401, "No MoneyKit-Signature header: Linkdesk takes webhooks only as the upstream signs them.");

  let kid: string;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== "ES256")
      return refuse(401, `The signature uses ${header.alg ? `algorithm ${header.alg}` : "no algorithm"}, not ES256.`);
    if (typeof header.kid !== "string" || header.kid === "")
      return refuse(401, "The signature names no signing key (no kid in its header).");
    kid = header.kid.slice(0, 200);
  } catch {
    return refuse(401, "The MoneyKit-Signature header is not a signed token (JWT).");
  }

  const found = await keyFor(kid);
  if (!found.key) return refuse(401, `The signature cannot be checked: ${found.reason}.`, kid);

  // The signature alone (jose's own time checks would refuse a late retry before its body could be checked): the
  // claims' times are judged below, once the signature and the body are proven the upstream's.
  let claims: z.infer<typeof claimsSchema>;
  try {
    const verified = await compactVerify(token, found.key, { algorithms: ["ES256"] });
    const parsed = claimsSchema.safeParse(JSON.parse(new TextDecoder().decode(verified.payload)));
    if (!parsed.success)
      return refuse(401, "The signature's claims lack request_body_sha256, or an iat that is a time.", kid);
    claims = parsed.data;
  } catch (error) {
    if (error instanceof joseErrors.JWSSignatureVerificationFailed)
      return refuse(401, `The signature does not verify with key "${kid}".`, kid);
    return refuse(401, "The signature is malformed.", kid);
  }

  const digest = createHash("sha256").update(body).digest("hex");
  if (digest !== claims.request_body_sha256.toLowerCase()) {
    return refuse(
      401,
      "The body is not the one that was signed (its SHA-256 differs from request_body_sha256): altered on the way?",
      kid,
    );
  }

  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return refuse(400, "The body is signed but is not JSON.", kid);
  }
  const envelope = webhookEnvelopeSchema.safeParse(json);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    const field = issue?.path.join(".") || "the body";
    return refuse(
      400,
      `The body is not a webhook: ${field} ${issue?.code === "invalid_type" && issue.input === undefined ? "is missing" : (issue?.message ?? "is not valid")}.`,
      kid,
    );
  }
  const signedAtMs = claims.iat * 1000;
  return {
    ok: true,
    webhook: { envelope: envelope.data, kid, signedAt: new Date(signedAtMs), late: lateness(claims, now, maxAgeS) },
  };
}

/** Why a genuine signature is outside the window, in words; null when it is within. */
function lateness(claims: z.infer<typeof claimsSchema>, now: Date, maxAgeS: number): string | null {
  const nowS = now.getTime() / 1000;
  const when = new Date(claims.iat * 1000).toISOString();
  const ageS = Math.round(nowS - claims.iat);
  if (ageS > maxAgeS)
    return `Signed at ${when}, ${ageS} s before it arrived (more than ${maxAgeS} s): a retry after the upstream's back-off, or an old delivery replayed.`;
  if (-ageS > maxAgeS)
    return `Signed at ${when}, ${-ageS} s ahead of Linkdesk's clock (more than ${maxAgeS} s): one of the two clocks is wrong.`;
  if (claims.exp !== undefined && claims.exp + maxAgeS < nowS)
    return `The signature expired at ${new Date(claims.exp * 1000).toISOString()}.`;
  if (claims.nbf !== undefined && claims.nbf - maxAgeS > nowS)
    return `The signature is not valid before ${new Date(claims.nbf * 1000).toISOString()}.`;
  return null;
}
