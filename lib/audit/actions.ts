// Every kind of audited event, with its label for the Audit page's filter. Pure data, shared by writers and readers.
export const AUDIT_ACTIONS = {
  "auth.sign_in": "Sign-in",
  "auth.sign_out": "Sign-out",
  "auth.change_password": "Password change",
  "transaction.correct": "Category correction",
  "transaction.correct_bulk": "Bulk category correction",
  "transaction.undo_correction": "Undo correction",
  "job.pause": "Job paused",
  "job.resume": "Job resumed",
  "job.cancel": "Job cancelled",
  "job.retry": "Job failures retried",
  "job.undo": "Job undone",
  "link.import_file": "Import of a file (plan or start)",
  "link.import": "Link import",
  "link.import_batch": "Import batch",
  "link.import_undo": "Undo of an import (start)",
  "link.delete": "Link deleted",
  "link.exchange_token": "Token exchange",
  "link.sandbox_session": "Sandbox link session (demo)",
  "link.refresh": "Link refresh",
  "link.refresh_all": "Refresh of all links",
  "link.test_webhook": "Test webhook sent",
  "link.refresh_products": "Product refresh",
  "link.update": "Link tags or webhook changed",
  "link.lookup_customer": "Customer's links looked up",
  "link.request_reconnect": "End user asked to reconnect",
  "reconnect.campaign_start": "Reconnect campaign started",
  "alert.acknowledge": "Alert acknowledged",
  "link.register": "Link ids registered",
  "webhook.reprocess": "Webhook event processed again",
  "staff.add": "Staff added",
  "staff.change_role": "Staff role changed",
  "staff.disable": "Staff disabled",
  "staff.enable": "Staff enabled",
  "staff.reset_password": "Staff password reset",
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export const AUDIT_ACTION_KEYS = Object.keys(AUDIT_ACTIONS) as [AuditAction, ...AuditAction[]];

/**
 * Actions on a person's own settings (which columns they see, how dense a table is). They change nothing Linkdesk
 * operates on, for anyone else, so they leave no row in the audit trail (a trail of column toggles would bury the
 * changes people look for there). The action client still checks the session and validates the input.
 */
export const PERSONAL_ACTIONS = {
  "preferences.table_view": "Table columns and density",
} as const;

export type PersonalAction = keyof typeof PERSONAL_ACTIONS;
export const PERSONAL_ACTION_KEYS = Object.keys(PERSONAL_ACTIONS) as [PersonalAction, ...PersonalAction[]];

export const isPersonalAction = (action: string): action is PersonalAction => action in PERSONAL_ACTIONS;

export const AUDIT_OUTCOME_LABELS = {
  ok: "Done",
  refused: "Refused",
  invalid: "Invalid input",
  upstream_error: "Upstream error",
  error: "Failed",
} as const;
