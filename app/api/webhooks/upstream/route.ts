import type { NextRequest } from "next/server";
import { clientAddress } from "@/lib/auth";
import { readBoundedBody } from "@/lib/http/read-bounded";
import { answerWebhook } from "@/lib/webhooks/endpoint";
import { WEBHOOK_BODY_LIMIT_BYTES } from "@/lib/webhooks/receive";

// The upstream's webhooks. In a running dashboard this path is answered beside Next.js, without it
// (lib/webhooks/endpoint.ts, serveWebhooksDirectly); this handler gives the same answers wherever that is not installed
// (a server started another way). No staff session: the signature is the credential (lib/webhooks/verify.ts).
export async function POST(request: NextRequest) {
  const { body, overLimit } = await readBoundedBody(request, WEBHOOK_BODY_LIMIT_BYTES);
  const answer = await answerWebhook({
    body,
    overLimit,
    headers: request.headers,
    sourceAddress: clientAddress(request.headers),
  });
  return Response.json(answer.body, { status: answer.status, headers: answer.headers });
}
