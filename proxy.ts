import NextAuth from "next-auth";
import type { NextFetchEvent, NextRequest } from "next/server";
import { NextResponse } from "next/server";
import { authConfig } from "@/lib/auth/config";
import { getEnv, isDevelopmentServer } from "@/lib/env";
import { BODY_TICKET_HEADER, abandonRequestBody } from "@/lib/http/body-cap";
import { rewriteClientAddress } from "@/lib/http/client-address";
import { contentSecurityPolicy, newNonce } from "@/lib/http/content-security-policy";
import { START_PAGE, safeRedirectPath } from "@/lib/http/redirect-target";
import { imageOrigins } from "@/lib/http/safe-url";
import { strictTransportSecurity } from "@/lib/http/strict-transport-security";
import { type Refusal, checkRequestBody, checkRequestHead } from "@/lib/http/request-guard";
import { unreadableAddress } from "@/lib/http/storable-input";

// The door every page, server action and route handler is reached through:
// 1. refuses, in words, an address it cannot read (a malformed %-escape, a NUL: lib/http/storable-input.ts), and
//    requests that change something but come from another site or declare a body over the limit
//    (lib/http/request-guard.ts);
// 2. sends visitors without a valid session to sign in, then back to where they were going. Only a first gate: every
//    page, server action and route checks the session and role itself;
// 3. only then reads a body, up to the limit and no further, and refuses one Linkdesk will not read; a body sent
//    without a session to a page that needs one is never read (lib/http/body-cap.ts drops it as it arrives);
// 4. rewrites what the app may believe about the request: the client's address (TRUSTED_PROXY_HOPS), and the
//    Content-Security-Policy with this request's nonce, which Next.js reads to mark its own scripts; and sends
//    Strict-Transport-Security when Linkdesk's public URL is https.

const PATH_HEADER = "x-linkdesk-path";
const NONCE_HEADER = "x-nonce";

// The webhook receiver and the back end's link registration have credentials of their own (a signature, a service
// token), checked by their route handlers; so does Auth.js.
const PUBLIC = [
  /^\/sign-in(\/|$)/,
  /^\/api\/auth\//,
  /^\/api\/health$/,
  /^\/api\/ready$/,
  /^\/api\/webhooks\/upstream$/,
  /^\/api\/links\/register$/,
];

const { auth } = NextAuth(() => {
  const env = getEnv();
  return authConfig({
    secret: env.AUTH_SECRET,
    maxAgeHours: env.SESSION_MAX_AGE_HOURS,
    demoMode: env.UPSTREAM_SANDBOX,
  });
});

type AuthedRequest = NextRequest & { auth: { user?: { id?: string } } | null };

const guarded = auth(async (request: AuthedRequest) => {
  const env = getEnv();
  const nonce = newNonce();
  const policy = contentSecurityPolicy(nonce, {
    development: isDevelopmentServer,
    formTargets: env.AUTH_OIDC_ISSUER ? [new URL(env.AUTH_OIDC_ISSUER).origin] : [],
    imageOrigins: imageOrigins(env.UPSTREAM_BASE_URL, env.UPSTREAM_IMAGE_ORIGINS),
  });
  const { pathname, search } = request.nextUrl;
  const isApi = pathname.startsWith("/api/");

  const refuse = (refusal: Refusal) => {
    abandonRequestBody(request.headers);
    const response = isApi
      ? NextResponse.json({ error: refusal.message }, { status: refusal.status })
      : // Exactly text/plain: Next.js then shows the words to the person whose action was refused.
        new NextResponse(refusal.message, { status: refusal.status, headers: { "Content-Type": "text/plain" } });
    return withPolicy(response, policy);
  };

  const unreadable = unreadableAddress(pathname, search);
  if (unreadable) return refuse({ status: 400, message: unreadable });
  const refusal = checkRequestHead(request, pathname);
  if (refusal) return refuse(refusal);

  const signedIn = Boolean(request.auth?.user?.id);
  if (!signedIn && !PUBLIC.some((pattern) => pattern.test(pathname))) {
    abandonRequestBody(request.headers);
    // Scripts get a status, not a sign-in page.
    if (isApi) return withPolicy(NextResponse.json({ error: "Sign in first." }, { status: 401 }), policy);
    const signIn = new URL("/sign-in", request.nextUrl);
    const back = safeRedirectPath(`${pathname}${search}`);
    if (back !== START_PAGE) signIn.searchParams.set("callbackUrl", back);
    return withPolicy(NextResponse.redirect(signIn), policy);
  }

  const bodyRefusal = await checkRequestBody(request, pathname);
  if (bodyRefusal) return refuse(bodyRefusal);

  const headers = new Headers(request.headers);
  headers.delete(BODY_TICKET_HEADER);
  rewriteClientAddress(headers, env.TRUSTED_PROXY_HOPS);
  headers.set("Content-Security-Policy", policy);
  headers.set(NONCE_HEADER, nonce);
  // The page's own check (which also knows disabled accounts and ended sessions) sends the person back here.
  if (signedIn) headers.set(PATH_HEADER, `${pathname}${search}`);
  else headers.delete(PATH_HEADER);
  return withPolicy(NextResponse.next({ request: { headers } }), policy);
});

function withPolicy(response: NextResponse, policy: string): NextResponse {
  response.headers.set("Content-Security-Policy", policy);
  // HSTS when the public URL (AUTH_URL) is https.
  const hsts = strictTransportSecurity(getEnv().AUTH_URL);
  if (hsts) response.headers.set("Strict-Transport-Security", hsts);
  return response;
}

type Proxy = (request: NextRequest, event: NextFetchEvent) => Promise<Response>;

export async function proxy(request: NextRequest, event: NextFetchEvent) {
  // With a lazily configured Auth.js, wrapping a handler resolves to the wrapped handler.
  return ((await guarded) as unknown as Proxy)(request, event);
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|favicon.svg).*)"],
};
