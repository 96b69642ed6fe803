import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { signInAs } from "./session";

// The open redirects an outside test found, tried again in Chromium: a page's target (?callbackUrl=) that a browser
// would read as another site (it drops tabs and line breaks, reads backslashes as slashes, and `//host` is a host)
// leaves the person on the dashboard, and never a 500. Raw query strings, exactly as an attacker's link sends them.

const HOSTILE = [
  "/%09/evil.example/x",
  "/%0a/evil.example/x",
  "/%0d%0a/evil.example/x",
  "%2F%2Fevil.example%2Fx",
  "/%5Cevil.example",
  "/%5C%5Cevil.example",
  "/%255cevil.example",
  "/%252f%252fevil.example",
  "/.%2F%2Fevil.example",
  "https%3A%2F%2Fevil.example%2Fx",
  "javascript%3Aalert(1)",
  "%20%2Flinks",
  `/${"a".repeat(2_100)}`,
];

/**
 * The values a browser itself reads as another site (a tab dropped, a backslash read as a slash, an encoded `//`),
 * followed in Chromium. The server's answer to every value is checked above them: it is the same 307 to "/" for all,
 * so following the rest in a browser would load the same start page again.
 */
const FOLLOWED = new Set([
  "/%09/evil.example/x",
  "/%5Cevil.example",
  "%2F%2Fevil.example%2Fx",
  "javascript%3Aalert(1)",
]);

// The tests share nothing (each signs in afresh or with its role's session): they spread over the workers.
test.describe.configure({ mode: "parallel" });

/** The dashboard's start page, where a refused target lands: "/" leads to the links list. */
const START = /^http:\/\/127\.0\.0\.1:\d+\/links$/;

/**
 * Every request the page tries to send off this machine (an attacker's host), refused before it leaves. Loopback is
 * not foreign: the sandbox upstream serves the institutions' pictures the links list shows.
 */
async function watchForeignRequests(page: Page, dashboard: string): Promise<string[]> {
  const foreign: string[] = [];
  const host = new URL(dashboard).hostname;
  await page.route(
    (url) => url.hostname !== host,
    (route) => {
      foreign.push(route.request().url());
      return route.abort();
    },
  );
  return foreign;
}

test("a signed-in person sent to /sign-in with a hostile callbackUrl stays on the dashboard", async ({
  page,
  baseURL,
  signIn,
}) => {
  test.setTimeout(120_000);
  const dashboard = new URL(baseURL!).origin;
  await signIn(page, "viewer");
  const foreign = await watchForeignRequests(page, dashboard);
  for (const value of HOSTILE) {
    // The answer itself: a redirect to the start page, never to another host, never a 500.
    const answer = await page.request.get(`/sign-in?callbackUrl=${value}`, { maxRedirects: 0 });
    expect(answer.status(), value).toBe(307);
    expect(answer.headers().location, value).toBe("/");
    if (!FOLLOWED.has(value)) continue;

    const response = await page.goto(`/sign-in?callbackUrl=${value}`);
    expect(response?.status(), value).toBeLessThan(500);
    // The start page ("/" leads to the links list); settled before the next navigation starts.
    await expect(page, value).toHaveURL(START);
    await page.waitForLoadState("networkidle");
  }
  expect(foreign).toEqual([]);
});

test("a signed-in person sent to /change-password with a hostile callbackUrl stays on the dashboard", async ({
  page,
  baseURL,
  signIn,
}) => {
  test.setTimeout(120_000);
  const dashboard = new URL(baseURL!).origin;
  await signIn(page, "support");
  const foreign = await watchForeignRequests(page, dashboard);
  for (const value of HOSTILE) {
    const answer = await page.request.get(`/change-password?callbackUrl=${value}`, { maxRedirects: 0 });
    expect(answer.status(), value).toBe(307);
    expect(answer.headers().location, value).toBe("/");
    if (!FOLLOWED.has(value)) continue;
    await page.goto(`/change-password?callbackUrl=${value}`);
    await expect(page, value).toHaveURL(START);
    await page.waitForLoadState("networkidle");
  }
  expect(foreign).toEqual([]);
});

test("signing in through the form from a hostile link lands on the dashboard's start page", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const dashboard = new URL(baseURL!).origin;
  const foreign = await watchForeignRequests(page, dashboard);
  for (const value of ["/%09/evil.example/x", "/%5Cevil.example", "%2F%2Fevil.example%2Fx"]) {
    await page.context().clearCookies();
    await signInAs(page, "viewer", { from: `/sign-in?callbackUrl=${value}` });
    await expect(page, value).toHaveURL(START);
    await page.waitForLoadState("networkidle");
  }
  // A target on the dashboard itself still works.
  await page.context().clearCookies();
  await signInAs(page, "viewer", { from: "/sign-in?callbackUrl=%2Faudit%3Faction%3Dauth.sign_in" });
  await expect(page).toHaveURL(/\/audit\?action=auth\.sign_in$/);
  expect(foreign).toEqual([]);
});
