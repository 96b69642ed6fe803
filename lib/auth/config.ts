import type { NextAuthConfig } from "next-auth";
import { sameOriginPath } from "../http/redirect-target";
import { logger } from "../logger";
import { authLogger } from "./auth-logger";

// The part of the Auth.js configuration that needs no database, shared by the proxy and the full setup in index.ts.
// Sessions are encrypted JWT cookies holding only the staff id, the sign-in time and the mode of the instance that
// issued them; the role is read from the database on every request, so a role change or a disabled account takes
// effect at once and a cookie cannot carry a forged role.

/** The mode of the instance that issued a session: a demo (on the bundled sandbox) or a live one. */
export type SessionIssuer = "demo" | "live";

export function authConfig(opts: {
  secret: string;
  maxAgeHours: number;
  /** UPSTREAM_SANDBOX */ demoMode: boolean;
}): NextAuthConfig {
  const maxAge = Math.round(opts.maxAgeHours * 3600);
  const issuer: SessionIssuer = opts.demoMode ? "demo" : "live";
  return {
    secret: opts.secret,
    trustHost: true,
    // Through the app's log, at each event's level: a wrong password is info, not an error on stderr.
    logger: authLogger(() => logger()),
    pages: { signIn: "/sign-in", error: "/sign-in" },
    session: { strategy: "jwt", maxAge },
    providers: [],
    callbacks: {
      // Every redirect Auth.js makes (after single sign-on, after sign-out, from its own pages) goes through here:
      // a path on Linkdesk's origin (baseUrl: AUTH_URL's origin when set), else the start page. Not the sign-in
      // page's check (safeRedirectPath): signing out goes to /sign-in.
      redirect({ url, baseUrl }) {
        return new URL(sameOriginPath(url, baseUrl) ?? "/", baseUrl).href;
      },
      jwt({ token, user }) {
        if (user?.id) {
          token.sub = user.id;
          token.signedInAt = Date.now();
          token.issuer = issuer;
        }
        // A cookie is only as good as the secret it was sealed with, and a demo may share its secret with a live
        // instance: what a demo issued (its admin included) is nobody here, and the other way round. Cookies from
        // before this claim existed go the same way: their holders sign in once more.
        if (token.issuer !== issuer) return null;
        // A working day, counted from sign-in: activity does not extend it.
        const signedInAt = typeof token.signedInAt === "number" ? token.signedInAt : 0;
        if (Date.now() - signedInAt > maxAge * 1000) return null;
        return token;
      },
      session({ session, token }) {
        if (token.sub) session.user.id = token.sub;
        // The server compares it with the account's sessions_valid_after: signing out ends a session everywhere.
        if (typeof token.signedInAt === "number")
          (session as typeof session & { signedInAt?: number }).signedInAt = token.signedInAt;
        return session;
      },
    },
  };
}
