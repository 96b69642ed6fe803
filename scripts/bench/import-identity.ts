// Knowing imported links by identity at fleet size: the dry run of a ~24 MB fleet file (300 links, 15 listed twice,
// about 100,000 transactions) against 100,000 links already in imported_links, half of the file's own among them.
// Planning (analyzeImportFile with the identity on) beside the duplicate check (lookupImported of every key of the
// file) and the whole dry run path, on PGlite and, when DATABASE_URL is set, on PostgreSQL in a scratch database;
// and what the element-line scan of an array file costs. The fleet's pace with the identity checks on (a
// GET /users/{id}/links before each POST /links/import) is measured by the `import` suite. Run alone:
// `tsx --conditions=react-server scripts/bench/import-identity.ts`.
import { createHash, randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { sql } from "drizzle-orm";
import type { Database } from "../../lib/db/client";
import { importedLinks } from "../../lib/db/schema";
import { analyzeImportFile, sha256Hex } from "../../lib/import/reader";
import { DEFAULT_IDENTITY, identityOf } from "../../lib/import/identity";
// The reader's format step alone, measured apart from the whole reading.
import { arrayElementLines, parseImportText } from "../../lib/import/reader/formats";
import { identityTag, lookupImported } from "../../lib/jobs/imported-links";
import { legacyLink } from "./import-files";
import { onBenchDatabases } from "./scratch-database";
import { type Figure, type SuiteResult, below, fromRuns, printSuite } from "./report";
import { median, time } from "./stats";

/** Already imported by earlier jobs. */
const IMPORTED = 100_000;
const LINKS = 300;
/** The last lines of the file list links of its first lines again (a re-listed link): found by the in-file check. */
const LISTED_TWICE = 15;
/** 300 × 333 ≈ 100,000 transactions, ~24 MB: a fleet export near the 25 MB upload limit. */
const TRANSACTIONS_PER_LINK = 333;
const SEED_CHUNK = 2_000;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

function fleetLines(marker: string): string[] {
  return Array.from({ length: LINKS }, (_, i) =>
    JSON.stringify(
      legacyLink(`${marker}-${i < LINKS - LISTED_TWICE ? i : i - (LINKS - LISTED_TWICE)}`, TRANSACTIONS_PER_LINK),
    ),
  );
}

/** The file's distinct identity keys, in file order. */
function keysOf(lines: string[]): string[] {
  const keys = lines.map((line) => identityOf(JSON.parse(line)));
  return [...new Set(keys.map((k) => (k.ok ? k.key : "")).filter(Boolean))];
}

/**
 * 100,000 rows as earlier imports leave them (state created, a link id, 1,000 links a job), with every other distinct
 * key of the file among them; the rest are other customers' links of the same shape.
 */
async function seedImported({ db }: Database, fileKeys: string[]): Promise<number> {
  const ofFile = fileKeys.filter((_, i) => i % 2 === 0);
  const jobs = Array.from({ length: IMPORTED / 1_000 }, () => randomUUID());
  const keyAt = (n: number) =>
    n < ofFile.length ? ofFile[n]! : JSON.stringify([`legacy-old-${n}`, "chase", ["acc-1", "acc-2"]]);
  for (let start = 0; start < IMPORTED; start += SEED_CHUNK) {
    const rows: (typeof importedLinks.$inferInsert)[] = [];
    for (let n = start; n < Math.min(start + SEED_CHUNK, IMPORTED); n++) {
      const identityKey = keyAt(n);
      rows.push({
        identityKey,
        tag: identityTag(identityKey),
        customerUserId: (JSON.parse(identityKey) as string[])[0]!,
        institutionId: "chase",
        jobId: jobs[Math.floor(n / 1_000)]!,
        position: n % 1_000,
        line: (n % 1_000) + 1,
        linkId: `mk_${createHash("md5").update(identityKey).digest("hex").slice(0, 20)}`,
        state: "created",
        importedState: "error",
        importedErrorCode: "auth_expired",
      });
    }
    await db.insert(importedLinks).values(rows);
  }
  await db.execute(sql`vacuum analyze imported_links`);
  return ofFile.length;
}

/** Parse, check, identities, plan: what both the dry run and the job do with the file before the database. */
async function planning(bytes: Uint8Array, label: string): Promise<{ figure: Figure; medianMs: number }> {
  let summary = "";
  const cpu: number[] = [];
  const runs = await time(3, 1, async () => {
    const started = process.cpuUsage();
    const { report } = await analyzeImportFile(bytes, { identity: DEFAULT_IDENTITY });
    const used = process.cpuUsage(started);
    cpu.push((used.user + used.system) / 1000);
    if (report.fileProblem || report.invalid > 0)
      throw new Error(`the ${label} file did not check: ${report.fileProblem?.message ?? `${report.invalid} invalid`}`);
    summary = `${report.valid} to import, ${report.duplicates} duplicates in the file, ${report.transactions.toLocaleString("en-US")} transactions → ${report.calls.imports} imports + ${report.calls.batches} batches`;
  });
  return {
    medianMs: median(runs),
    figure: fromRuns(
      `(a) planning, ${label}: read, checked, identities and in-file duplicates, planned (analyzeImportFile, identity on)`,
      runs,
      "ms",
      {
        note: `${summary}; CPU time median ${median(cpu.slice(1)).toFixed(0)} ms; one warm-up run first`,
      },
    ),
  };
}

/** The in-file part of the duplicate check alone: identityOf for every link and the first-of-each-key map. */
function identitiesAlone(text: string): Figure {
  const parsed = parseImportText(text);
  if (!parsed.ok) throw new Error(parsed.problem.message);
  const values = parsed.links.map((l) => l.value);
  const runs: number[] = [];
  let duplicates = 0;
  for (let run = 0; run < 6; run++) {
    const started = performance.now();
    const first = new Map<string, number>();
    duplicates = 0;
    values.forEach((value, position) => {
      const identity = identityOf(value);
      if (!identity.ok) return;
      if (first.has(identity.key)) duplicates++;
      else first.set(identity.key, position);
    });
    if (run > 0) runs.push(performance.now() - started);
  }
  return fromRuns(
    "in-file duplicates alone: identityOf of every link and the first of each key (part of (a))",
    runs,
    "ms",
    { note: `${duplicates} duplicates among ${values.length} links` },
  );
}

/** The array form's extra pass: the line of each element, now found for every array file. */
async function arrayScan(arrayText: string, ndjsonPlanningMs: number): Promise<Figure[]> {
  const bytes = new TextEncoder().encode(arrayText);
  const { figure, medianMs } = await planning(bytes, `the same links as one JSON array (${mb(bytes.length)})`);
  let elements = 0;
  const scan = await time(3, 1, async () => {
    elements = arrayElementLines(arrayText).length;
  });
  return [
    { ...figure, versus: { label: "NDJSON", value: ndjsonPlanningMs } },
    fromRuns("array file: the element-line scan alone (arrayElementLines, part of the planning above)", scan, "ms", {
      versus: { label: "the array file's planning", value: medianMs },
      note: `${((median(scan) / medianMs) * 100).toFixed(0)} % of that planning; ${elements} elements; NDJSON files do not scan (each line is a link)`,
    }),
  ];
}

async function measureDatabase(
  name: "PGlite" | "PostgreSQL",
  database: Database,
  bytes: Uint8Array,
  fileKeys: string[],
  planningMs: number,
): Promise<Figure[]> {
  const seedStarted = performance.now();
  const seededOfFile = await seedImported(database, fileKeys);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const [{ count } = { count: 0 }] = (
    await database.db.execute<{ count: number }>(sql`select count(*)::int as count from imported_links`)
  ).rows;

  let found = 0;
  let cold = 0;
  const lookup = await time(7, 1, async () => {
    const started = performance.now();
    found = (await lookupImported(database.db, fileKeys)).size;
    if (cold === 0) cold = performance.now() - started;
  });
  if (found !== seededOfFile) throw new Error(`${name}: the lookup found ${found} of the ${seededOfFile} keys seeded`);

  // The server action's dry run (lib/actions/import.ts importFile, dryRun): hash, analyze, look up the links to import.
  let summary = "";
  const dryRun = await time(3, 0, async () => {
    const sha256 = await sha256Hex(bytes);
    const { report } = await analyzeImportFile(bytes, { sha256, identity: DEFAULT_IDENTITY });
    const toImport = report.links.filter((l) => l.problems.length === 0 && !l.duplicateOf);
    const held = await lookupImported(
      database.db,
      toImport.map((l) => l.identityKey!),
    );
    summary = `${toImport.length - held.size} new, ${held.size} already imported, ${report.duplicates} duplicates in the file`;
  });

  return [
    {
      label: `${name}: seed ${IMPORTED.toLocaleString("en-US")} imported links (bulk insert of ${SEED_CHUNK.toLocaleString("en-US")} a statement, VACUUM ANALYZE)`,
      value: seedSeconds,
      unit: "s",
      note: `${count.toLocaleString("en-US")} rows`,
    },
    fromRuns(
      `${name}: (b) duplicate check against ${IMPORTED.toLocaleString("en-US")} imported links: lookupImported of the file's ${fileKeys.length} keys`,
      lookup,
      "ms",
      {
        goal: below(2000),
        versus: { label: "planning (a)", value: planningMs },
        note: `${found} found imported (${seededOfFile} seeded); first call ${cold.toFixed(1)} ms (not counted)`,
      },
    ),
    fromRuns(`${name}: whole dry run path (hash, analyze, look up the links to import)`, dryRun, "ms", {
      versus: { label: "planning (a)", value: planningMs },
      note: summary,
    }),
  ];
}

export async function benchImportIdentity(): Promise<SuiteResult> {
  const lines = fleetLines(`legacy-${randomUUID()}`);
  const ndjson = lines.join("\n");
  const bytes = new TextEncoder().encode(ndjson);
  const fileKeys = keysOf(lines);
  const { figure: planned, medianMs: planningMs } = await planning(bytes, `${mb(bytes.length)} NDJSON`);
  const figures: Figure[] = [
    planned,
    identitiesAlone(ndjson),
    ...(await arrayScan(`[\n${lines.join(",\n")}\n]\n`, planningMs)),
  ];
  figures.push(
    ...(await onBenchDatabases("import-identity", (name, database) =>
      measureDatabase(name, database, bytes, fileKeys, planningMs),
    )),
  );
  return {
    name: `import identity: the dry run of a ${mb(bytes.length)} fleet file (${LINKS} links, ${LISTED_TWICE} listed twice) against ${IMPORTED.toLocaleString("en-US")} imported links`,
    figures,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printSuite({ key: "import-identity", seconds: 0, ...(await benchImportIdentity()) });
}
