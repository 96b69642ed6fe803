import http from "node:http";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext, APIResponse, Browser } from "@playwright/test";
import { DEMO_ACCOUNTS } from "../lib/auth/demo";
import type { Role } from "../lib/auth/roles";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { appPaths } from "./app-paths";
import { E2E_AUTH_SECRET, E2E_SERVICE_TOKEN, expect, test } from "./fixtures";
import { type BuiltAction, builtActions, postAction } from "./server-actions";
import { signInAs } from "./session";

// Attacks an outsider or a curious member of staff would try, against the built dashboard: each is refused, in words,
// and nothing secret reaches a browser.

const ROOT = path.resolve(import.meta.dirname, "..");

// The tests share nothing but the worker's servers (the address throttle's lock is on an address of its own): they
// spread over the workers.
test.describe.configure({ mode: "parallel" });

async function fixtures(): Promise<Record<string, string[]>> {
  return (await (await fetch(`${process.env.E2E_SANDBOX_URL}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
}

async function samples() {
  const ids = await fixtures();
  return { linkId: ids.plain![0]!, jobId: "00000000-0000-4000-8000-000000000000", nextauth: "session" };
}

// ---------------------------------------------------------------------------------------------------------------------
// Headers

test("every page runs only scripts carrying its own nonce, may not be framed, and names no server version", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (execute|load)/i.test(message.text())) violations.push(message.text());
  });
  page.on("pageerror", (error) => violations.push(error.message));
  await signInAs(page, "admin");
  const nonces = new Set<string>();
  const pages = appPaths("page", await samples());
  expect(pages).toContain("/links");
  for (const url of pages) {
    // In the browser (for policy violations and errors), and as a request whose headers and HTML are read here. Some
    // pages send a signed-in person on once streamed (sign-in to the links): let that navigation end first.
    await page.goto(url, { waitUntil: "networkidle" });
    const response = await page.request.get(url);
    const headers = response.headers();
    const policy = headers["content-security-policy"] ?? "";
    const nonce = /script-src [^;]*'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce, `${url} sends a nonce in its script-src`).toBeTruthy();
    expect(policy, url).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(policy, url).toContain("frame-ancestors 'none'");
    // Upstream pictures (institution logos) are fetched with no referrer: the page's own address stays here.
    expect(headers["referrer-policy"], url).toBe("same-origin");
    expect(headers["x-powered-by"], url).toBeUndefined();
    expect(headers.server ?? "", url).not.toMatch(/next|node|\d/i);
    const html = await response.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length, url).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag, url).toContain(`nonce="${nonce}"`);
    nonces.add(nonce!);
  }
  // Pages still work under the policy: a client-side navigation runs React's scripts.
  await page.goto("/links");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Health" }).click();
  await expect(page).toHaveURL(/\/health$/);
  expect(nonces.size).toBe(pages.length);
  expect(violations).toEqual([]);
});

// ---------------------------------------------------------------------------------------------------------------------
// Injection through upstream data

test("markup and javascript: addresses from the upstream are shown as text and never run or load", async ({ page }) => {
  test.setTimeout(180_000);
  const dialogs: string[] = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await signInAs(page, "support");
  const ids = await fixtures();
  await page.goto(`/links/${ids.hostile_name![0]}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    `<script>alert("linkdesk")</script> Savings & "Loan"`,
  );
  // The link's data carries markup too: an account name, a transaction's description.
  await expect(page.getByTestId("account-row").first()).toContainText(`<script>alert("account")</script> Checking`);
  await expect(page.getByText(`<script>alert("transaction")</script> Coffee`).first()).toBeVisible();

  await page.goto(`/links/${ids.hostile_avatar![0]}`);
  await expect(page.getByTestId("account-row").first()).toBeVisible();
  // The institution's javascript: avatar is never loaded: its initials stand in for it.
  await expect(page.getByText("(its logo address is not http(s): not loaded)")).toBeVisible();
  await expect(page.getByRole("region", { name: "Link" }).getByTestId("avatar-placeholder").first()).toBeVisible();
  for (const url of [`/links/${ids.hostile_name![0]}`, `/links/${ids.hostile_avatar![0]}`, "/links"]) {
    await page.goto(url);
    const hostileAddresses = await page
      .locator('[src^="javascript:" i], [href^="javascript:" i], [action^="javascript:" i]')
      .count();
    expect(hostileAddresses, url).toBe(0);
  }
  expect(dialogs).toEqual([]);
});

// ---------------------------------------------------------------------------------------------------------------------
// Cross-site requests and cookies

test("an action posted from another site is refused in words and does nothing; the same request from Linkdesk works", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await signInAs(page, "admin");
  const addStaff = builtActions().find((action) => action.name === "addStaff")!;
  const email = `cross-site-${Date.now()}@example.com`;
  const body = JSON.stringify([{ email, role: "viewer" }]);

  const forged = await postAction(page.request, addStaff, body, { Origin: "https://evil.example" });
  expect(forged.status()).toBe(403);
  expect(forged.headers()["content-type"]).toBe("text/plain");
  expect(await forged.text()).toBe(
    "Refused: this request came from another site (https://evil.example). Linkdesk accepts changes only from its own pages.",
  );
  // A plain HTML form posted cross-site (no Next-Action header, the form-action kind) is refused the same way.
  const form = await page.request.post("/sign-in", {
    headers: { Origin: "https://evil.example" },
    multipart: { $ACTION_ID_x: "" },
    maxRedirects: 0,
  });
  expect(form.status()).toBe(403);
  await page.goto("/admin/staff");
  await expect(page.getByRole("row").filter({ hasText: email })).toHaveCount(0);

  const own = await postAction(page.request, addStaff, body, { Origin: baseURL! });
  expect(own.status()).toBe(200);
  await page.goto("/admin/staff");
  await expect(page.getByRole("row").filter({ hasText: email })).toHaveCount(1);
});

test("session cookies are HttpOnly and SameSite=Lax, and Secure when Linkdesk is reached over https", async ({
  page,
  context,
  baseURL,
}) => {
  await signInAs(page, "viewer");
  const session = (await context.cookies()).find((cookie) => cookie.name.endsWith("authjs.session-token"));
  expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false });

  // Behind a TLS-terminating proxy (X-Forwarded-Proto: https) the same sign-in sets Secure, __Secure- cookies.
  const https = { "x-forwarded-proto": "https" };
  const csrf = await raw(baseURL!, "GET", "/api/auth/csrf", { headers: https });
  const jar = cookieJar(csrf.setCookies);
  const account = DEMO_ACCOUNTS.find((a) => a.role === "viewer")!;
  const signedIn = await raw(baseURL!, "POST", "/api/auth/callback/credentials", {
    headers: { ...https, cookie: jar, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      csrfToken: JSON.parse(csrf.body).csrfToken,
      email: account.email,
      password: account.password,
    }).toString(),
  });
  expect(signedIn.status).toBe(302);
  const cookie = signedIn.setCookies.find((c) => c.startsWith("__Secure-authjs.session-token="));
  expect(cookie, signedIn.setCookies.join("\n")).toBeTruthy();
  expect(cookie).toMatch(/; HttpOnly/i);
  expect(cookie).toMatch(/; Secure/i);
  expect(cookie).toMatch(/; SameSite=Lax/i);
});

// ---------------------------------------------------------------------------------------------------------------------
// Bad bodies

const FIVE_MB = `[${JSON.stringify("x".repeat(5 * 1024 * 1024))}]`;
const NESTED = `${"[".repeat(5000)}${"]".repeat(5000)}`;
const TRUNCATED = '[{"linkId":"mk_';

test("every server action answers an oversized, deeply nested, truncated or mistyped body in words, never a bare 500", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await signInAs(page, "admin");
  const actions = builtActions();
  expect(actions.length).toBeGreaterThanOrEqual(10);
  for (const action of actions) {
    const cases: { body: string; headers: Record<string, string>; status: number; words: RegExp }[] = [
      {
        body: FIVE_MB,
        headers: {},
        status: 413,
        words: /^Refused: the request body is [\d,]+ bytes, more than the 1 MB limit\.$/,
      },
      {
        body: NESTED,
        headers: {},
        status: 400,
        words: /^Refused: the request body nests more than \d+ levels deep\.$/,
      },
      {
        body: TRUNCATED,
        headers: {},
        status: 400,
        words: /^Refused: the request body is not valid JSON \(.+\); it may have been cut off\.$/,
      },
      {
        body: "<xml/>",
        headers: { "Content-Type": "application/xml" },
        status: 400,
        words: /^Refused: an action's body must be text\/plain or multipart\/form-data/,
      },
    ];
    for (const c of cases) {
      const response = await postAction(page.request, action, c.body, c.headers);
      expect(response.status(), `${action.name}: ${c.words}`).toBe(c.status);
      // Exactly text/plain: Next.js's client then shows these words to the person.
      expect(response.headers()["content-type"]).toBe("text/plain");
      expect(await response.text()).toMatch(c.words);
    }
  }
});

test("every route handler answers an oversized, deeply nested or truncated JSON body in words, never a 500", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await signInAs(page, "admin");
  const routes = appPaths("route", { ...(await samples()), nextauth: "callback/credentials" });
  expect(routes).toContain("/api/health");
  const json = { "Content-Type": "application/json" };
  // Routes with a credential of their own (the back end's service token, the upstream's signature) judge their own
  // bodies once the credential holds; without it, broken JSON gets the credential's refusal (401), in words. The back
  // end's token is known here, so its route's own checks are seen too.
  const ownCredential: Record<string, Record<string, string> | null> = {
    "/api/links/register": { Authorization: `Bearer ${E2E_SERVICE_TOKEN}` },
    "/api/webhooks/upstream": null,
  };
  // Buffers: Playwright would re-encode a JSON-typed string that does not parse, and the point is to send broken JSON.
  for (const url of routes) {
    const big = await page.request.post(url, { headers: json, data: Buffer.from(FIVE_MB), maxRedirects: 0 });
    expect(big.status(), url).toBe(413);
    expect(await refusalText(big)).toMatch(/more than the 1 MB limit/);
    if (url in ownCredential) {
      for (const body of [NESTED, TRUNCATED]) {
        const anonymous = await page.request.post(url, { headers: json, data: Buffer.from(body), maxRedirects: 0 });
        expect(anonymous.status(), url).toBe(401);
        expect(await refusalText(anonymous), url).toMatch(/\w+ \w+/);
      }
    }
    const credential = ownCredential[url];
    if (credential !== null) {
      const headers = { ...json, ...credential };
      const nested = await page.request.post(url, { headers, data: Buffer.from(NESTED), maxRedirects: 0 });
      expect(nested.status(), url).toBe(400);
      expect(await refusalText(nested)).toMatch(/nests more than/);
      const truncated = await page.request.post(url, { headers, data: Buffer.from(TRUNCATED), maxRedirects: 0 });
      expect(truncated.status(), url).toBe(400);
      expect(await refusalText(truncated)).toMatch(/not valid JSON/);
    }
    const mistyped = await page.request.post(url, {
      headers: { "Content-Type": "application/xml" },
      data: Buffer.from("<xml/>"),
      maxRedirects: 0,
    });
    expect(mistyped.status(), url).toBeLessThan(500);
  }
});

/** The words of a refusal: JSON `{error}` under /api/, plain text elsewhere. */
async function refusalText(response: APIResponse): Promise<string> {
  const type = response.headers()["content-type"] ?? "";
  return type.startsWith("application/json") ? ((await response.json()) as { error: string }).error : response.text();
}

// ---------------------------------------------------------------------------------------------------------------------
// The client address

test("X-Forwarded-For sprayed by a client neither evades the sign-in throttle, nor locks out the address it names, nor reaches the audit", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  // Loopback has many addresses: the attacker connects from one, the person it names from another.
  const attacker = "127.0.0.21";
  const victim = "127.0.0.22";
  const viewer = DEMO_ACCOUNTS.find((a) => a.role === "viewer")!;
  const attempt = async (from: string, email: string, password: string, forwardedFor: string) => {
    const csrf = await raw(baseURL!, "GET", "/api/auth/csrf", { localAddress: from });
    const response = await raw(baseURL!, "POST", "/api/auth/callback/credentials", {
      localAddress: from,
      headers: {
        cookie: cookieJar(csrf.setCookies),
        "content-type": "application/x-www-form-urlencoded",
        "x-forwarded-for": forwardedFor,
        "x-real-ip": forwardedFor,
      },
      body: new URLSearchParams({ csrfToken: JSON.parse(csrf.body).csrfToken, email, password }).toString(),
    });
    return response.headers.location ?? "";
  };
  const run = Date.now();
  // Ten failures, each for another unknown email and claiming another address, the victim's among them.
  for (let i = 0; i < 10; i++) {
    const claimed = i % 2 === 0 ? victim : `198.51.100.${i}`;
    expect(await attempt(attacker, `spray-${run}-${i}@example.com`, "wrong", claimed)).toContain("code=invalid");
  }
  // The attacker's own address is locked, whatever it claims now, even with a right password.
  expect(await attempt(attacker, viewer.email, viewer.password, "203.0.113.99")).toMatch(/code=locked/);
  // The person whose address was named signs in as usual.
  const victimAttempt = await attempt(victim, viewer.email, viewer.password, victim);
  expect(victimAttempt).not.toMatch(/error=/);

  // The audit trail records the address the requests came from, never the claimed ones.
  await signInAs(page, "admin");
  const csv = await (await page.request.get("/audit/export?action=auth.sign_in")).text();
  const rows = csv.split("\r\n").filter((line) => line.includes(`spray-${run}-`));
  expect(rows).toHaveLength(10);
  for (const row of rows) {
    expect(row).toContain(`,${attacker},`);
    expect(row).not.toContain(victim);
    expect(row).not.toContain("198.51.100.");
  }
});

// ---------------------------------------------------------------------------------------------------------------------
// No secret in what the browser gets

/**
 * Secrets a browser must never see: the client secret, the session secret, the back end's service token and every
 * access token the sandbox issued.
 */
async function secrets(): Promise<string[]> {
  const { tokens } = (await (await fetch(`${process.env.E2E_SANDBOX_URL}/_sandbox/tokens`)).json()) as {
    tokens: { access_token: string }[];
  };
  expect(tokens.length, "the dashboard has minted an access token by now").toBeGreaterThan(0);
  return [
    SANDBOX_DEFAULTS.clientSecret,
    E2E_AUTH_SECRET,
    E2E_SERVICE_TOKEN,
    ...tokens.map((token) => token.access_token),
  ];
}

function expectNoSecret(texts: { where: string; text: string }[], secretValues: string[]) {
  for (const { where, text } of texts) {
    for (const secret of secretValues) expect(text.includes(secret), `a secret in ${where}`).toBe(false);
  }
}

test("no secret is in the client bundles", async () => {
  const dir = path.join(ROOT, ".next", "static");
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((file) =>
    /\.(js|css|json|txt|html)$/.test(file),
  );
  expect(files.length).toBeGreaterThan(10);
  expectNoSecret(
    files.map((file) => ({ where: `.next/static/${file}`, text: readFileSync(path.join(dir, file), "utf8") })),
    await secrets(),
  );
});

/** Sample arguments for actions that would otherwise change shared state; any other action gets an empty object. */
async function actionArguments(): Promise<Record<string, unknown[]>> {
  const ids = await fixtures();
  // A link of its own: the leak test corrects a transaction and must not disturb the other specs' links.
  const linkId = ids.plain![5]!;
  const nobody = "00000000-0000-4000-8000-000000000000";
  return {
    refreshLink: [{ linkId }],
    correctCategory: [{ linkId, transactionId: await newestTransactionId(linkId), category: "charity" }],
    exchangeToken: [{ exchangeableToken: "not-a-real-token" }],
    createSandboxExchangeToken: [],
    refreshAllLinks: [],
    changeRole: [{ staffId: nobody, role: "viewer" }],
    disableStaff: [{ staffId: nobody }],
    enableStaff: [{ staffId: nobody }],
    resetStaffPassword: [{ staffId: nobody }],
    signInAction: [null, { email: "x" }],
    signInWithSso: ["/"],
  };
}

/** The link's newest transaction, read from the sandbox with its own credentials (a fixture, not the dashboard). */
async function newestTransactionId(linkId: string): Promise<string> {
  const sandbox = process.env.E2E_SANDBOX_URL;
  const minted = await fetch(`${sandbox}/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: SANDBOX_DEFAULTS.clientId,
      client_secret: SANDBOX_DEFAULTS.clientSecret,
    }),
  });
  const { access_token } = (await minted.json()) as { access_token: string };
  const page = await fetch(`${sandbox}/links/${linkId}/transactions?size=1`, {
    headers: {
      Authorization: `Bearer ${access_token}`,
      "X-Client-Id": SANDBOX_DEFAULTS.clientId,
      "X-Client-Secret": SANDBOX_DEFAULTS.clientSecret,
    },
  });
  return ((await page.json()) as { transactions: { transaction_id: string }[] }).transactions[0]!.transaction_id;
}

async function collectAs(
  browser: Browser,
  baseURL: string,
  role: Role | null,
): Promise<{ where: string; text: string }[]> {
  const context = await browser.newContext({ baseURL });
  const texts: { where: string; text: string }[] = [];
  try {
    const page = await context.newPage();
    if (role) await signInAs(page, role);
    const request: APIRequestContext = page.request;
    for (const url of appPaths("page", await samples())) {
      const html = await request.get(url);
      texts.push({ where: `${url} as ${role ?? "nobody"}`, text: await html.text() });
      const rsc = await request.get(url, { headers: { RSC: "1" } });
      texts.push({ where: `${url} (RSC) as ${role ?? "nobody"}`, text: await rsc.text() });
    }
    const args = await actionArguments();
    // Signing out last: it ends the session the other calls use.
    const actions = builtActions().sort(
      (a, b) => Number(a.name === "signOutAction") - Number(b.name === "signOutAction"),
    );
    for (const action of actions) {
      const response = await postAction(request, action, JSON.stringify(args[action.name] ?? [{}]), {
        Origin: baseURL,
      });
      const text = await response.text();
      expect(response.status(), `${action.name} as ${role ?? "nobody"}: ${text.slice(0, 200)}`).toBeLessThan(500);
      texts.push({ where: `action ${action.name} as ${role ?? "nobody"}`, text });
    }
  } finally {
    await context.close();
  }
  return texts;
}

// Nobody, the least role and the most: roles are cumulative (lib/auth/roles.test.ts), so every page, payload and action
// answer support or ops can reach, an admin reaches too, and the admin's run covers theirs.
for (const role of [null, "viewer", "admin"] as const) {
  test(`no secret in any page, its RSC payload or any action's answer, as ${role ?? "nobody"}`, async ({
    browser,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const texts = await collectAs(browser, baseURL!, role);
    expect(texts.length).toBeGreaterThan(20);
    expectNoSecret(texts, await secrets());
  });
}

test("every server action comes from lib/actions, where the role matrix finds it", () => {
  const strays = builtActions().filter((action: BuiltAction) => !action.file.startsWith("lib/actions/"));
  expect(strays).toEqual([]);
});

// ---------------------------------------------------------------------------------------------------------------------

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  setCookies: string[];
  body: string;
}

/** A request from a chosen loopback address (the connection's address is what Linkdesk trusts). */
function raw(
  baseURL: string,
  method: string,
  pathname: string,
  opts: { localAddress?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const url = new URL(pathname, baseURL);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: opts.localAddress,
        headers: opts.headers,
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            setCookies: response.headers["set-cookie"] ?? [],
            body,
          }),
        );
      },
    );
    request.on("error", reject);
    request.end(opts.body);
  });
}

/** A Cookie header from Set-Cookie lines; a later cookie of the same name wins, as in a browser. */
function cookieJar(setCookies: string[]): string {
  const jar = new Map<string, string>();
  for (const line of setCookies) {
    const [pair] = line.split(";");
    const at = pair!.indexOf("=");
    jar.set(pair!.slice(0, at), pair!.slice(at + 1));
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
}
