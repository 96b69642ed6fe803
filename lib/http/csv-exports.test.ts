import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { appendAudit } from "../audit/append";
import type { SignedInStaff } from "../auth/credentials";
import { type Database } from "../db/client";
import { openTestPglite } from "../testing/pglite";
import { recordLinks } from "../links/read-model";
import { wireLink } from "../testing/wire-fixtures";
import { csvField, parseCsv } from "./csv";

// Every CSV export, fed cells a spreadsheet would run as formulas (= + - @ and a tab or CR before them): in the file,
// each such cell starts with an apostrophe. The exports are found from the route files, so a new one without a row
// here fails this test.

let database: Database;
const viewer: SignedInStaff = { id: randomUUID(), email: "viewer@csv.test", name: null, role: "viewer" };

vi.mock("../auth", () => ({ currentStaff: async () => viewer, clientAddress: () => null }));
vi.mock("../db/client", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getDb: async () => database,
}));

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const FORMULAS = ['=HYPERLINK("http://evil.example","click")', "+SUM(1,2)", "-2+3", "@SUM(A1:A2)", "\t=1+1", "\r=1+1"];
const RUNS_AS_FORMULA = /^[=+\-@\t\r]/;

const exportRoutes = (readdirSync(path.join(ROOT, "app"), { recursive: true }) as string[])
  .filter((file) => file.endsWith("route.ts"))
  .map((file) => `app/${file.split(path.sep).join("/")}`)
  .filter((file) => readFileSync(path.join(ROOT, file), "utf8").includes("csvExport("))
  .sort();

interface ExportCase {
  /** Writes the formula cells where the export reads from; answers the route's params. */
  seed: (db: Database["db"]) => Promise<Record<string, string> | void>;
  url: (params: Record<string, string>) => string;
}

const exports: Record<string, ExportCase> = {
  "app/(dashboard)/audit/export/route.ts": {
    url: () => "http://linkdesk.test/audit/export",
    async seed(db) {
      for (const formula of FORMULAS) {
        await appendAudit(
          {
            actor: { id: null, email: formula, role: null },
            action: "link.refresh",
            outcome: "refused",
            correlationId: randomUUID(),
            targetType: formula,
            targetId: formula,
            linkId: formula,
            upstreamErrorCode: formula,
            ip: formula,
          },
          db,
        );
      }
    },
  },
  "app/(dashboard)/import/[jobId]/export/route.ts": {
    url: ({ jobId }) => `http://linkdesk.test/import/${jobId}/export`,
    async seed(db) {
      const { insertJob } = await import("../jobs/store");
      const job = await insertJob(db, {
        kind: "import",
        title: "formulas",
        createdBy: { id: viewer.id, email: viewer.email, role: "ops" },
        items: FORMULAS.map((formula, position) => ({
          input: { position },
          linkId: formula,
          groupKey: `link-${position}`,
          state: "skipped" as const,
          reason: formula,
        })),
      });
      return { jobId: job.id };
    },
  },
  "app/(dashboard)/jobs/[jobId]/export/route.ts": {
    url: ({ jobId }) => `http://linkdesk.test/jobs/${jobId}/export`,
    async seed(db) {
      const { insertJob } = await import("../jobs/store");
      const job = await insertJob(db, {
        kind: "correction",
        title: "formulas",
        createdBy: { id: viewer.id, email: viewer.email, role: "support" },
        items: FORMULAS.map((formula) => ({
          input: {},
          linkId: formula,
          targetId: formula,
          state: "skipped" as const,
          reason: formula,
        })),
      });
      return { jobId: job.id };
    },
  },
  "app/(dashboard)/links/export/route.ts": {
    url: () => "http://linkdesk.test/links/export",
    async seed(db) {
      await recordLinks(
        db,
        FORMULAS.map((formula, i) =>
          wireLink({
            link_id: `${formula}${i}`,
            institution_id: formula,
            institution_name: formula,
            provider: formula,
            link_tags: [formula, "plain"],
          }),
        ),
      );
    },
  },
  "app/(dashboard)/webhooks/export/route.ts": {
    url: () => "http://linkdesk.test/webhooks/export",
    async seed(db) {
      const { webhookEvents } = await import("../db/schema");
      await db.insert(webhookEvents).values(
        FORMULAS.flatMap((formula, i) => [
          {
            verification: "verified" as const,
            outcome: "failed" as const,
            event: formula,
            linkId: formula,
            detail: formula,
            idempotencyKey: `${formula}${i}`,
            deliveryToken: formula,
            kid: formula,
            sourceAddress: formula,
            body: { note: formula },
          },
          { verification: "refused" as const, outcome: "refused" as const, refusal: formula, sourceAddress: formula },
        ]),
      );
    },
  },
};

beforeAll(async () => {
  database = await openTestPglite();
}, 60_000);
afterAll(() => database?.close());

describe("CSV exports", () => {
  it("has a case for every export route", () => {
    expect(exportRoutes.length).toBeGreaterThanOrEqual(2);
    expect(exportRoutes).toEqual(Object.keys(exports).sort());
  });

  it.each(Object.entries(exports))("%s defuses every cell a spreadsheet would run", async (file, c) => {
    const params = (await c.seed(database.db)) ?? {};
    type Get = (request: NextRequest, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
    const { GET } = (await import(/* @vite-ignore */ path.join(ROOT, file))) as { GET: Get };
    const response = await GET(new NextRequest(c.url(params)), { params: Promise.resolve(params) });
    expect(response.status).toBe(200);
    const records = parseCsv(await response.text());
    const cells = records.slice(1).flat();
    // Every hostile value made it into the file, defused.
    for (const formula of FORMULAS) expect(cells.some((cell) => cell.startsWith(`'${formula}`))).toBe(true);
    for (const cell of cells) expect(cell, cell).not.toMatch(RUNS_AS_FORMULA);
  });
});

describe("an export of one job", () => {
  type Get = (request: NextRequest, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
  const get = async (file: string, url: string, jobId: string) => {
    const { GET } = (await import(/* @vite-ignore */ path.join(ROOT, file))) as { GET: Get };
    return GET(new NextRequest(url), { params: Promise.resolve({ jobId }) });
  };
  const IMPORT_EXPORT = "app/(dashboard)/import/[jobId]/export/route.ts";
  const JOB_EXPORT = "app/(dashboard)/jobs/[jobId]/export/route.ts";

  it("answers 404, not an empty file, for a job of another kind or no job at all", async () => {
    const { insertJob } = await import("../jobs/store");
    const correction = await insertJob(database.db, {
      kind: "correction",
      title: "not an import",
      createdBy: { id: viewer.id, email: viewer.email, role: "support" },
      items: [{ input: {}, targetId: "txn_1", state: "skipped" as const, reason: "kept" }],
    });
    const importOfCorrection = await get(
      IMPORT_EXPORT,
      `http://linkdesk.test/import/${correction.id}/export`,
      correction.id,
    );
    expect(importOfCorrection.status).toBe(404);
    expect(importOfCorrection.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await importOfCorrection.json()).toEqual({ error: "No such import." });

    const nobody = randomUUID();
    expect((await get(IMPORT_EXPORT, `http://linkdesk.test/import/${nobody}/export`, nobody)).status).toBe(404);
    const noJob = await get(JOB_EXPORT, `http://linkdesk.test/jobs/${nobody}/export`, nobody);
    expect(noJob.status).toBe(404);
    expect(await noJob.json()).toEqual({ error: "No such job." });

    // The same correction job through the export of every kind.
    const job = await get(JOB_EXPORT, `http://linkdesk.test/jobs/${correction.id}/export`, correction.id);
    expect(job.status).toBe(200);
    expect(parseCsv(await job.text()).length).toBeGreaterThan(1);
  });
});

describe("csvField", () => {
  it("quotes what needs quoting and leaves plain text alone", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField(null)).toBe("");
    expect(csvField(42)).toBe("42");
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField("=1+1")).toBe("'=1+1");
    expect(csvField("\r=1")).toBe('"\'\r=1"');
    expect(csvField("mid=1")).toBe("mid=1");
  });
});
