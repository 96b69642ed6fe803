import NextAuth from "next-auth";
import type { NextFetchEvent, NextRequest } from "next/server";
import { NextResponse } from "next/server";
import { authConfig } from "@/lib/auth/config";
import { getEnv } from "@/lib/env";

// Sends visitors without a valid session to sign in, then back to where they were going. Only a first gate: every
// page, server action and route checks the session and role itself.

const PATH_HEADER = "x-linkdesk-path";

const PUBLIC = [/^\/sign-in(\/|$)/, /^\/api\/auth\//, /^\/api\/health$/];

const { auth } = NextAuth(() => {
  const env = getEnv();
  const base = authConfig({ secret: env.AUTH_SECRET, maxAgeHours: env.SESSION_MAX_AGE_HOURS });
  return {
    ...base,
    callbacks: {
      ...base.callbacks,
      authorized({ auth: session, request }) {
        const { pathname, search } = request.nextUrl;
        if (PUBLIC.some((pattern) => pattern.test(pathname))) return true;
        if (session?.user?.id) {
          // The page's own check (which also knows disabled accounts and ended sessions) sends the person back here.
          const headers = new Headers(request.headers);
          headers.set(PATH_HEADER, `${pathname}${search}`);
          return NextResponse.next({ request: { headers } });
        }
        // Scripts get a status, not a sign-in page.
        if (pathname.startsWith("/api/")) return NextResponse.json({ error: "Sign in first." }, { status: 401 });
        const signIn = new URL("/sign-in", request.nextUrl);
        if (pathname !== "/") signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
        return NextResponse.redirect(signIn);
      },
    },
  };
});

export function proxy(request: NextRequest, event: NextFetchEvent) {
  return (auth as unknown as (req: NextRequest, ev: NextFetchEvent) => Promise<Response>)(request, event);
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|favicon.svg).*)"],
};
