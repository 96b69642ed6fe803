// The shape every benchmark suite returns, and the report `npm run bench` writes from it: a Markdown file for people
// and a JSON file for tools, each figure beside its goal, with the median and spread of repeated runs.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import path from "node:path";
import { median } from "./stats";

export interface Goal {
  op: "<" | "≤" | "≥" | "=";
  value: number;
}

export interface Figure {
  label: string;
  /** The figure; the median of `runs` when the measurement repeats. null when it was not measured (see `note`). */
  value: number | null;
  unit: string;
  goal?: Goal;
  /** Each run's value, when the suite repeats the measurement: the report shows their median and spread. */
  runs?: number[];
  /** A second figure of the same run this one is compared with: the report shows value / other side by side. */
  versus?: { label: string; value: number };
  note?: string;
}

export interface SuiteResult {
  name: string;
  figures: Figure[];
}

export interface SuiteReport extends Partial<SuiteResult> {
  key: string;
  name: string;
  seconds: number;
  /** Set when the suite threw: what it measured before is lost, the other suites still run. */
  error?: string;
}

/** A figure from repeated runs: its value is their median. */
export function fromRuns(
  label: string,
  runs: number[],
  unit: string,
  extra: Omit<Figure, "label" | "value" | "unit" | "runs"> = {},
): Figure {
  return { label, value: median(runs), unit, runs, ...extra };
}

/** A figure that was not measured, and why. */
export const skipped = (label: string, why: string): Figure => ({ label, value: null, unit: "", note: why });

export const below = (value: number): Goal => ({ op: "<", value });
export const atMost = (value: number): Goal => ({ op: "≤", value });
export const atLeast = (value: number): Goal => ({ op: "≥", value });
export const exactly = (value: number): Goal => ({ op: "=", value });

export function goalMet(figure: Figure): boolean | undefined {
  if (!figure.goal || figure.value === null || Number.isNaN(figure.value)) return undefined;
  const { op, value } = figure.goal;
  const v = figure.value;
  return op === "<" ? v < value : op === "≤" ? v <= value : op === "≥" ? v >= value : v === value;
}

function number(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 || Number.isInteger(value) ? 0 : abs >= 10 ? 1 : abs >= 0.1 ? 2 : 3;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const withUnit = (value: number, unit: string) =>
  unit === "" ? number(value) : unit === "%" ? `${number(value)} %` : `${number(value)} ${unit}`;

export function formatValue(figure: Figure): string {
  return figure.value === null ? "not measured" : withUnit(figure.value, figure.unit);
}

export function formatGoal(figure: Figure): string {
  return figure.goal ? `${figure.goal.op} ${withUnit(figure.goal.value, figure.unit)}` : "";
}

export function formatSpread(figure: Figure): string {
  if (!figure.runs || figure.runs.length < 2) return "";
  return `${withUnit(Math.min(...figure.runs), figure.unit)} – ${withUnit(Math.max(...figure.runs), figure.unit)} (${figure.runs.length} runs)`;
}

export function formatVersus(figure: Figure): string {
  if (!figure.versus || figure.value === null) return "";
  return `${(figure.value / figure.versus.value).toFixed(2)}× ${figure.versus.label} (${withUnit(figure.versus.value, figure.unit)})`;
}

const verdict = (figure: Figure) =>
  ({ true: "met", false: "**missed**", undefined: "" })[String(goalMet(figure)) as "true" | "false" | "undefined"];

/** For the terminal, as each suite ends. */
export function printSuite(suite: SuiteReport): void {
  console.log(`\n## ${suite.name} (${suite.seconds.toFixed(0)} s)`);
  if (suite.error) console.log(`  FAILED: ${suite.error}`);
  for (const f of suite.figures ?? []) {
    const goal = f.goal ? `goal ${formatGoal(f)}: ${goalMet(f) ? "met" : goalMet(f) === false ? "MISSED" : "?"}` : "";
    console.log(
      `  ${[f.label, formatValue(f), formatSpread(f) && `spread ${formatSpread(f)}`, formatVersus(f), goal, f.note ?? ""].filter(Boolean).join("  |  ")}`,
    );
  }
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const row = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |`;

/** The figures that have a goal, one table: what the README shows. */
export function summaryTable(suites: SuiteReport[]): string {
  const lines = [row(["suite", "figure", "measured", "goal", ""]), row(["---", "---", "---", "---", "---"])];
  for (const suite of suites) {
    if (suite.error) lines.push(row([suite.key, "the suite failed", "", "", suite.error.split("\n")[0]!]));
    for (const f of suite.figures ?? [])
      if (f.goal) lines.push(row([suite.key, f.label, formatValue(f), formatGoal(f), verdict(f)]));
  }
  return lines.join("\n");
}

function markdown(suites: SuiteReport[], meta: ReturnType<typeof machine>): string {
  const parts = [
    "# Linkdesk benchmark report",
    "",
    `${meta.startedAt}; ${meta.cpus} × ${meta.cpuModel}, ${meta.memoryGb} GB, Node ${meta.node}, load average ${meta.loadAverage} at the start; ` +
      `PostgreSQL ${meta.postgres ? "on DATABASE_URL (scratch databases)" : "not measured (DATABASE_URL unset)"}. Suites: ${suites.map((s) => s.key).join(", ")}.`,
    "",
    "## Figures with a goal",
    "",
    summaryTable(suites),
  ];
  for (const suite of suites) {
    parts.push("", `## ${suite.name}`, "", `\`${suite.key}\`, ${suite.seconds.toFixed(0)} s.`, "");
    if (suite.error) parts.push("**The suite failed:**", "", "```", suite.error, "```", "");
    if (suite.figures?.length) {
      parts.push(
        row(["figure", "measured", "goal", "", "spread (min – max)", "compared", "note"]),
        row(["---", "---", "---", "---", "---", "---", "---"]),
      );
      for (const f of suite.figures)
        parts.push(
          row([f.label, formatValue(f), formatGoal(f), verdict(f), formatSpread(f), formatVersus(f), f.note ?? ""]),
        );
    }
  }
  return `${parts.join("\n")}\n`;
}

function machine() {
  return {
    startedAt: new Date().toISOString(),
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown CPU",
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.versions.node,
    loadAverage: loadavg()
      .map((l) => l.toFixed(2))
      .join(" "),
    postgres: Boolean(process.env.DATABASE_URL),
  };
}

export type Machine = ReturnType<typeof machine>;
export const describeMachine = machine;

/** Writes report.md and report.json into `dir`; returns their paths. */
export function writeReport(dir: string, suites: SuiteReport[], meta: Machine): { markdown: string; json: string } {
  mkdirSync(dir, { recursive: true });
  const files = { markdown: path.join(dir, "report.md"), json: path.join(dir, "report.json") };
  writeFileSync(files.markdown, markdown(suites, meta));
  const json = suites.map((s) => ({
    ...s,
    figures: s.figures?.map((f) => ({
      ...f,
      met: goalMet(f),
      min: f.runs ? Math.min(...f.runs) : undefined,
      max: f.runs ? Math.max(...f.runs) : undefined,
    })),
  }));
  writeFileSync(files.json, `${JSON.stringify({ ...meta, suites: json }, null, 2)}\n`);
  return files;
}
