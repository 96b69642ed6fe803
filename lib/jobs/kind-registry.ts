import "server-only";
import { correctionKind } from "./correction";
import { importKind } from "./import";
import { importUndoKind } from "./import-undo";
import type { JobKind } from "./kind-contract";
import { reconnectKind } from "./reconnect";

/** Every kind of job this version of Linkdesk can work, by name. */
export const JOB_KINDS: ReadonlyMap<string, JobKind> = new Map<string, JobKind>([
  [correctionKind.kind, correctionKind as JobKind],
  [importKind.kind, importKind as JobKind],
  [importUndoKind.kind, importUndoKind as JobKind],
  [reconnectKind.kind, reconnectKind as JobKind],
]);

export function jobKind(kind: string): JobKind | undefined {
  return JOB_KINDS.get(kind);
}
