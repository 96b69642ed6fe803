import "server-only";
import { createHash } from "node:crypto";
import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from "jose";
import { z } from "zod";
import type { KeyLookup } from "./keys";

// What makes a webhook the upstream's (upstream-facts §11): `MoneyKit-Signature` is an ES256 JWT whose header names the
// signing key (`kid`, from GET /.well-known/jwks.json) and whose claims hold `request_body_sha256`, the hex SHA-256 of
// the exact bytes received, and `iat`, when it was signed. The upstream signs each attempt afresh, so a genuine
// delivery, first or retried, is always recent: an `iat` outside the window is an old signed body replayed (or a clock
// gone wrong), and is refused. The body is read as JSON only once its bytes are proven the upstream's.

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
}

export type Verification =
  { ok: true; webhook: VerifiedWebhook } | { ok: false; status: 400 | 401; reason: string; kid?: string };

export interface VerifyOptions {
  /** The exact bytes received. */
  body: Uint8Array;
  signature: string | null;
  keyFor: (kid: string) => Promise<KeyLookup>;
  now: Date;
  /** How far `iat` may be from `now`, either way. */
  maxAgeS: number;
}

const claimsSchema = z.looseObject({ request_body_sha256: z.string(), iat: z.number() });

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

  let claims: z.infer<typeof claimsSchema>;
  try {
    const verified = await jwtVerify(token, found.key, {
      algorithms: ["ES256"],
      currentDate: now,
      clockTolerance: maxAgeS,
    });
    const parsed = claimsSchema.safeParse(verified.payload);
    if (!parsed.success) return refuse(401, "The signature's claims lack request_body_sha256 or iat.", kid);
    claims = parsed.data;
  } catch (error) {
    if (error instanceof joseErrors.JWSSignatureVerificationFailed)
      return refuse(401, `The signature does not verify with key "${kid}".`, kid);
    if (error instanceof joseErrors.JWTExpired || error instanceof joseErrors.JWTClaimValidationFailed) {
      return refuse(401, "The signature's time claims are not valid.", kid);
    }
    return refuse(401, "The signature is malformed.", kid);
  }

  const signedAtMs = claims.iat * 1000;
  const skewS = Math.round((now.getTime() - signedAtMs) / 1000);
  if (Math.abs(skewS) > maxAgeS) {
    const when = new Date(signedAtMs).toISOString();
    return refuse(
      401,
      skewS > 0
        ? `The signature was made at ${when}, ${skewS} s ago (more than ${maxAgeS} s): refused as a replay of an old delivery.`
        : `The signature is dated ${when}, ${-skewS} s in the future (more than ${maxAgeS} s): refused.`,
      kid,
    );
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
  return { ok: true, webhook: { envelope: envelope.data, kid, signedAt: new Date(signedAtMs) } };
}
