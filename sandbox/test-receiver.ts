// Test support (not shipped): a webhook receiver on a free local port that keeps every request as it arrived (headers and exact
// body bytes) and answers with what the test tells it to, and the checks a real receiver makes on a delivery.
import { createHash, createPublicKey, verify, type JsonWebKey } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Record<string, unknown>;
  receivedAt: number;
}

export interface WebhookReceiver {
  url(path?: string): string;
  received: ReceivedWebhook[];
  /** The status (and optional delay) to answer a request with; 200 at once unless set. */
  answer: (request: ReceivedWebhook) => number | Promise<number>;
  /** Resolves once `count` requests (to `path`, if given) have arrived. */
  waitFor(count: number, path?: string, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const receiver: WebhookReceiver = {
    received,
    answer: () => 200,
    url: (path = "/hook") => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    async waitFor(count, path, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter((request) => path === undefined || request.path === path);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline)
          throw new Error(`expected ${count} webhooks${path ? ` at ${path}` : ""}, got ${matching.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const request: ReceivedWebhook = {
        path: req.url ?? "/",
        headers: req.headers,
        rawBody,
        body: JSON.parse(rawBody) as Record<string, unknown>,
        receivedAt: Date.now(),
      };
      received.push(request);
      void Promise.resolve(receiver.answer(request)).then((status) => {
        res.writeHead(status);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return receiver;
}

const fromBase64url = (part: string) => Buffer.from(part, "base64url");

/**
 * What a receiver checks: the JWT's header names an ES256 key in the JWK Set, its signature verifies with that key,
 * and its `request_body_sha256` is the hash of the exact body received. Returns the header and claims.
 */
export function verifyDelivery(
  request: ReceivedWebhook,
  jwks: { keys: (JsonWebKey & { kid?: string })[] },
): { header: { alg: string; kid: string }; claims: { request_body_sha256: string; iat: number } } {
  const token = String(request.headers["moneykit-signature"] ?? "");
  const [headerPart, claimsPart, signaturePart] = token.split(".");
  if (!headerPart || !claimsPart || !signaturePart) throw new Error("MoneyKit-Signature is not a JWT");
  const header = JSON.parse(fromBase64url(headerPart).toString("utf8")) as { alg: string; kid: string };
  const claims = JSON.parse(fromBase64url(claimsPart).toString("utf8")) as { request_body_sha256: string; iat: number };
  if (header.alg !== "ES256") throw new Error(`unexpected alg ${header.alg}`);
  const jwk = jwks.keys.find((key) => key.kid === header.kid);
  if (!jwk) throw new Error(`kid ${header.kid} is not in the JWKS`);
  const key = createPublicKey({ key: jwk, format: "jwk" });
  const valid = verify(
    "sha256",
    Buffer.from(`${headerPart}.${claimsPart}`),
    { key, dsaEncoding: "ieee-p1363" },
    fromBase64url(signaturePart),
  );
  if (!valid) throw new Error("the signature does not verify");
  if (claims.request_body_sha256 !== createHash("sha256").update(request.rawBody).digest("hex"))
    throw new Error("request_body_sha256 does not match the body");
  return { header, claims };
}
