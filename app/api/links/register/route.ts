import type { NextRequest } from "next/server";
import { appendAudit } from "@/lib/audit/append";
import { clientAddress } from "@/lib/auth";
import { getDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { readBoundedBody } from "@/lib/http/read-bounded";
import { logger } from "@/lib/logger";
import {
  AddressRateLimiter,
  REGISTER_BODY_LIMIT_BYTES,
  REGISTER_CALLS_PER_MINUTE,
  handleServiceRegistration,
} from "@/lib/links/service-registration";

const limiter = new AddressRateLimiter(REGISTER_CALLS_PER_MINUTE);

// The product's back end registers the link ids it knows: `Authorization: Bearer <LINKDESK_SERVICE_TOKEN>`, body
// {"link_ids": [...]}. No staff session (proxy.ts lets this path through and caps its body at 1 MB); everything else
// is decided in lib/links/service-registration.ts. See docs/discovery.md.
export async function POST(request: NextRequest) {
  const { body, overLimit } = await readBoundedBody(request, REGISTER_BODY_LIMIT_BYTES);
  const reply = await handleServiceRegistration(
    {
      authorization: request.headers.get("authorization"),
      body,
      overLimit,
      sourceAddress: clientAddress(request.headers),
      now: new Date(),
    },
    {
      token: getEnv().LINKDESK_SERVICE_TOKEN,
      db: async () => (await getDb()).db,
      audit: (record) => appendAudit(record),
      limiter,
      log: logger().child({ component: "link-registration" }),
    },
  );
  return Response.json(reply.body, {
    status: reply.status,
    headers: { "Cache-Control": "no-store", ...reply.headers },
  });
}
