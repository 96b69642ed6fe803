import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { Client } from "pg";
import { createScratchPostgresDatabase } from "../lib/db/scratch-database";
import { LEASE_TTL_MS, TAKEOVER_POLL_MS } from "../lib/leases/timing";
import { SPEC_ENDPOINTS } from "../lib/upstream/spec-endpoints";
import { SANDBOX_DEFAULTS } from "../sandbox/defaults";
import { type Started, startDashboard, startSandbox } from "../scripts/processes";
import { expect, test } from "./fixtures";
import { signInAs } from "./session";

// Two dashboard instances on one PostgreSQL database and one sandbox, as an operator scales out: one rate budget (no
// upstream 429s while scripts and a sync share it), a full budget answered with 429 and the time of the next slot by
// both instances, a session of one instance valid on the other, one sync at a time, its takeover when the holder is
// killed, and logs that say which instance holds the sync. Its own sandbox and dashboards on ports beside the suite's.

const serverUrl = process.env.DATABASE_URL;
test.skip(
  !serverUrl,
  "DATABASE_URL is unset: instances share state only through a PostgreSQL server (.ci/run sets it)",
);
test.describe.configure({ mode: "serial" });

const dashboardPorts = [Number(process.env.E2E_PORT ?? 3110) + 2, Number(process.env.E2E_PORT ?? 3110) + 3];
const sandboxPort = Number(process.env.E2E_SANDBOX_PORT ?? 4110) + 2;

interface Instance {
  name: string;
  started: Started;
  url: string;
  /** Every JSON log line the instance wrote to stdout. */
  logs: Record<string, unknown>[];
  stderr: string;
}

let sandbox: Started;
let scratch: { url: string; drop: () => Promise<void> };
let dataRoot: string;
const instances: Instance[] = [];
let db: Client;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dataRoot = mkdtempSync(path.join(tmpdir(), "linkdesk-scale-out-"));
  scratch = await createScratchPostgresDatabase(serverUrl!);
  sandbox = await startSandbox({
    port: sandboxPort,
    quiet: true,
    env: { SANDBOX_CLIENT_ID: SANDBOX_DEFAULTS.clientId, SANDBOX_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret },
  });
  const starting = dashboardPorts.map(async (port, index) => {
    const instance: Instance = {
      name: `instance ${"AB"[index]}`,
      started: undefined as unknown as Started,
      url: "",
      logs: [],
      stderr: "",
    };
    let partial = "";
    instance.started = await startDashboard({
      port,
      host: "127.0.0.1",
      env: {
        UPSTREAM_BASE_URL: sandbox.url,
        UPSTREAM_CLIENT_ID: SANDBOX_DEFAULTS.clientId,
        UPSTREAM_CLIENT_SECRET: SANDBOX_DEFAULTS.clientSecret,
        UPSTREAM_SANDBOX: "1",
        DATABASE_URL: scratch.url,
        LINKDESK_DATA_DIR: path.join(dataRoot, String(index)),
        AUTH_SECRET: "scale-out-secret-0123456789abcdef0123",
        LOG_LEVEL: "info",
      },
      onOutput: (text, stream) => {
        if (stream === "stderr") {
          instance.stderr += text;
          return;
        }
        const lines = (partial + text).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) {
          try {
            instance.logs.push(JSON.parse(line) as Record<string, unknown>);
          } catch {
            // Next's own start-up lines are not JSON.
          }
        }
      },
    });
    instance.url = instance.started.url;
    instances[index] = instance;
  });
  await Promise.all(starting);
  db = new Client({ connectionString: scratch.url });
  await db.connect();
});

test.afterAll(async () => {
  await db?.end();
  await Promise.all([...instances.map((i) => i?.started.stop()), sandbox?.stop()]);
  await scratch?.drop();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

async function syncState(): Promise<{
  owner: string | null;
  phase: string;
  done: number;
  total: number;
  heartbeat_at: Date | null;
}> {
  const { rows } = await db.query(
    "select owner, phase, done, total, heartbeat_at from sync_state where id = 'current'",
  );
  return rows[0] ?? { owner: null, phase: "idle", done: 0, total: 0, heartbeat_at: null };
}

async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined | null | false>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const messages = (instance: Instance, msg: string) =>
  instance.logs.filter((line) => typeof line.msg === "string" && line.msg.startsWith(msg));
const pidOf = (owner: string | null) => Number(owner?.split(":")[1]);

async function sandboxStats(): Promise<{
  rateLimited: number;
  byEndpoint: Record<string, { requests: number; rateLimited: number }>;
}> {
  return (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as never;
}

async function cookieHeader(page: Page): Promise<string> {
  return (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
}

test("two instances share one budget, one session and one sync, and the sync moves when its holder is killed", async ({
  page,
}) => {
  test.setTimeout(150_000);
  const [a, b] = instances as [Instance, Instance];

  // A session made by one instance is valid on the other (cookies belong to the host, whatever the port).
  await signInAs(page, "admin", { baseURL: a.url });
  await page.goto(`${b.url}/links`);
  await expect(page.getByTestId("signed-in-as")).toContainText("Admin");

  // Scripts split over both instances, all at once, against one link: the shared budget lets its share through (15 a
  // minute), both instances answer the rest 429 with Retry-After, and the upstream never sees more than it allows.
  const fixtures = (await (await fetch(`${sandbox.url}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  const linkId = fixtures.plain![0]!;
  await page.goto(`${b.url}/links/${encodeURIComponent(linkId)}`);
  const cookie = await cookieHeader(page);
  const answers = await Promise.all(
    Array.from({ length: 24 }, async (_, call) => {
      const response = await fetch(`${instances[call % 2]!.url}/api/links/${encodeURIComponent(linkId)}`, {
        headers: { cookie },
      });
      const text = await response.text();
      const error = response.headers.get("content-type")?.includes("json")
        ? (JSON.parse(text) as { error?: string }).error
        : text;
      return { status: response.status, retryAfter: response.headers.get("retry-after"), error };
    }),
  );
  const statuses = answers.map((answer) => answer.status);
  expect(
    statuses.filter((s) => s !== 200 && s !== 429),
    `statuses: ${statuses.join(" ")}`,
  ).toEqual([]);
  const refused = answers.filter((answer) => answer.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  for (const answer of refused) {
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(answer.error).toMatch(/next slot in \d+ s/);
  }

  // A server action against the same full budget is refused in words, with the time of the next slot.
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Not sent" })).toContainText(/Next slot in \d+ s/);

  // One sync at a time: one instance takes the lease, and says so; the other, if it looked, says who holds it.
  const running = await until("the first sync to read link details", 60_000, async () => {
    const state = await syncState();
    return state.owner && state.phase === "details" && state.done > 0 ? state : null;
  });
  const holder = instances.find((i) => i.started.child.pid === pidOf(running.owner));
  expect(holder, `the lease's owner ${running.owner} is one of the two instances`).toBeTruthy();
  const survivor = holder === a ? b : a;
  expect(messages(holder!, "sync lease taken")).toHaveLength(1);
  expect(messages(survivor, "sync lease taken")).toHaveLength(0);
  for (const line of messages(survivor, "sync lease declined")) expect(line.msg).toContain(running.owner!);

  // The holder dies without a word: the survivor takes the run over once the lease lapses, and carries on counting.
  const before = await syncState();
  holder!.started.child.kill("SIGKILL");
  const killedAt = Date.now();
  const taken = await until("the survivor to take the sync over", 3 * (LEASE_TTL_MS + TAKEOVER_POLL_MS), async () => {
    const state = await syncState();
    return state.owner && pidOf(state.owner) === survivor.started.child.pid ? state : null;
  });
  const takeoverMs = Date.now() - killedAt;
  console.log(
    `scale-out: sync takeover ${(takeoverMs / 1000).toFixed(1)} s after SIGKILL of the holder (lease TTL ${LEASE_TTL_MS / 1000} s + poll ${TAKEOVER_POLL_MS / 1000} s)`,
  );
  test.info().annotations.push({ type: "sync takeover", description: `${takeoverMs} ms after SIGKILL` });
  // The survivor logs the takeover just after it commits the lease: its line can trail the row this test reads.
  const takeover = await until("the survivor's log of the takeover", 5_000, async () =>
    messages(survivor, "sync lease taken").at(-1),
  );
  expect(takeover).toMatchObject({ resumed: true });
  const resumed = await until("the resumed run's first progress", 10_000, async () => {
    const state = await syncState();
    return state.owner === taken.owner &&
      state.heartbeat_at &&
      state.heartbeat_at.getTime() > killedAt + takeoverMs + 1_500
      ? state
      : null;
  });
  expect(resumed.phase).toBe("details");
  expect(resumed.total, `total before the kill ${before.total}, after ${resumed.total}`).toBeGreaterThanOrEqual(
    before.total,
  );

  // A failed sign-in is an expected event: logged through the app's logger at info, not as an error with a stack.
  await page.context().clearCookies();
  await page.goto(`${survivor.url}/sign-in`);
  await page.getByLabel("Email").fill("admin@demo.linkdesk.test");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.locator("form").first().getByRole("alert")).toHaveText("Wrong email or password.");
  await until(
    "the failed sign-in's log line",
    5_000,
    async () => messages(survivor, "auth: CredentialsSignin").length > 0,
  );
  for (const line of messages(survivor, "auth: CredentialsSignin")) expect(line).toMatchObject({ level: 30 });
  expect(survivor.stderr).not.toContain("[auth]");

  // One budget: the upstream answered no 429 to either instance. And the dashboards called only the spec's routes.
  const stats = await sandboxStats();
  expect(stats.rateLimited).toBe(0);
  expect(Object.keys(stats.byEndpoint).filter((endpoint) => !SPEC_ENDPOINTS.includes(endpoint))).toEqual([]);
});
