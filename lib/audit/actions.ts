// Every kind of audited event, with its label for the Audit page's filter. Pure data, shared by writers and readers.
export const AUDIT_ACTIONS = {
  "auth.sign_in": "Sign-in",
  "auth.sign_out": "Sign-out",
  "transaction.correct": "Category correction",
  "transaction.correct_bulk": "Bulk category correction",
  "transaction.undo_correction": "Undo correction",
  "link.import": "Link import",
  "link.import_batch": "Import batch",
  "link.exchange_token": "Token exchange",
  "link.sandbox_session": "Sandbox link session (demo)",
  "link.refresh": "Link refresh",
  "link.refresh_all": "Refresh of all links",
  "staff.add": "Staff added",
  "staff.change_role": "Staff role changed",
  "staff.disable": "Staff disabled",
  "staff.enable": "Staff enabled",
  "staff.reset_password": "Staff password reset",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export const AUDIT_ACTION_KEYS = Object.keys(AUDIT_ACTIONS) as [AuditAction, ...AuditAction[]];

export const AUDIT_OUTCOME_LABELS = {
  ok: "Done",
  refused: "Refused",
  invalid: "Invalid input",
  upstream_error: "Upstream error",
  error: "Failed",
} as const;
