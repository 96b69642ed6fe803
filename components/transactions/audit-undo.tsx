import type { AuditEntry } from "@/lib/db/schema";
import { UndoCorrectionButton } from "./undo-correction-button";

/**
 * The Undo control of an audit row that records a correction which went through and kept what it replaced; for the
 * Audit page and a link's history, shown to the roles that may correct.
 */
export function undoCorrectionControl(row: AuditEntry) {
  if (row.action !== "transaction.correct" || row.outcome !== "ok" || row.before === null || !row.targetId) return null;
  return (
    <UndoCorrectionButton
      correlationId={row.correlationId}
      label={`Undo the correction of transaction ${row.targetId}`}
    />
  );
}
