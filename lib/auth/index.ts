import "server-only";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import NextAuth, { CredentialsSignin, type Session } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { headers } from "next/headers";
import { cache } from "react";
import { appendAudit } from "../audit/append";
import { getDb } from "../db/client";
import { type AuthSource, staff } from "../db/schema";
import { type Env, getEnv } from "../env";
import { clientAddressOf } from "../http/client-address";
import { signInSchema } from "../schemas/auth";
import { authConfig } from "./config";
import { type SignedInStaff, verifyCredentials } from "./credentials";
import { isRole } from "./roles";
import { sessionStands } from "./session";
import { decideSso } from "./sso";

/** Refused sign-in; `code` tells the sign-in action which message to show (never whether the email exists). */
export class SignInRefused extends CredentialsSignin {
  constructor(
    code: "invalid" | "locked",
    readonly until?: Date,
  ) {
    super();
    this.code = until ? `locked:${until.getTime()}` : code;
  }
}

/**
 * The client's address for the sign-in throttle and the audit trail: the connection's, or the one our own reverse
 * proxies vouch for (TRUSTED_PROXY_HOPS). proxy.ts rewrites the forwarding headers before this reads them.
 */
export function clientAddress(h: Pick<Headers, "get">): string | null {
  return clientAddressOf(h);
}

const oidcEnabled = (env: Env) =>
  Boolean(env.AUTH_OIDC_ISSUER && env.AUTH_OIDC_CLIENT_ID && env.AUTH_OIDC_CLIENT_SECRET);

// Configured lazily (a function), so building the app needs no runtime configuration.
export const { handlers, auth, signIn, signOut } = NextAuth(() => {
  const env = getEnv();
  const base = authConfig({
    secret: env.AUTH_SECRET,
    maxAgeHours: env.SESSION_MAX_AGE_HOURS,
    demoMode: env.UPSTREAM_SANDBOX,
  });
  return {
    ...base,
    providers: [
      Credentials({
        credentials: { email: { type: "email" }, password: { type: "password" } },
        async authorize(raw, request) {
          const parsed = signInSchema.safeParse(raw);
          if (!parsed.success) throw new SignInRefused("invalid");
          const { db } = await getDb();
          const result = await verifyCredentials(parsed.data.email, parsed.data.password, {
            db,
            ip: clientAddress(request.headers),
            demoMode: env.UPSTREAM_SANDBOX,
          });
          if (!result.ok) throw new SignInRefused(result.reason, result.reason === "locked" ? result.until : undefined);
          return { id: result.staff.id, email: result.staff.email, name: result.staff.name };
        },
      }),
      ...(oidcEnabled(env)
        ? [
            {
              id: "oidc",
              name: env.AUTH_OIDC_NAME,
              type: "oidc" as const,
              issuer: env.AUTH_OIDC_ISSUER,
              clientId: env.AUTH_OIDC_CLIENT_ID,
              clientSecret: env.AUTH_OIDC_CLIENT_SECRET,
            },
          ]
        : []),
    ],
    callbacks: {
      ...base.callbacks,
      async signIn({ account, profile }) {
        if (account?.provider !== "oidc") return true;
        const decision = decideSso(
          { allowedDomains: env.AUTH_OIDC_ALLOWED_DOMAINS, defaultRole: env.AUTH_OIDC_DEFAULT_ROLE },
          profile ?? {},
        );
        const { db } = await getDb();
        const ip = clientAddress(await headers());
        const correlationId = randomUUID();
        if (!decision.admit) {
          await appendAudit(
            {
              actor: { id: null, email: profile?.email ?? null, role: null },
              action: "auth.sign_in",
              outcome: "refused",
              correlationId,
              input: { provider: "oidc", reason: decision.reason },
              ip,
            },
            db,
          );
          return false;
        }
        // First visit creates the account with the default role; admins change roles on the Staff page.
        await db
          .insert(staff)
          .values({ email: decision.email, role: decision.role, authSource: "oidc", name: profile?.name ?? null })
          .onConflictDoNothing();
        const [row] = await db.select().from(staff).where(eq(staff.email, decision.email)).limit(1);
        const ok = Boolean(row && row.disabledAt === null);
        await appendAudit(
          {
            actor: { id: row?.id ?? null, email: decision.email, role: row?.role ?? null },
            action: "auth.sign_in",
            outcome: ok ? "ok" : "refused",
            correlationId,
            input: { provider: "oidc", ...(ok ? {} : { reason: "disabled" }) },
            ip,
          },
          db,
        );
        return ok;
      },
      async jwt(params) {
        if (params.account?.provider === "oidc" && params.profile?.email) {
          const { db } = await getDb();
          const [row] = await db
            .select({ id: staff.id })
            .from(staff)
            .where(eq(staff.email, params.profile.email.toLowerCase()))
            .limit(1);
          if (!row) return null;
          params.user = { ...params.user, id: row.id };
        }
        return base.callbacks!.jwt!(params);
      },
    },
  };
});

/** The company identity provider, when configured. */
export function ssoProvider(): { id: string; name: string } | null {
  const env = getEnv();
  return oidcEnabled(env) ? { id: "oidc", name: env.AUTH_OIDC_NAME } : null;
}

/** The account behind a valid session, with what the account pages need beyond who and which role. */
export interface SessionAccount extends SignedInStaff {
  authSource: AuthSource;
  /** Signed in with a password someone else set: only choosing one's own is allowed until then. */
  passwordChangeRequired: boolean;
}

/**
 * The account of the session as the database holds it now, or null. Disabled accounts, ended sessions and demo
 * accounts outside demo mode count as signed out (sessionStands). Includes an account that must set its own password
 * first: only the password pages (and the action that changes it) use this; everything else uses currentStaff. Cached
 * per request.
 */
export const sessionAccount = cache(async (): Promise<SessionAccount | null> => {
  const session = (await auth()) as (Session & { signedInAt?: number }) | null;
  const id = session?.user?.id;
  if (!id) return null;
  const { db } = await getDb();
  const [row] = await db.select().from(staff).where(eq(staff.id, id)).limit(1);
  if (!row || !isRole(row.role) || !sessionStands(row, session?.signedInAt, { demoMode: getEnv().UPSTREAM_SANDBOX }))
    return null;
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    authSource: row.authSource,
    passwordChangeRequired: row.passwordChangeRequired,
  };
});

/**
 * The signed-in staff member with the role the database holds now, or null. Disabled accounts count as signed out,
 * and so does a person who has not yet replaced a one-time password: every page, route and action that asks gets
 * nobody, so nothing is reachable until they have chosen their own. Cached per request.
 */
export const currentStaff = cache(async (): Promise<SignedInStaff | null> => {
  const account = await sessionAccount();
  if (!account || account.passwordChangeRequired) return null;
  return { id: account.id, email: account.email, name: account.name, role: account.role };
});
